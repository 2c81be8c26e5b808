// Every document the server sends, in the representation the request negotiated: Atom or plain
// XML, verbose JSON, JSONP. Writers are compiled once per entity set (odata/ writers are built
// for that) and reused by every request.
import type { AtomWriter } from '../../odata/atom-writer.js';
import { createAtomWriter } from '../../odata/atom-writer.js';
import { negotiate } from '../../odata/content-negotiation.js';
import { etagWriter } from '../../odata/etag.js';
import type { ResponseKind } from '../../odata/content-negotiation.js';
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import { JSONP_CONTENT_TYPE, writeJsonFunctionResult, writeJsonLink, writeJsonLinks, writeJsonProperty, wrapJsonp } from '../../odata/json-documents.js';
import type { ExpandedNavigation, JsonWriter } from '../../odata/json-writer.js';
import { createJsonWriter } from '../../odata/json-writer.js';
import { writeMetadata } from '../../odata/metadata-writer.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntitySet, FunctionImport, Property } from '../../odata/model.js';
import { isEdmPrimitiveType } from '../../odata/model.js';
import { createServiceDocumentWriter } from '../../odata/service-document.js';
import { writeXmlLink, writeXmlLinks, writeXmlProperty } from '../../odata/xml-documents.js';
import { xmlFormatter } from '../../odata/xml-values.js';
import type { ShowDateTime } from './wall-clock-edge.js';
import { expandedOnWallClock, recordOnWallClock, recordsOnWallClock, valueOnWallClock } from './wall-clock-edge.js';

/** What a request asked for, as far as the representation goes. */
export interface ResponseContext {
  /** Absolute, ending in `/`: the base of every URI in the documents. */
  readonly serviceRoot: string;
  readonly accept: string | undefined;
  /** `$format`. */
  readonly format: string | undefined;
  /** `$callback`: JSONP. A callback without `$format` asks for JSON (script tags send no Accept). */
  readonly callback: string | undefined;
  /** How Edm.DateTime values are written (wall-clock-edge.ts; set once the caller is known). */
  readonly showDateTime?: ShowDateTime | undefined;
  /** The client sent DATE_TIME_OFFSETS_HEADER: instants with their offsets instead of wall-clock digits. */
  readonly dateTimeOffsets?: boolean;
}

export interface Representation {
  readonly contentType: string;
  /** Text, or a feed already encoded as UTF-8 (the writers encode pages entry by entry). */
  readonly body: string | Buffer;
}

export interface EntryShape {
  readonly select?: readonly string[];
  readonly expanded?: ExpandedNavigation;
}

export interface FeedShape {
  readonly select?: readonly string[];
  readonly expanded?: (record: EdmRecord, index: number) => ExpandedNavigation | undefined;
  readonly count?: number;
  readonly next?: string;
}

const isJson = (contentType: string) => contentType.startsWith('application/json');

export class Representations {
  private readonly jsonWriters = new Map<EntitySet, JsonWriter>();
  private readonly atomWriters = new Map<EntitySet, AtomWriter>();
  /** The ETag of entities of each set that has one (its type declares concurrency properties). */
  private readonly etags = new Map<EntitySet, (record: EdmRecord) => string>();
  private readonly serviceDocument: (serviceRoot: string) => string;
  /** `$metadata` by service root (its self link names the root the client used). */
  private readonly metadataDocuments = new Map<string, string>();

  constructor(private readonly index: ModelIndex) {
    for (const set of index.model.entitySets) {
      this.jsonWriters.set(set, createJsonWriter(index, set));
      this.atomWriters.set(set, createAtomWriter(index, set));
      const etag = etagWriter(index.typeOfSet(set));
      if (etag !== undefined) this.etags.set(set, etag);
    }
    this.serviceDocument = createServiceDocumentWriter(index.model);
  }

  /** The Content-Type for a document of `kind`; 406 when nothing the client accepts fits. */
  contentType(ctx: ResponseContext, kind: ResponseKind): string {
    const format = ctx.format ?? (ctx.callback === undefined ? undefined : 'json');
    return negotiate({ accept: ctx.accept, format, kind });
  }

  /** The entity's ETag (`W/"3"`), or undefined when its set has none. */
  etagOf(set: EntitySet, record: EdmRecord): string | undefined {
    return this.etags.get(set)?.(record);
  }

  entry(ctx: ResponseContext, set: EntitySet, stored: EdmRecord, shape: EntryShape = {}): Representation {
    const contentType = this.contentType(ctx, 'entry');
    const record = recordOnWallClock(stored, ctx.showDateTime);
    const options = { serviceRoot: ctx.serviceRoot, select: shape.select, expanded: expandedOnWallClock(shape.expanded, ctx.showDateTime), etag: this.etagOf(set, stored) };
    return isJson(contentType)
      ? this.json(ctx, contentType, this.writerOf(this.jsonWriters, set).entry(record, options))
      : { contentType, body: this.writerOf(this.atomWriters, set).entry(record, options) };
  }

