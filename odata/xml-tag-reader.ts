// Reads an XML document tag by tag, in place, for readers that know the shape they expect and
// want no tree of it (the Atom feed scanner): every check the parser (xml-parser.ts) makes on
// what it reads, but only for documents whose namespaces are declared on the root, whose names
// are ASCII, and that hold no comments, CDATA or processing instructions after the XML
// declaration. Anything else, or anything wrong, declines: the reader then leaves the document
// to parseXml, which gives the answer or the error it always gave.
//
// Its text comes unchecked (xml-source.ts), so the characters XML forbids are caught where they
// are read: names are read as ASCII name characters, white space as white space, text and
// attribute values through characterData and attributeValue, and what is compared with a name,
// a start tag or a leaf read before was checked then.
//
// Feeds repeat themselves entry by entry, and the reader profits from that: the name of a start
// tag is first looked for where the successor of the last tag would be, a start tag that goes on
// exactly as the last one of its name did is read as that one was, and in a run of elements
// without child elements (an entry's properties), one written as one was before (the end tag
// before it, white space and its start tag the same, its text anything) is read in one
// comparison and one search (leafAs). It also tells where it read what (textFrom, attributeSpan,
// here) for the scanner's entry templates, and reads a whole element by one (elementAs).
//
// One class of over 400 lines: every method moves the one cursor, whose invariants (the piece,
// the open leaf, the depth) would otherwise be kept in two files.
import { NS_XML } from './namespaces.js';
import type { XmlAttribute, XmlElement } from './xml-parser.js';
import { attributeValue, characterData, isSpace } from './xml-parser.js';
import { hasForbiddenChar } from './xml-source.js';
import type { KnownName, LeafShape } from './xml-tag-parts.js';
import { NO_ATTRIBUTES, decline, endsName, holdsAt, isNameChar, isNameStart, knownName } from './xml-tag-parts.js';
import { TextTable, hashStep } from './xml-text-table.js';

/** Deeper than any feed we read fast, and well inside the parser's default limit of 100. */
const MAX_DEPTH = 32;
const NO_CHILDREN = Object.freeze([]) as unknown as XmlElement[];

/** More distinct names than any feed we know holds; past it, names are resolved every time. */
const TABLE_CAPACITY = 512;

export class XmlTagReader {
  /** The piece being read (xml-source.ts): every piece after the first begins with a `<`. */
  private xml: string;
  private piece = 0;
  private pos = 0;
  /** Open elements, the root included. */
  private depth = 0;
  /** The prefixes the root declares ('' for the default namespace), and all of them as one key. */
  private readonly bindings = new Map<string, string>();
  namespaces = '';
  private readonly elementNames = new TextTable<KnownName>(TABLE_CAPACITY);
  private readonly attributeNames = new TextTable<KnownName>(TABLE_CAPACITY);
  // The last start tag: its name, its attributes, whether it closed itself.
  tag: KnownName = knownName('', '', '');
  attributes: readonly XmlAttribute[] = NO_ATTRIBUTES;
  selfClosing = false;
  /** Character data before the tag that nextTag() stopped at, decoded. */
  lastText = '';
  /** Where the last name or attribute value read ends, and where that value began. */
  private cursor = 0;
  private valueFrom = 0;
  /** Where the last start tag ended (leafShape(), templates). */
  lastTagEnd = 0;
  /** Where the text nextTag() or leafAs() read last begins and ends; -1: it ran across pieces. */
  textFrom = 0;
  textTo = 0;
  /** Where the attributes of the last start tag begin, and their values' spans from there. */
  private tailFrom = 0;
  private tagSpans: readonly number[] | undefined;
  /** In a run of leaves: the one whose text was read last, its end tag not yet (see leafAs). */
  private openLeaf: KnownName | undefined;
  /** Where the last nextInRun() began, and the leaf open then. */
  private markedPiece = -1;
  private marked = 0;
  private markedLeaf: KnownName | undefined;

