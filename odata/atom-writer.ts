// Atom (OData V2) writer for entries and feeds, a hot path of every XML response. Per entity set
// it is compiled once from the model (tags, attribute tails, one element writer per property),
// then each call is string concatenation. Shapes and order as Olingo V2's AtomEntryEntityProducer
// and AtomFeedProducer write them:
//
//   <entry xmlns="Atom" xmlns:m=".." xmlns:d=".." xml:base="root" m:etag="..">
//     <id>root + Set(key)</id><title type="text">Set</title><updated>..Z</updated>
//     <category term="NS.Type" scheme=".../scheme"/><link href="Set(key)" rel="edit" title="Type"/>
//     <link href="Set(key)/Nav" rel=".../related/Nav" title="Nav" type="application/atom+xml;type=entry">
//       <m:inline>entry | feed (when expanded)</m:inline></link>
//     <content type="application/xml"><m:properties><d:P m:type="Edm.Int32">7</d:P>..</m:properties></content>
//   </entry>
//   <feed xmlns.. xml:base="root"><id>root + Set</id><title type="text">Set</title><updated/>
//     <author><name/></author><link href="Set" rel="self" title="Set"/><m:count>n</m:count>
//     entries.. <link href="next" rel="next"/></feed>
//
// Namespaces are declared on the document's root element only; entries inside a feed carry no
// xml:base, inline entries and feeds do (as Olingo). Entries have no author: Olingo writes one
// only for a syndication mapping (FC_TargetPath), which our models do not have.
import type { EdmRecord } from './edm.js';
import type { ExpandedNavigation, InlineEntry } from './json-writer.js';
import { encodeSegment, entityPath } from './entity-path.js';
import type { PropertyPart, Selection, TypeParts } from './entry-selection.js';
import { compilePropertiesWriter, select } from './entry-selection.js';
import type { ModelIndex } from './model-index.js';
import { perEntitySet } from './model-index.js';
import type { EntitySet } from './model.js';
import { NS_ATOM, NS_DATA, NS_METADATA, NS_RELATED, NS_SCHEME } from './namespaces.js';
import { SerializationError } from './errors.js';
import { escapeXmlAttribute, escapeXmlText } from './xml-escape.js';
import { formatXmlDateTimeOffset, xmlElementWriter } from './xml-values.js';
import { dateTimeOffset } from './edm.js';
import { flatString } from './flat-string.js';
import type { TextSink } from './utf8-bytes.js';
import { documentEncoder, TextPieces } from './utf8-bytes.js';

export type { ExpandedNavigation, InlineEntry } from './json-writer.js';

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const ROOT_NAMESPACES = `xmlns="${NS_ATOM}" xmlns:m="${NS_METADATA}" xmlns:d="${NS_DATA}"`;

interface CommonOptions {
  /** Absolute service root ending in `/` (`http://host/V1/Api.svc/`): xml:base and ids. */
  readonly serviceRoot: string;
  /** `$select` paths (`Name`, `Client`, `Client/Name`, `*`); absent = everything. */
  readonly select?: readonly string[];
  /** `<updated>` of the document's entries and feeds; default: now (as Olingo). */
  readonly updated?: Date;
}

export interface AtomEntryOptions extends CommonOptions {
  readonly etag?: string;
  readonly expanded?: ExpandedNavigation;
}

export interface AtomFeedOptions extends CommonOptions {
  /** `$inlinecount=allpages`: the count, written as `<m:count>`. */
  readonly count?: number;
  /** The next page's URL (with `$skiptoken`), written last as `<link rel="next">`. */
  readonly next?: string;
  /** href of the feed's self link, relative to the root; default the entity set name. */
  readonly selfLink?: string;
  readonly etag?: (record: EdmRecord) => string | undefined;
  readonly expanded?: (record: EdmRecord, index: number) => ExpandedNavigation | undefined;
}

export interface AtomWriter {
  /** A whole document: XML declaration and `<entry>`. */
  entry(record: EdmRecord, options: AtomEntryOptions): string;
  /** A whole document: XML declaration and `<feed>`. */
  feed(records: readonly EdmRecord[], options: AtomFeedOptions): string;
  /** The same document as UTF-8 bytes, encoded entry by entry (utf8-bytes.ts). */
  feedBytes(records: readonly EdmRecord[], options: AtomFeedOptions): Buffer;
}

