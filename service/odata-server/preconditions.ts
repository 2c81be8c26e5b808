// Conditional requests on entities (OData V2 optimistic concurrency): an entity whose set has an
// ETag answers a GET whose If-None-Match names it with 304, and an update or delete whose
// If-Match does not name it with 412 before anything is written. A matching If-Match becomes the
// write's condition, which the data source checks again in the write itself: between this
// comparison and the write another writer may have changed the entity, and then only the data
// source can tell. Without If-Match a write goes ahead (real clients send none) unless the server
// requires it (428).
import type { EdmRecord } from '../../odata/edm.js';
import { concurrencyProperties, conditionMatches, parseEntityTagCondition } from '../../odata/etag.js';
import type { EntitySet } from '../../odata/model.js';
import type { WriteCondition } from './data-source.js';
import { PreconditionFailedError, PreconditionRequiredError } from './errors.js';
import type { Operation } from './operation.js';

/** The conditional headers of a request (or of one request of a `$batch`). */
export interface Preconditions {
  readonly ifMatch?: string;
  readonly ifNoneMatch?: string;
}

/** Whether a read of the entity is answered with 304 (its ETag is one If-None-Match names). */
export function notModified<C>(op: Operation<C>, set: EntitySet, record: EdmRecord): boolean {
  const header = op.preconditions.ifNoneMatch;
  const etag = op.parts.representations.etagOf(set, record);
  return header !== undefined && etag !== undefined && conditionMatches(parseEntityTagCondition(header), etag);
}

/**
 * The condition of a write of `current` (the entity as just read): undefined when there is none
 * to hold; 412 when If-Match names another version, 428 when it is missing but required.
 */
export function writeCondition<C>(op: Operation<C>, set: EntitySet, current: EdmRecord): WriteCondition | undefined {
  const etag = op.parts.representations.etagOf(set, current);
  // A set without concurrency properties has no versions to compare (as V2 servers, If-Match is
  // then not evaluated).
  if (etag === undefined) return undefined;
  const header = op.preconditions.ifMatch;
  if (header === undefined) {
    if (op.parts.requireIfMatch) throw new PreconditionRequiredError();
    return undefined;
  }
  const condition = parseEntityTagCondition(header);
  if (!conditionMatches(condition, etag)) throw new PreconditionFailedError();
  if (condition.any) return undefined;
  const type = op.parts.index.typeOfSet(set);
  return Object.fromEntries(concurrencyProperties(type).map((property) => [property.name, current[property.name] ?? null]));
}