  constructor(private readonly pieces: readonly string[]) {
    this.xml = pieces[0] ?? '';
  }

  /** The element of the last start tag and everything inside it, as parseXml makes them. */
  element(): XmlElement {
    const element: XmlElement = { ns: this.tag.ns, local: this.tag.local, attributes: this.attributes, children: NO_CHILDREN, text: '' };
    if (this.selfClosing) return element;
    const name = this.tag.raw;
    for (;;) {
      const more = this.nextTag();
      element.text += this.lastText; // all character data directly inside, as the parser keeps it
      if (!more) break;
      const child = this.element();
      if (element.children === NO_CHILDREN) (element as { children: XmlElement[] }).children = [child];
      else element.children.push(child);
    }
    this.endTag(name);
    return element;
  }

  /**
   * Reads character data up to the next tag. A start tag is read (true); at an end tag, the
   * position stays on it (false). Comments, CDATA and processing instructions decline.
   */
  nextTag(): boolean {
    const xml = this.xml;
    const lt = xml.indexOf('<', this.pos);
    if (lt === -1) return this.nextPieceTag();
    this.lastText = lt === this.pos ? '' : characterData(xml.slice(this.pos, lt), this.pos);
    this.textFrom = this.pos;
    this.textTo = lt;
    this.pos = lt;
    const c = xml.charCodeAt(lt + 1);
    if (c === 47 /* / */) return false;
    if (this.depth >= MAX_DEPTH) decline();
    this.startTag();
    return true;
  }

  /** nextTag() where the character data runs to the end of the piece: the next begins with a tag. */
  private nextPieceTag(): boolean {
    const text = this.xml.slice(this.pos);
    this.turnPiece();
    const more = this.nextTag();
    this.lastText = text === '' ? '' : characterData(text, 0);
    this.textFrom = this.textTo = -1;
    return more;
  }

  private turnPiece(): void {
    this.xml = this.pieces[++this.piece] ?? decline();
    this.pos = 0;
  }

  /** `</name>` of the element whose start tag was written `name`, white space before `>`. */
  endTag(name: string): void {
    const xml = this.xml;
    if (xml.charCodeAt(this.pos) !== 60 || xml.charCodeAt(this.pos + 1) !== 47 || !holdsAt(xml, name, this.pos + 2)) decline();
    let i = this.pos + 2 + name.length;
    while (isSpace(xml.charCodeAt(i))) i++;
    if (xml.charCodeAt(i) !== 62) decline();
    this.pos = i + 1;
    this.depth--;
  }

  /** Skips the element of the last start tag, checking it as the parser would. */
  skipElement(): void {
    if (this.selfClosing) return;
    const name = this.tag.raw;
    while (this.nextTag()) this.skipElement();
    this.endTag(name);
  }

  /** The character data of the last start tag's element, which must hold no elements. */
  textElement(): string {
    if (this.selfClosing) return '';
    const name = this.tag.raw;
    if (this.nextTag()) decline();
    const text = this.lastText;
    this.endTag(name);
    return text;
  }

  /**
   * nextTag() in a run of leaves: the end tag of the leaf read last first, if it is still to be
   * read, and where the reader stood before it remembered for leafShape().
   */
  nextInRun(): boolean {
    this.marked = this.pos;
    this.markedPiece = this.piece;
    const leaf = (this.markedLeaf = this.openLeaf);
    if (leaf !== undefined) {
      this.openLeaf = undefined;
      this.endTag(leaf.raw);
    }
    return this.nextTag();
  }

  /**
   * The text of the element of the last start tag, which must hold no elements, in a run of
   * leaves: its end tag is left for the next nextInRun() or leafAs() to read.
   */
  leafText(): string {
    if (!this.skipAsLeaf()) decline();
    return this.selfClosing ? '' : this.lastText;
  }