interface NavigationPart {
  readonly name: string;
  /** `/Nav` (percent-encoded), appended to the entry's path. */
  readonly segment: string;
  /** `/Nav" rel=".../related/Nav" title="Nav" type="application/atom+xml;type=..."/>`: a deferred link after its entry's path. */
  readonly deferredTail: string;
  /** As deferredTail, but `>`: the link holds m:inline. */
  readonly inlineTail: string;
  readonly toMany: boolean;
  readonly target: () => CompiledSet;
}

interface CompiledSet extends TypeParts<NavigationPart> {
  readonly setName: string;
  readonly keyPath: (record: EdmRecord) => string;
  readonly title: string;
  /** category, written between `<updated>` and the edit link. */
  readonly category: string;
  /** `" rel="edit" title="Type"/>` */
  readonly editTail: string;
  readonly hasStream: boolean;
}

/** Per-call values, escaped once. */
interface Context {
  readonly baseAttribute: string;
  readonly rootText: string;
  readonly updated: string;
  /** Entry pieces of each entity set the call writes, joined once per call. */
  readonly entryPieces: Map<CompiledSet, EntryPieces>;
}

/**
 * What every entry of one set in one call shares, each a flat string: an entry is then a few
 * rope nodes plus its values (fewer nodes make flattening the response for the socket cheaper).
 */
interface EntryPieces {
  /** `><id>root` */
  readonly idStart: string;
  /** `</id><title ..>Set</title><updated>..</updated><category ../><link href="` */
  readonly idEnd: string;
}

function entryPieces(ctx: Context, c: CompiledSet): EntryPieces {
  let pieces = ctx.entryPieces.get(c);
  if (!pieces) {
    pieces = {
      idStart: flatString(`><id>${ctx.rootText}`),
      idEnd: flatString(`</id>${c.title}${ctx.updated}${c.category}<link href="`),
    };
    ctx.entryPieces.set(c, pieces);
  }
  return pieces;
}

const compileSet = perEntitySet(compileEntitySet);

function compileEntitySet(index: ModelIndex, set: EntitySet): CompiledSet {
  const type = index.typeOfSet(set);
  const setName = escapeXmlText(set.name);
  const properties: PropertyPart[] = type.properties.map((p) => ({ name: p.name, prefix: '', write: xmlElementWriter(index, p, 'd:') }));
  return {
    setName,
    keyPath: entityPath(index, set),
    title: flatString(`<title type="text">${setName}</title>`),
    category: flatString(`<category term="${escapeXmlAttribute(type.fullName)}" scheme="${NS_SCHEME}"/>`),
    editTail: flatString(`" rel="edit" title="${escapeXmlAttribute(type.name)}"/>`),
    hasStream: type.hasStream,
    properties,
    writeAll: compilePropertiesWriter(properties),
    navigations: type.navigationProperties.map((nav) => {
      let target: CompiledSet | undefined;
      const toMany = nav.multiplicity === '*';
      const name = escapeXmlAttribute(nav.name);
      const segment = `/${encodeSegment(nav.name)}`;
      const tail = `${segment}" rel="${NS_RELATED}${name}" title="${name}" type="application/atom+xml;type=${toMany ? 'feed' : 'entry'}"`;
      return {
        name: nav.name,
        segment,
        deferredTail: flatString(`${tail}/>`),
        inlineTail: flatString(`${tail}>`),
        toMany,
        // Lazy: navigation graphs have cycles (Project -> TimeEntries -> Project).
        target: () => (target ??= compileSet(index, index.navigationTarget(set, nav))),
      };
    }),
  };
}

function context(options: CommonOptions): Context {
  const updated = formatXmlDateTimeOffset(dateTimeOffset(options.updated ?? new Date(), 0));
  return {
    baseAttribute: flatString(` xml:base="${escapeXmlAttribute(options.serviceRoot)}"`),
    rootText: flatString(escapeXmlText(options.serviceRoot)),
    updated: flatString(`<updated>${updated}</updated>`),
    entryPieces: new Map(),
  };
}

type EntryPlacement = 'root' | 'in-feed' | 'inline';

