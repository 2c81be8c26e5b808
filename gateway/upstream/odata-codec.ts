// The two wire formats an upstream can be spoken to in (verbose JSON or Atom, chosen by the
// upstream profile), behind one interface: what the REST face reads from responses and writes
// into request bodies, in Edm values. Both are built on the odata/ readers and writers.
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { EntitySet, FunctionImport } from '../../odata/model.js';

/** An entity as read from the upstream: its values, its ETag, what was expanded inline. */
export interface UpstreamEntry {
  readonly record: EdmRecord;
  readonly etag?: string;
  readonly expanded: Readonly<Record<string, UpstreamEntry | null | readonly UpstreamEntry[]>>;
}

export interface UpstreamFeed {
  readonly entries: readonly UpstreamEntry[];
  /** `$inlinecount=allpages`. */
  readonly count?: number;
  /** The upstream's next link, as written. */
  readonly next?: string;
}

/** The result of a function import that returns no entities: complex or primitive values. */
export type FunctionValue = EdmValue | EdmRecord | readonly (EdmValue | EdmRecord)[];

export interface ODataCodec {
  /** Accept header of every request. */
  readonly accept: string;
  /** Content-Type of entity bodies. */
  readonly contentType: string;
  feed(set: EntitySet, body: Buffer): UpstreamFeed;
  entry(set: EntitySet, body: Buffer): UpstreamEntry;
  /** A complex or primitive result (or a collection of them) of `fn`. */
  functionValue(fn: FunctionImport, body: Buffer): FunctionValue;
  /** The body of a create or an update: the given properties of an entity of `set`. */
  entityBody(set: EntitySet, record: EdmRecord): string;
}