  /**
   * Skips the element of the last start tag, as skipElement(); one without child elements is
   * read as leafText() reads it (true).
   */
  skipAsLeaf(): boolean {
    if (this.selfClosing) return true;
    const name = this.tag.raw;
    if (!this.nextTag()) {
      this.openLeaf = this.tag;
      return true;
    }
    do this.skipElement();
    while (this.nextTag());
    this.endTag(name);
    return false;
  }

  /**
   * How the leaf just read by leafText() or skipAsLeaf() was written, from where nextInRun()
   * began; undefined when a piece ended in between.
   */
  leafShape(): LeafShape | undefined {
    if (this.markedPiece !== this.piece) return undefined;
    return {
      open: this.xml.slice(this.marked, this.lastTagEnd),
      closes: this.markedLeaf,
      tag: this.tag,
      attributes: this.attributes,
      selfClosing: this.selfClosing,
    };
  }

  /**
   * In a run of leaves, the text of the next when it is written as `shape` was, its text aside:
   * nextInRun() and leafText() in one comparison and one search. Undefined, and nothing read,
   * when it is not.
   */
  leafAs(shape: LeafShape): string | undefined {
    const xml = this.xml;
    const open = shape.open;
    const at = this.pos;
    if (shape.closes !== this.openLeaf || !holdsAt(xml, open, at)) return undefined;
    const from = at + open.length;
    let text = '';
    let depth = this.depth - (shape.closes === undefined ? 0 : 1);
    if (depth >= MAX_DEPTH) return undefined;
    this.lastTagEnd = from;
    if (shape.selfClosing) {
      this.pos = from;
      this.openLeaf = undefined;
    } else {
      const lt = xml.indexOf('<', from);
      if (lt === -1) return undefined;
      if (lt !== from) text = characterData(xml.slice(from, lt), from);
      this.textFrom = from;
      this.textTo = lt;
      this.pos = lt;
      this.openLeaf = shape.tag;
      depth++;
    }
    this.depth = depth;
    this.tag = shape.tag;
    this.attributes = shape.attributes;
    this.tagSpans = undefined;
    this.selfClosing = shape.selfClosing;
    return text;
  }

  attribute(ns: string, local: string): string | undefined {
    for (const a of this.attributes) if (a.local === local && a.ns === ns) return a.value;
    return undefined;
  }

  /**
   * Where the value of attribute `local` (no namespace) of the last start tag begins and ends in
   * the piece; undefined for none, or for a tag leafAs() read, which keeps no places.
   */
  attributeSpan(local: string): readonly [number, number] | undefined {
    const spans = this.tagSpans;
    const k = this.attributes.findIndex((a) => a.local === local && a.ns === '');
    if (spans === undefined || k < 0) return undefined;
    return [this.tailFrom + (spans[2 * k] as number), this.tailFrom + (spans[2 * k + 1] as number)];
  }

  /** Where the reader stands: the piece (its index and text), the place in it. */
  here(): { readonly piece: number; readonly xml: string; readonly pos: number } {
    return { piece: this.piece, xml: this.xml, pos: this.pos };
  }

  /**
   * The rest of the last start tag's element (content and end tag), read when the sticky
   * `pattern` matches it here: null, and nothing read, when not. The pattern must match only what
   * the reader would read as written (atom-entry-template.ts).
   */
  elementAs(pattern: RegExp): RegExpExecArray | null {
    if (this.selfClosing || this.openLeaf !== undefined) return null;
    pattern.lastIndex = this.pos;
    const match = pattern.exec(this.xml);
    if (match === null) return null;
    this.pos = pattern.lastIndex;
    this.depth--;
    return match;
  }

