// POST (create, also below a parent: `Projects(7)/TimeEntries`), PUT / MERGE / PATCH (update)
// and DELETE on entities. The entity to change is read first, so an entity the caller cannot
// see is a 404 before any write is tried; an update hands it to the data source, which need not
// read it again.
import type { EdmRecord } from '../../odata/edm.js';
import type { ResourcePath } from '../../odata/resource-path.js';
import type { UpdateMode } from './data-source.js';
import { BadRequestError } from './errors.js';
import type { HandlerResult, Operation } from './operation.js';
import { fetchEntity, keyOf, selectionOf } from './operation.js';
import { constraintsFrom, relationOf } from './relations.js';
import { sameValue } from './payload-rules.js';
import { writeCondition } from './preconditions.js';
import { recordAsInstants } from './wall-clock-edge.js';

type PathOf<K extends ResourcePath['kind']> = Extract<ResourcePath, { kind: K }>;

export interface RequestBody {
  readonly contentType: string | undefined;
  /** As received: the entity readers decode it, refusing what is not UTF-8. */
  readonly bytes: Buffer | undefined;
}

export async function createEntity<C>(op: Operation<C>, path: PathOf<'collection'>, body: RequestBody): Promise<HandlerResult> {
  const { parts, caller, target } = op;
  const record = { ...recordAsInstants(parts.index, path.type.properties, parts.bodyReader.read(path.set, body.contentType, body.bytes), op.wallClock) };
  const last = path.segments[path.segments.length - 1];
  if (last?.navigation !== undefined) {
    // Created below a parent: the parent's side of the referential constraint is given by the URI
    // (filled in before the payload rules, so a required foreign key may be left out).
    const parent = await fetchEntity(op, await selectionOf(op, path.segments.slice(0, -1)));
    for (const constraint of constraintsFrom(relationOf(parts.index, last.navigation), parent) ?? []) {
      const implied = constraint.values[0] ?? null;
      const given = record[constraint.property];
      if (given !== undefined && !sameValue(given, implied)) {
        throw new BadRequestError(`${constraint.property} in the payload contradicts the parent entity in the URI`, constraint.property);
      }
      record[constraint.property] = implied;
    }
  }
  const values = parts.payloadRules.forCreate(path.type, record);
  const created = await parts.dataSource.create(caller, path.set, values);
  const location = `${target.response.serviceRoot}${parts.entityPath(path.set, created)}`;
  const etag = parts.representations.etagOf(path.set, created);
  return {
    status: 201,
    headers: etag === undefined ? { location } : { location, etag },
    representation: parts.representations.entry(target.response, path.set, created),
  };
}

export async function updateEntity<C>(op: Operation<C>, path: PathOf<'entity'>, body: RequestBody, mode: UpdateMode): Promise<HandlerResult> {
  const { parts, caller } = op;
  const current = await fetchEntity(op, await selectionOf(op, path.segments));
  const key = keyOf(path.type, current);
  const record: EdmRecord = recordAsInstants(parts.index, path.type.properties, parts.bodyReader.read(path.set, body.contentType, body.bytes), op.wallClock);
  const values = parts.payloadRules.forUpdate(path.type, key, record, mode);
  const condition = writeCondition(op, path.set, current);
  const versions = await parts.dataSource.update(caller, path.set, { key, values, mode, condition, current });
  // The new ETag, as SAP Gateway sends it: OData V2 clients keep it from the 204 for their next
  // write instead of reading the entity again.
  const etag = versions === undefined ? undefined : parts.representations.etagOf(path.set, { ...current, ...versions });
  return etag === undefined ? { status: 204 } : { status: 204, headers: { etag } };
}

export async function deleteEntity<C>(op: Operation<C>, path: PathOf<'entity'>): Promise<HandlerResult> {
  const { parts, caller } = op;
  const current = await fetchEntity(op, await selectionOf(op, path.segments));
  await parts.dataSource.remove(caller, path.set, keyOf(path.type, current), writeCondition(op, path.set, current));
  return { status: 204 };
}