  feed(ctx: ResponseContext, set: EntitySet, stored: readonly EdmRecord[], shape: FeedShape = {}): Representation {
    const contentType = this.contentType(ctx, 'feed');
    const show = ctx.showDateTime;
    const records = recordsOnWallClock(stored, show);
    const expanded = shape.expanded;
    const options = {
      serviceRoot: ctx.serviceRoot,
      ...shape,
      etag: this.etags.get(set),
      ...(expanded === undefined || show === undefined
        ? {}
        : { expanded: (record: EdmRecord, i: number) => expandedOnWallClock(expanded(record, i), show) }),
    };
    if (!isJson(contentType)) return { contentType, body: this.writerOf(this.atomWriters, set).feedBytes(records, options) };
    const writer = this.writerOf(this.jsonWriters, set);
    // JSONP wraps the text; a plain JSON page goes out as the bytes the writer encoded.
    return ctx.callback === undefined
      ? { contentType, body: writer.feedBytes(records, options) }
      : this.json(ctx, contentType, writer.feed(records, options));
  }

  property(ctx: ResponseContext, property: Property, stored: EdmValue | EdmRecord): Representation {
    const contentType = this.contentType(ctx, 'property');
    const value = valueOnWallClock(stored, ctx.showDateTime);
    return isJson(contentType)
      ? this.json(ctx, contentType, writeJsonProperty(this.index, property, value))
      : { contentType, body: writeXmlProperty(this.index, property, value) };
  }

  /** `$value` of a primitive property: its text, as in XML but unescaped. */
  value(ctx: ResponseContext, property: Property, stored: EdmValue): Representation {
    const value = valueOnWallClock(stored, ctx.showDateTime) as EdmValue;
    const binary = property.type === 'Edm.Binary';
    const contentType = negotiate({ accept: ctx.accept, kind: 'value', binary });
    if (!isEdmPrimitiveType(property.type)) throw new TypeError(`$value of complex property ${property.name}`);
    const body = typeof value === 'string' ? value : xmlFormatter(property.type, property.name, property.precision)(value);
    return { contentType, body };
  }

  count(ctx: ResponseContext, count: number): Representation {
    return { contentType: negotiate({ accept: ctx.accept, kind: 'count' }), body: String(count) };
  }

  links(ctx: ResponseContext, uris: readonly string[], count?: number, next?: string): Representation {
    const contentType = this.contentType(ctx, 'links');
    return isJson(contentType)
      ? this.json(ctx, contentType, writeJsonLinks(uris, count, next))
      : { contentType, body: writeXmlLinks(uris, count, next) };
  }

  link(ctx: ResponseContext, uri: string): Representation {
    const contentType = this.contentType(ctx, 'links');
    return isJson(contentType) ? this.json(ctx, contentType, writeJsonLink(uri)) : { contentType, body: writeXmlLink(uri) };
  }

  /** A function import's complex or primitive result (entity results are entries and feeds). */
  functionResult(ctx: ResponseContext, fn: FunctionImport, stored: EdmValue | EdmRecord): Representation {
    const contentType = this.contentType(ctx, 'property');
    const value = valueOnWallClock(stored, ctx.showDateTime);
    if (isJson(contentType)) return this.json(ctx, contentType, writeJsonFunctionResult(this.index, fn, value));
    const type = fn.returnType ?? 'Edm.String';
    return { contentType, body: writeXmlProperty(this.index, { name: fn.name, type, precision: undefined }, value) };
  }

  serviceDocumentOf(ctx: ResponseContext): Representation {
    const contentType = this.contentType(ctx, 'serviceDocument');
    if (!isJson(contentType)) return { contentType, body: this.serviceDocument(ctx.serviceRoot) };
    const sets = this.index.model.entitySets.map((set) => JSON.stringify(set.name)).join(',');
    return this.json(ctx, contentType, `{"d":{"EntitySets":[${sets}]}}`);
  }

  metadata(ctx: ResponseContext): Representation {
    const contentType = this.contentType(ctx, 'metadata');
    let body = this.metadataDocuments.get(ctx.serviceRoot);
    if (body === undefined) {
      // A handful of roots in practice (host names, http/https); a flood of Host headers only
      // ever costs one document per request.
      if (this.metadataDocuments.size >= 16) this.metadataDocuments.clear();
      body = writeMetadata(this.index.model, { selfUrl: `${ctx.serviceRoot}$metadata` });
      this.metadataDocuments.set(ctx.serviceRoot, body);
    }
    return { contentType, body };
  }

  private json(ctx: ResponseContext, contentType: string, body: string): Representation {
    if (ctx.callback === undefined) return { contentType, body };
    return { contentType: JSONP_CONTENT_TYPE, body: wrapJsonp(ctx.callback, body) };
  }

  private writerOf<W>(writers: Map<EntitySet, W>, set: EntitySet): W {
    const writer = writers.get(set);
    if (writer === undefined) throw new Error(`entity set ${set.name} is not in the served model`);
    return writer;
  }
}