function writeEntry(
  c: CompiledSet,
  s: Selection<NavigationPart>,
  ctx: Context,
  record: EdmRecord,
  etag: string | undefined,
  expanded: ExpandedNavigation | undefined,
  placement: EntryPlacement,
): string {
  const self = c.keyPath(record);
  const pieces = entryPieces(ctx, c);
  let out =
    placement === 'root'
      ? `<entry ${ROOT_NAMESPACES}${ctx.baseAttribute}`
      : placement === 'inline'
        ? `<entry${ctx.baseAttribute}`
        : '<entry';
  if (etag !== undefined) out += ` m:etag="${escapeXmlAttribute(etag, 'etag')}"`;
  // One += per piece: `out += a + b` would first build a + b, one more node per piece.
  out += pieces.idStart;
  out += self;
  out += pieces.idEnd;
  out += self;
  out += c.editTail;
  if (c.hasStream) out += `<link href="${self}/$value" rel="edit-media" type="application/octet-stream"/>`;
  for (const n of s.navigations) {
    const inline = expanded?.[n.name];
    out += '<link href="';
    out += self;
    if (inline === undefined) {
      out += n.deferredTail;
      continue;
    }
    out += n.inlineTail;
    if (inline === null) {
      out += '<m:inline/></link>';
      continue;
    }
    const target = n.target();
    const nested = select(target, s.below.get(n.name));
    out += '<m:inline>';
    out += isEntryList(inline)
      ? writeFeed(target, nested, ctx, inline, { root: false, selfLink: self + n.segment })
      : writeEntry(target, nested, ctx, inline.record, inline.etag, inline.expanded, 'inline');
    out += '</m:inline></link>';
  }
  // Every property element is non-empty text, so "no properties" is "none selected".
  const { hasProperties } = s;
  if (c.hasStream) {
    out += `<content type="application/octet-stream" src="${self}/$value"/>`;
    if (!hasProperties) return `${out}</entry>`;
    out += '<m:properties>';
  } else {
    if (!hasProperties) return `${out}<content type="application/xml"/></entry>`;
    out += '<content type="application/xml"><m:properties>';
  }
  out += s.writeProperties(record);
  return out + (c.hasStream ? '</m:properties></entry>' : '</m:properties></content></entry>');
}

function isEntryList(value: InlineEntry | readonly InlineEntry[]): value is readonly InlineEntry[] {
  return Array.isArray(value);
}

interface FeedFrame {
  readonly root: boolean;
  readonly selfLink: string;
  readonly count?: number;
  readonly next?: string;
}

function feedHead(c: CompiledSet, ctx: Context, frame: FeedFrame): string {
  let out = frame.root ? `<feed ${ROOT_NAMESPACES}${ctx.baseAttribute}>` : `<feed${ctx.baseAttribute}>`;
  out += `<id>${ctx.rootText}${c.setName}</id>${c.title}${ctx.updated}<author><name/></author>`;
  out += `<link href="${escapeXmlAttribute(frame.selfLink)}" rel="self" title="${c.setName}"/>`;
  if (frame.count !== undefined) {
    if (!(Number.isSafeInteger(frame.count) && frame.count >= 0)) {
      throw new SerializationError(`inline count ${frame.count} is not a non-negative integer`);
    }
    out += `<m:count>${frame.count}</m:count>`;
  }
  return out;
}

function feedTail(frame: FeedFrame): string {
  return frame.next === undefined ? '</feed>' : `<link href="${escapeXmlAttribute(frame.next)}" rel="next"/></feed>`;
}

function writeFeed(
  c: CompiledSet,
  s: Selection<NavigationPart>,
  ctx: Context,
  entries: readonly InlineEntry[],
  frame: FeedFrame,
): string {
  let out = feedHead(c, ctx, frame);
  for (const e of entries) out += writeEntry(c, s, ctx, e.record, e.etag, e.expanded, 'in-feed');
  return out + feedTail(frame);
}

function writeRootFeed(sink: TextSink, c: CompiledSet, records: readonly EdmRecord[], options: AtomFeedOptions): void {
  const s = select(c, options.select);
  const ctx = context(options);
  const { etag, expanded } = options;
  const frame = { root: true, selfLink: options.selfLink ?? c.setName, count: options.count, next: options.next };
  sink.add(XML_DECLARATION + feedHead(c, ctx, frame));
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as EdmRecord;
    sink.add(writeEntry(c, s, ctx, record, etag?.(record), expanded?.(record, i), 'in-feed'));
  }
  sink.add(feedTail(frame));
}

/** A writer for the entries of one entity set, compiled once per model and set. */
export function createAtomWriter(index: ModelIndex, set: EntitySet): AtomWriter {
  const c = compileSet(index, set);
  const encode = documentEncoder();
  return {
    entry(record, options) {
      const s = select(c, options.select);
      return XML_DECLARATION + writeEntry(c, s, context(options), record, options.etag, options.expanded, 'root');
    },
    feed(records, options) {
      const pieces = new TextPieces();
      writeRootFeed(pieces, c, records, options);
      return pieces.text;
    },
    feedBytes(records, options) {
      return encode(records.length, (sink) => writeRootFeed(sink, c, records, options));
    },
  };
}
