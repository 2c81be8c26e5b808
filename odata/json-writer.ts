// Verbose JSON (OData V2) writer for entries and feeds, the hot path of every JSON response.
// Per entity set it is compiled once from the model (property names pre-encoded as `,"Name":`,
// one value encoder per property, the type's `__metadata` tail), then each call is plain string
// concatenation. Shapes as Olingo V2 writes them (DataServiceVersion 2.0):
//   feed   {"d":{"__count":"3","results":[entry,...],"__next":"..."}}
//   entry  {"d":{"__metadata":{"uri":"...","type":"NS.Type","etag":"..."},"Prop":value,...,
//               "Nav":{"__deferred":{"uri":".../Nav"}}}}
//   inline to-one entry object (or null), to-many {"results":[entry,...]}
import type { EdmRecord } from './edm.js';
import type { PropertyPart, Selection, TypeParts } from './entry-selection.js';
import { compilePropertiesWriter, select } from './entry-selection.js';
import { jsonString, valueEncoder } from './json-values.js';
import type { ModelIndex } from './model-index.js';
import { perEntitySet } from './model-index.js';
import type { EntitySet } from './model.js';
import { encodeSegment, entityPath } from './entity-path.js';
import type { TextSink } from './utf8-bytes.js';
import { documentEncoder, TextPieces } from './utf8-bytes.js';

/** An expanded (inline) entry: its record, its etag, and its own expansions. */
export interface InlineEntry {
  readonly record: EdmRecord;
  readonly etag?: string;
  readonly expanded?: ExpandedNavigation;
}

/** Expanded navigation properties by name: an entry or null (to-one), entries (to-many). */
export type ExpandedNavigation = Readonly<Record<string, InlineEntry | null | readonly InlineEntry[]>>;

interface CommonOptions {
  /** Absolute service root ending in `/` (`http://host/V1/Api.svc/`). */
  readonly serviceRoot: string;
  /** `$select` paths (`Name`, `Client`, `Client/Name`, `*`); absent = everything. */
  readonly select?: readonly string[];
}

export interface EntryOptions extends CommonOptions {
  readonly etag?: string;
  readonly expanded?: ExpandedNavigation;
}

export interface FeedOptions extends CommonOptions {
  /** `$inlinecount=allpages`: the count, written as `"__count":"n"`. */
  readonly count?: number;
  /** Absolute URL of the next page (with `$skiptoken`). */
  readonly next?: string;
  readonly etag?: (record: EdmRecord) => string | undefined;
  readonly expanded?: (record: EdmRecord, index: number) => ExpandedNavigation | undefined;
}

export interface JsonWriter {
  /** `{"d":{entry}}` */
  entry(record: EdmRecord, options: EntryOptions): string;
  /** `{"d":{"results":[...]}}` with `__count` and `__next` when given. */
  feed(records: readonly EdmRecord[], options: FeedOptions): string;
  /** The same document as UTF-8 bytes, encoded entry by entry (utf8-bytes.ts). */
  feedBytes(records: readonly EdmRecord[], options: FeedOptions): Buffer;
}

interface NavigationPart {
  readonly name: string;
  readonly prefix: string;
  /** `/Name"}}`: closes the deferred uri. */
  readonly deferredTail: string;
  readonly toMany: boolean;
  readonly target: () => CompiledSet;
}

interface CompiledSet extends TypeParts<NavigationPart> {
  readonly keyPath: (record: EdmRecord) => string;
  /** `","type":"NS.Type"` */
  readonly typeTail: string;
}

const compileSet = perEntitySet(compileEntitySet);

