// GET on entities: collections (with server-driven paging, `$count`, `$inlinecount`), single
// entities, single properties and their `$value`, and `$links`.
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import { ResourceNotFoundError, UriSyntaxError } from '../../odata/errors.js';
import type { ResourcePath } from '../../odata/resource-path.js';
import type { EntitySelection } from './data-source.js';
import { NotImplementedError } from './errors.js';
import { expandRecords } from './expand.js';
import type { HandlerResult, Operation } from './operation.js';
import { fetchEntity, keyConstraints, selectPaths, selectionOf, totalOrder } from './operation.js';
import { notModified } from './preconditions.js';
import { constraintsFrom, relationOf } from './relations.js';
import { nextPageQuery } from './request-target.js';
import { decodeSkipToken, encodeSkipToken } from './skiptoken.js';

type PathOf<K extends ResourcePath['kind']> = Extract<ResourcePath, { kind: K }>;

interface Page {
  readonly records: readonly EdmRecord[];
  readonly count?: number;
  readonly next?: string;
}

/** One page of a selection, as the request's paging options and the server's page size allow. */
async function readPage<C>(op: Operation<C>, selection: EntitySelection): Promise<Page> {
  const { parts, caller, target } = op;
  const { query } = target;
  const orderBy = totalOrder(parts.index, selection.type, query.orderBy);
  const from = query.skipToken === undefined ? undefined : decodeSkipToken(query.skipToken, orderBy);
  const limit = query.top === undefined ? parts.pageSize : Math.min(query.top, parts.pageSize);
  const [page, count] = await Promise.all([
    parts.dataSource.query(caller, { ...selection, orderBy, from, skip: query.skip, limit }),
    query.inlineCount === 'allpages' ? parts.dataSource.count(caller, selection) : undefined,
  ]);
  const more = page.next !== undefined && (query.top === undefined || query.top > limit);
  const next = more
    ? `${target.response.serviceRoot}${target.rawPath}?${nextPageQuery(target.rawQuery, encodeSkipToken(page.next as EdmValue[], orderBy), query.top === undefined ? undefined : query.top - limit)}`
    : undefined;
  return { records: page.records, ...(count === undefined ? {} : { count }), ...(next === undefined ? {} : { next }) };
}

export async function readCollection<C>(op: Operation<C>, path: PathOf<'collection'>): Promise<HandlerResult> {
  const { parts, caller, target } = op;
  const selection = { ...(await selectionOf(op, path.segments)), filter: target.query.filter };
  if (path.count) {
    return { status: 200, representation: parts.representations.count(target.response, await parts.dataSource.count(caller, selection)) };
  }
  const page = await readPage(op, selection);
  const expanded = target.query.expand.length > 0 ? await expandRecords(op, page.records, target.query.expand) : undefined;
  const representation = parts.representations.feed(target.response, path.set, page.records, {
    select: selectPaths(op),
    expanded: expanded && ((_record, i) => expanded[i]),
    count: page.count,
    next: page.next,
  });
  return { status: 200, representation };
}

export async function readEntity<C>(op: Operation<C>, path: PathOf<'entity'>): Promise<HandlerResult> {
  if (path.mediaValue) throw new NotImplementedError('media resources are not served');
  const { parts, target } = op;
  const record = await fetchEntity(op, { ...(await selectionOf(op, path.segments)), filter: target.query.filter });
  const etag = parts.representations.etagOf(path.set, record);
  const headers = etag === undefined ? undefined : { etag };
  if (notModified(op, path.set, record)) return { status: 304, headers };
  const expanded = target.query.expand.length > 0 ? (await expandRecords(op, [record], target.query.expand))[0] : undefined;
  const representation = parts.representations.entry(target.response, path.set, record, { select: selectPaths(op), expanded });
  return { status: 200, headers, representation };
}

export async function readProperty<C>(op: Operation<C>, path: PathOf<'property'>): Promise<HandlerResult> {
  const { parts, target } = op;
  let value: EdmValue | EdmRecord = await fetchEntity(op, await selectionOf(op, path.segments));
  for (const property of path.properties) {
    value = value === null || typeof value !== 'object' || value instanceof Date ? null : ((value as EdmRecord)[property.name] ?? null);
  }
  if (!path.value) return { status: 200, representation: parts.representations.property(target.response, path.property, value) };
  // A null has no raw value (OData V2: 404 for $value of null).
  if (value === null) throw new ResourceNotFoundError(`${path.property.name} is null: it has no $value`);
  return { status: 200, representation: parts.representations.value(target.response, path.property, value as EdmValue) };
}

export async function readLinks<C>(op: Operation<C>, path: PathOf<'links'>): Promise<HandlerResult> {
  const { parts, caller, target } = op;
  const navigation = path.link.navigation;
  if (navigation === undefined) throw new UriSyntaxError('$links must name a navigation property', '$links');
  const parent = await fetchEntity(op, await selectionOf(op, path.segments));
  const constraints = constraintsFrom(relationOf(parts.index, navigation), parent);
  const selection: EntitySelection = {
    set: path.link.set,
    type: path.link.type,
    constraints: [...(constraints ?? []), ...keyConstraints(path.link.type, path.link.key)],
    filter: target.query.filter,
  };
  const uriOf = (record: EdmRecord) => `${target.response.serviceRoot}${parts.entityPath(path.link.set, record)}`;
  if (!path.link.isCollection) {
    if (constraints === undefined) throw new ResourceNotFoundError(`${navigation.name} leads to no entity`);
    return { status: 200, representation: parts.representations.link(target.response, uriOf(await fetchEntity(op, selection))) };
  }
  if (path.count) {
    return { status: 200, representation: parts.representations.count(target.response, await parts.dataSource.count(caller, selection)) };
  }
  const page = await readPage(op, selection);
  // Paged like a feed: without the next link a client would take the first page for all links.
  return { status: 200, representation: parts.representations.links(target.response, page.records.map(uriOf), page.count, page.next) };
}
