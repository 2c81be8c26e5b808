// The entries of a feed repeat one another character for character, but for their values and
// for which of their properties are null. An entry the scanner read tag by tag becomes a
// template: the text between its leaves as it was written, and for each leaf whose value is read
// (the id, a link's href, a property) or may vary (the title, updated) the ways it was written,
// with a hole where the value was. Entries that differ only in which ways their leaves took (a
// property null in one, not in another) merge into one template, which tries both ways at each
// place. The next entry written so is read by one sticky regular expression, which V8 runs as
// machine code, where the tag reader compares and searches its way through some thirty elements.
//
// A hole takes only text the tag reader takes as it is written: no reference, no CR, no `<`, no
// character XML forbids (and no surrogate, paired or not, to keep the class simple); everything
// else in a template is text the reader checked when it read it. So an entry a template matches
// is read exactly as the tag reader would read it; one it does not match is read tag by tag.
import type { AtomNavigationLink } from './atom-model.js';
import type { EdmValue } from './edm.js';

/** What the value of a place is in the entry. */
export const ID = 1;
export const EDIT_LINK = 2;
export const NAVIGATION_LINK = 3;
export const PROPERTY = 4;
export const IGNORED = 5;
export type PlaceKind = typeof ID | typeof EDIT_LINK | typeof NAVIGATION_LINK | typeof PROPERTY | typeof IGNORED;

export type Leaf = (text: string) => EdmValue;

/** A leaf as the tag reader read it: positions in the piece the entry was read from. */
export interface LeafRecord {
  readonly kind: PlaceKind;
  /** PROPERTY: the property's slot, and how this way of writing it reads its text. */
  readonly slot: number;
  readonly leaf: Leaf | undefined;
  /** NAVIGATION_LINK: the navigation property. */
  readonly navigation: string | undefined;
  /** Where the start tag ends; whether it closed the element. */
  readonly tagEnd: number;
  readonly selfClosing: boolean;
  /** The value: the text of the element, or (links) the href; -1 for a leaf that closed itself. */
  readonly from: number;
  readonly to: number;
}

/** One way a place was written: a pattern with one group (the value; empty for no text). */
interface Way {
  readonly source: string;
  readonly leaf: Leaf | undefined;
}

interface Place {
  readonly kind: PlaceKind;
  readonly slot: number;
  readonly navigation: string | undefined;
  readonly ways: readonly Way[];
}

export interface EntryTemplate {
  /** Sticky: from after the entry's start tag through its end tag, a group per way of each place. */
  readonly pattern: RegExp;
  /** The text between the places, as written. */
  readonly gaps: readonly string[];
  readonly places: readonly Place[];
  /** Whether the entry had `m:properties` (an entry without has an empty record). */
  readonly hasProperties: boolean;
}

const TEXT_HOLE = '([^\\u0000-\\u0008\\u000b-\\u001f<&\\ud800-\\udfff\\ufffe\\uffff]*)';
/** Attribute values also leave tabs and line feeds (normalised to spaces) and their quote out. */
const DOUBLE_QUOTED_HOLE = '([^\\u0000-\\u001f<&"\\ud800-\\udfff\\ufffe\\uffff]*)';
const SINGLE_QUOTED_HOLE = "([^\\u0000-\\u001f<&'\\ud800-\\udfff\\ufffe\\uffff]*)";
const SYNTAX = /[\\^$.*+?()[\]{}|/]/g;
/** Ways kept per place: a value and null is what feeds vary. */
const MAX_WAYS = 2;
/**
 * The most text a template keeps of an entry outside its holes. Entries of V2 feeds keep 1 to
 * 2 kB there; one far longer (an author's biography, an inline document) is no feed's
 * repeated shape, and its pattern would only take memory.
 */
const MAX_LITERAL = 16_384;

function literal(text: string): string {
  return text.replace(SYNTAX, '\\$&');
}

/**
 * Patterns by their source, so that the templates every page of a list learns again are
 * compiled once. A server writes a handful of shapes; a full cache starts again.
 */
const patterns = new Map<string, RegExp>();
const MAX_PATTERNS = 64;

function patternOf(source: string): RegExp {
  let pattern = patterns.get(source);
  if (pattern === undefined) {
    if (patterns.size >= MAX_PATTERNS) patterns.clear();
    pattern = new RegExp(source, 'y');
    patterns.set(source, pattern);
  }
  return pattern;
}

