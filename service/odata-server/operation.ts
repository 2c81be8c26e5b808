// One request being served: who asks, what they address, and the server's parts; plus the
// helpers every handler uses to turn a resource path into entity queries.
import type { EdmRecord } from '../../odata/edm.js';
import { ResourceNotFoundError } from '../../odata/errors.js';
import { formatKeyPredicate } from '../../odata/key-predicate.js';
import type { KeyValues } from '../../odata/key-predicate.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntitySet, EntityType } from '../../odata/model.js';
import type { OrderByItem } from '../../odata/orderby.js';
import type { EntitySegment } from '../../odata/resource-path.js';
import type { WallClockZone } from '../../odata/wall-clock.js';
import type { DataSource, EntitySelection, MemberOf } from './data-source.js';
import type { ValidationMessages } from './messages.js';
import type { PayloadRules } from './payload-rules.js';
import type { Preconditions } from './preconditions.js';
import { constraintsFrom, relationOf } from './relations.js';
import type { Representation, Representations } from './representations.js';
import type { EntityBodyReader } from './request-body.js';
import type { RequestTarget } from './request-target.js';

export interface ServerParts<Caller> {
  readonly index: ModelIndex;
  readonly dataSource: DataSource<Caller>;
  readonly representations: Representations;
  readonly payloadRules: PayloadRules;
  readonly bodyReader: EntityBodyReader;
  readonly messages: ValidationMessages;
  /** Most entities per page of a collection (server-driven paging). */
  readonly pageSize: number;
  /** Most entities one request may expand inline, over all its `$expand` paths. */
  readonly maxExpandedEntities: number;
  /** Updates and deletes of entities with an ETag must carry If-Match (else 428). */
  readonly requireIfMatch: boolean;
  /** Path below the root of an entity of a set (`Projects(7)`), compiled once per set. */
  entityPath(set: EntitySet, record: EdmRecord): string;
}

export interface Operation<Caller> {
  readonly parts: ServerParts<Caller>;
  readonly caller: Caller;
  readonly target: RequestTarget;
  readonly preconditions: Preconditions;
  /** The caller's wall clock, on which Edm.DateTime values are on the wire (wall-clock-edge.ts). */
  readonly wallClock?: WallClockZone | undefined;
}

export interface HandlerResult {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly representation?: Representation;
}

const keyOrders = new WeakMap<EntityType, readonly OrderByItem[]>();

/** The key properties in ascending order: the default order, and the tie-breaker of every other. */
export function keyOrder(index: ModelIndex, type: EntityType): readonly OrderByItem[] {
  let order = keyOrders.get(type);
  if (order === undefined) {
    order = type.key.map((name) => ({ path: [name], type: index.property(type, name)?.type ?? 'Edm.String', direction: 'asc' as const }));
    keyOrders.set(type, order);
  }
  return order;
}

/** `$orderby` made total by the key properties it does not sort by already. */
export function totalOrder(index: ModelIndex, type: EntityType, orderBy: readonly OrderByItem[]): readonly OrderByItem[] {
  const keys = keyOrder(index, type);
  if (orderBy.length === 0) return keys;
  const missing = keys.filter((k) => !orderBy.some((item) => item.path.length === 1 && item.path[0] === k.path[0]));
  return [...orderBy, ...missing];
}

export function keyConstraints(type: EntityType, key: KeyValues | undefined): MemberOf[] {
  if (key === undefined) return [];
  return type.key.map((name) => ({ property: name, values: [key[name] ?? null] }));
}

export function keyOf(type: EntityType, record: EdmRecord): KeyValues {
  return Object.fromEntries(type.key.map((name) => [name, record[name] as KeyValues[string]]));
}

/**
 * The entities a chain of path segments addresses (`Projects(7)/TimeEntries`), as one selection
 * of the last segment's set. Every entity on the way must exist and be visible to the caller.
 */
export async function selectionOf<C>(op: Operation<C>, segments: readonly EntitySegment[]): Promise<EntitySelection> {
  const [first, ...rest] = segments;
  if (first === undefined) throw new Error('a resource path addresses at least one entity set');
  let selection: EntitySelection = { set: first.set, type: first.type, constraints: keyConstraints(first.type, first.key) };
  let described = `${first.set.name}${first.key ? formatKeyPredicate(first.type, op.parts.index, first.key) : ''}`;
  for (const segment of rest) {
    const navigation = segment.navigation;
    if (navigation === undefined) throw new Error('only the first segment may lack a navigation property');
    const parent = await fetchEntity(op, selection, described);
    const constraints = constraintsFrom(relationOf(op.parts.index, navigation), parent);
    described += `/${navigation.name}`;
    if (constraints === undefined) throw new ResourceNotFoundError(`${described} leads to no entity`);
    selection = { set: segment.set, type: segment.type, constraints: [...constraints, ...keyConstraints(segment.type, segment.key)] };
    if (segment.key) described += formatKeyPredicate(segment.type, op.parts.index, segment.key);
  }
  return selection;
}

/** The one entity a selection names; 404 when it does not exist or the caller may not see it. */
export async function fetchEntity<C>(op: Operation<C>, selection: EntitySelection, described?: string): Promise<EdmRecord> {
  const page = await op.parts.dataSource.query(op.caller, {
    ...selection,
    orderBy: keyOrder(op.parts.index, selection.type),
    limit: 1,
  });
  const record = page.records[0];
  if (record === undefined) {
    throw new ResourceNotFoundError(`${described ?? op.target.rawPath} does not exist`, described ?? op.target.rawPath);
  }
  return record;
}

/** `$select` items as the writers take them: `Name`, `Client`, `Client/Name`, `*`. */
export function selectPaths(op: Operation<unknown>): readonly string[] | undefined {
  const select = op.target.query.select;
  if (select === undefined) return undefined;
  return select.map((item) => {
    switch (item.kind) {
      case 'all':
        return [...item.navigation, '*'].join('/');
      case 'property':
        return [...item.navigation, item.property.name].join('/');
      case 'navigation':
        return item.navigation.join('/');
    }
  });
}