  /** Checks the name at `i` (ASCII, at most one colon); returns its hash, sets the cursor. */
  private nameAt(i: number): number {
    const xml = this.xml;
    let c = xml.charCodeAt(i);
    if (!isNameStart(c)) decline();
    let hash = c;
    let end = i + 1;
    for (let colon = false; ; end++) {
      c = xml.charCodeAt(end);
      if (!isNameChar(c)) {
        if (c !== 58 /* : */ || colon || !isNameStart(xml.charCodeAt(end + 1))) break;
        colon = true;
      }
      hash = hashStep(hash, c);
    }
    this.cursor = end;
    return hash;
  }

  /** The name at `i`, from `table` or resolved now; sets the cursor. */
  private name(i: number, table: TextTable<KnownName>, element: boolean): KnownName {
    const hash = this.nameAt(i);
    const known = table.find(this.xml, i, this.cursor, hash);
    if (known !== undefined) return known;
    const name = this.resolve(this.xml.slice(i, this.cursor), element);
    table.add(name.raw, hash, name);
    return name;
  }

  private resolve(raw: string, element: boolean): KnownName {
    const colon = raw.indexOf(':');
    const prefix = colon === -1 ? '' : raw.slice(0, colon);
    if (prefix === 'xmlns' || raw === 'xmlns') decline(); // declarations belong on the feed
    let ns: string | undefined;
    if (prefix === 'xml') ns = NS_XML;
    else if (prefix !== '' || element) ns = this.bindings.get(prefix) ?? (prefix === '' ? '' : undefined);
    else ns = '';
    if (ns === undefined) decline();
    return knownName(raw, ns, colon === -1 ? raw : raw.slice(colon + 1));
  }

  /**
   * Where the start tag ends if it ends at `i` (after white space): past its `>` or `/>`, with
   * `selfClosing` set; -1 where an attribute follows, which white space must precede.
   */
  private tagEnd(i: number): number {
    const xml = this.xml;
    const before = i;
    while (isSpace(xml.charCodeAt(i))) i++;
    const c = xml.charCodeAt(i);
    if (c === 62 /* > */ || c === 47 /* / */) {
      if (c === 47 && xml.charCodeAt(i + 1) !== 62) decline();
      this.selfClosing = c === 47;
      return c === 47 ? i + 2 : i + 1;
    }
    if (i === before) decline();
    this.cursor = i;
    return -1;
  }

  /** The value of the attribute whose name ends at `i` (`= "value"`), decoded; sets the cursor. */
  private value(i: number): string {
    const xml = this.xml;
    while (isSpace(xml.charCodeAt(i))) i++;
    if (xml.charCodeAt(i) !== 61 /* = */) decline();
    i++;
    while (isSpace(xml.charCodeAt(i))) i++;
    const quote = xml.charCodeAt(i);
    if (quote !== 34 && quote !== 39) decline();
    const end = xml.indexOf(quote === 34 ? '"' : "'", i + 1);
    if (end === -1) decline();
    this.valueFrom = i + 1;
    this.cursor = end + 1;
    return attributeValue(xml.slice(i + 1, end), i + 1);
  }

  /**
   * A start tag inside the feed, whose attributes declare no namespaces. The name is first
   * looked for where the last tag's successor would be, and a tag that goes on exactly as the
   * last one of its name did is read as that one was: one comparison each on a feed's entries.
   */
  private startTag(): void {
    const xml = this.xml;
    const at = this.pos + 1;
    const previous = this.tag;
    const guess = previous.successor;
    let tag: KnownName;
    if (guess !== undefined && holdsAt(xml, guess.raw, at) && endsName(xml.charCodeAt(at + guess.raw.length))) {
      tag = guess;
      this.cursor = at + guess.raw.length;
    } else {
      tag = this.name(at, this.elementNames, true);
      previous.successor = tag;
    }
    this.tag = tag;
    const i = this.cursor;
    this.tailFrom = i;
    if (tag.tail !== '' && holdsAt(xml, tag.tail, i)) {
      this.attributes = tag.tailAttributes;
      this.selfClosing = tag.tailSelfClosing;
      this.pos = i + tag.tail.length;
    } else this.readAttributes(tag, i);
    this.tagSpans = tag.tailSpans;
    this.lastTagEnd = this.pos;
    if (!this.selfClosing) this.depth++;
  }