function compileEntitySet(index: ModelIndex, set: EntitySet): CompiledSet {
  const type = index.typeOfSet(set);
  const properties: PropertyPart[] = type.properties.map((p) => ({
    name: p.name,
    prefix: `,${jsonString(p.name)}:`,
    write: valueEncoder(index, p.type, p.name),
  }));
  return {
    keyPath: entityPath(index, set),
    typeTail: `","type":${jsonString(type.fullName)}`,
    properties,
    writeAll: compilePropertiesWriter(properties),
    navigations: type.navigationProperties.map((nav) => {
      let target: CompiledSet | undefined;
      return {
        name: nav.name,
        prefix: `,${jsonString(nav.name)}:`,
        deferredTail: `/${jsonString(encodeSegment(nav.name)).slice(1)}}}`,
        toMany: nav.multiplicity === '*',
        // Lazy: navigation graphs have cycles (Project -> TimeEntries -> Project).
        target: () => (target ??= compileSet(index, index.navigationTarget(set, nav))),
      };
    }),
  };
}

function writeEntry(
  c: CompiledSet,
  s: Selection<NavigationPart>,
  root: string,
  record: EdmRecord,
  etag: string | undefined,
  expanded: ExpandedNavigation | undefined,
): string {
  const uri = root + c.keyPath(record);
  let out = `{"__metadata":{"uri":"${uri}${c.typeTail}`;
  if (etag !== undefined) out += `,"etag":${jsonString(etag)}`;
  out += '}';
  out += s.writeProperties(record);
  for (const n of s.navigations) {
    const inline = expanded?.[n.name];
    if (inline === undefined) {
      out += `${n.prefix}{"__deferred":{"uri":"${uri}${n.deferredTail}`;
      continue;
    }
    out += n.prefix;
    if (inline === null) {
      out += 'null';
      continue;
    }
    const target = n.target();
    const nested = select(target, s.below.get(n.name));
    if (isEntryList(inline)) {
      out += '{"results":[';
      for (let i = 0; i < inline.length; i++) {
        const e = inline[i] as InlineEntry;
        out += (i ? ',' : '') + writeEntry(target, nested, root, e.record, e.etag, e.expanded);
      }
      out += ']}';
    } else {
      out += writeEntry(target, nested, root, inline.record, inline.etag, inline.expanded);
    }
  }
  return `${out}}`;
}

function isEntryList(value: InlineEntry | readonly InlineEntry[]): value is readonly InlineEntry[] {
  return Array.isArray(value);
}

/** The JSON-escaped service root, without quotes. */
function rootText(serviceRoot: string): string {
  return jsonString(serviceRoot).slice(1, -1);
}

function writeFeed(sink: TextSink, c: CompiledSet, records: readonly EdmRecord[], options: FeedOptions): void {
  const s = select(c, options.select);
  const root = rootText(options.serviceRoot);
  const { etag, expanded } = options;
  if (options.count !== undefined && !(Number.isSafeInteger(options.count) && options.count >= 0)) {
    throw new RangeError(`inline count ${options.count} is not a non-negative integer`);
  }
  sink.add(options.count === undefined ? '{"d":{"results":[' : `{"d":{"__count":"${options.count}","results":[`);
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as EdmRecord;
    const entry = writeEntry(c, s, root, record, etag?.(record), expanded?.(record, i));
    sink.add(i ? `,${entry}` : entry);
  }
  sink.add(options.next === undefined ? ']}}' : `],"__next":${jsonString(options.next)}}}`);
}

/** A writer for the entries of one entity set, compiled once per model and set. */
export function createJsonWriter(index: ModelIndex, set: EntitySet): JsonWriter {
  const c = compileSet(index, set);
  const encode = documentEncoder();
  return {
    entry(record, options) {
      const s = select(c, options.select);
      return `{"d":${writeEntry(c, s, rootText(options.serviceRoot), record, options.etag, options.expanded)}}`;
    },
    feed(records, options) {
      const pieces = new TextPieces();
      writeFeed(pieces, c, records, options);
      return pieces.text;
    },
    feedBytes(records, options) {
      return encode(records.length, (sink) => writeFeed(sink, c, records, options));
    },
  };
}