function template(gaps: readonly string[], places: readonly Place[], hasProperties: boolean): EntryTemplate {
  let source = literal(gaps[0] as string);
  places.forEach((place, k) => {
    const ways = place.ways.map((way) => way.source);
    source += (ways.length === 1 ? ways[0] : `(?:${ways.join('|')})`) + literal(gaps[k + 1] as string);
  });
  return { pattern: patternOf(source), gaps, places, hasProperties };
}

/**
 * The template of an entry read tag by tag: `xml` is the piece it was read from, `from` and `to`
 * where its content (after the start tag, through the end tag) begins and ends, `leaves` what was
 * read, in order. Undefined when the leaves cannot be told apart from the text between them, or
 * when the entry is too long to be worth a template.
 */
export function entryTemplate(xml: string, from: number, to: number, leaves: readonly LeafRecord[], hasProperties: boolean): EntryTemplate | undefined {
  const gaps: string[] = [];
  const places: Place[] = [];
  let at = from;
  let literalLength = 0;
  for (const r of leaves) {
    // A start tag holds no `<` of its own (attribute values cannot); an end tag no `>` before its last.
    const start = xml.lastIndexOf('<', r.tagEnd - 1);
    const end = r.selfClosing ? r.tagEnd : xml.indexOf('>', r.to) + 1;
    if (start < at || end <= 0 || end > to) return undefined;
    let source: string;
    if (r.from < 0) source = `${literal(xml.slice(start, end))}()`;
    else {
      const hole = r.from < r.tagEnd ? (xml.charCodeAt(r.from - 1) === 39 /* ' */ ? SINGLE_QUOTED_HOLE : DOUBLE_QUOTED_HOLE) : TEXT_HOLE;
      source = literal(xml.slice(start, r.from)) + hole + literal(xml.slice(r.to, end));
    }
    gaps.push(xml.slice(at, start));
    places.push({ kind: r.kind, slot: r.slot, navigation: r.navigation, ways: [{ source, leaf: r.leaf }] });
    literalLength += start - at + source.length;
    at = end;
  }
  gaps.push(xml.slice(at, to));
  literalLength += to - at;
  return literalLength > MAX_LITERAL ? undefined : template(gaps, places, hasProperties);
}

/**
 * `next` merged into `kept` where both have the same places and the same text between them: the
 * ways of each place together (the newest first, at most two). Undefined where they differ.
 */
export function mergeTemplates(kept: EntryTemplate, next: EntryTemplate): EntryTemplate | undefined {
  if (kept.pattern === next.pattern) return kept;
  const { gaps, places } = kept;
  if (places.length !== next.places.length || kept.hasProperties !== next.hasProperties) return undefined;
  for (let k = 0; k < gaps.length; k++) if (gaps[k] !== next.gaps[k]) return undefined;
  const merged: Place[] = [];
  for (let k = 0; k < places.length; k++) {
    const a = places[k] as Place;
    const b = next.places[k] as Place;
    if (a.kind !== b.kind || a.slot !== b.slot || a.navigation !== b.navigation) return undefined;
    const way = b.ways[0] as Way;
    const ways = a.ways.some((w) => w.source === way.source) ? a.ways : [way, ...a.ways].slice(0, MAX_WAYS);
    merged.push(ways === a.ways ? a : { ...a, ways });
  }
  return template(gaps, merged, kept.hasProperties);
}

/** What a matched entry holds, read from its places. */
export interface TemplateValues {
  id: string | undefined;
  editLink: string | undefined;
  readonly navigation: Record<string, AtomNavigationLink>;
}

/**
 * The values of the entry `match` matched with `t`: properties into `slots` (when it has any),
 * the rest into the returned values.
 */
export function readTemplate(t: EntryTemplate, match: RegExpExecArray, slots: unknown[] | undefined): TemplateValues {
  const values: TemplateValues = { id: undefined, editLink: undefined, navigation: {} };
  let group = 1;
  for (const place of t.places) {
    let text: string | undefined;
    let leaf: Leaf | undefined;
    for (const way of place.ways) {
      const written = match[group++];
      if (written !== undefined && text === undefined) {
        text = written;
        leaf = way.leaf;
      }
    }
    const value = text as string;
    switch (place.kind) {
      case PROPERTY:
        (slots as unknown[])[place.slot] = (leaf as Leaf)(value);
        break;
      case ID:
        values.id = value.trim();
        break;
      case EDIT_LINK:
        values.editLink = value;
        break;
      case NAVIGATION_LINK:
        values.navigation[place.navigation as string] = { href: value };
        break;
    }
  }
  return values;
}