  /** The attributes of `tag`'s start tag from `i` on, kept as the tag's tail for the next one. */
  private readAttributes(tag: KnownName, start: number): void {
    let attributes = NO_ATTRIBUTES as XmlAttribute[];
    const spans: number[] = [];
    let i = start;
    let end: number;
    while ((end = this.tagEnd(i)) === -1) {
      const name = this.name(this.cursor, this.attributeNames, false);
      const value = this.value(this.cursor);
      for (const other of attributes) if (other.local === name.local && other.ns === name.ns) decline();
      if (attributes === NO_ATTRIBUTES) attributes = [];
      attributes.push({ ns: name.ns, local: name.local, value });
      // The value ends before its closing quote, where value() left the cursor.
      spans.push(this.valueFrom - start, this.cursor - 1 - start);
      i = this.cursor;
    }
    this.attributes = attributes;
    tag.tail = this.xml.slice(start, end);
    tag.tailSpans = spans;
    tag.tailAttributes = attributes;
    tag.tailSelfClosing = this.selfClosing;
    this.pos = end;
  }

  /**
   * The feed's start tag, where the namespaces are declared: its names are resolved once every
   * declaration is known, so they do not go through the tables.
   */
  rootTag(): void {
    const xml = this.xml;
    if (xml.charCodeAt(this.pos) !== 60) decline();
    const nameStart = this.pos + 1;
    this.nameAt(nameStart);
    let i = this.cursor;
    const rawName = xml.slice(nameStart, i);
    const attributes: [string, string][] = [];
    let end: number;
    while ((end = this.tagEnd(i)) === -1) {
      const start = this.cursor;
      this.nameAt(start);
      const attributeName = xml.slice(start, this.cursor);
      attributes.push([attributeName, this.value(this.cursor)]);
      i = this.cursor;
    }
    const declarations = attributes.filter(([name]) => name === 'xmlns' || name.startsWith('xmlns:'));
    this.declare(declarations.map(([name, uri]) => [name === 'xmlns' ? '' : name.slice(6), uri]));
    const list: XmlAttribute[] = [];
    for (const [raw, value] of attributes) {
      if (declarations.some(([name]) => name === raw)) continue;
      const name = this.resolve(raw, false);
      if (list.some((other) => other.local === name.local && other.ns === name.ns)) decline();
      list.push({ ns: name.ns, local: name.local, value });
    }
    this.attributes = list;
    this.tag = this.resolve(rawName, true);
    this.pos = end;
    this.depth = this.selfClosing ? 0 : 1;
  }

  private declare(declarations: readonly [string, string][]): void {
    for (const [prefix, uri] of declarations) {
      if (prefix === 'xml' || prefix === 'xmlns' || (prefix !== '' && uri === '') || this.bindings.has(prefix)) decline();
      this.bindings.set(prefix, uri);
    }
    this.namespaces = JSON.stringify([...this.bindings]);
  }

  /** The XML declaration and white space before the root. */
  prolog(): void {
    const xml = this.xml;
    if (xml.startsWith('<?xml')) {
      const end = xml.indexOf('?>', 5);
      if (end === -1 || hasForbiddenChar(xml.slice(0, end))) decline();
      this.pos = end + 2;
    }
    while (isSpace(xml.charCodeAt(this.pos))) this.pos++;
    if (this.pos === xml.length) this.turnPiece(); // the root begins the next piece
  }

  /** Nothing but white space after the root (a piece after this one would begin with a `<`). */
  epilog(): void {
    if (this.piece !== this.pieces.length - 1) decline();
    const xml = this.xml;
    for (let i = this.pos; i < xml.length; i++) if (!isSpace(xml.charCodeAt(i))) decline();
  }
}
