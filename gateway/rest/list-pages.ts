// One page of a list (an entity set, or a navigation to many): the query checked and translated,
// or the cursor's state; the upstream asked for one more than the page holds, to know whether
// another page follows; the next position taken from the upstream's own paging.
//
// Each REST page is at most one upstream page. When the upstream pages (its `__next`), the
// cursor keeps its `$skiptoken`, so paging stays keyset-based upstream. A page that ends inside
// an upstream page (a `limit` below the upstream's page size) continues with a `$skip` after the
// last token: offsets then grow within the stretch the upstream does not page itself.
import type { FastifyRequest } from 'fastify';
import { DEFAULT_LIST_LIMIT } from '../../codegen/json-schema.js';
import { resolveLimits } from '../../odata/limits.js';
import type { EntitySet } from '../../odata/model.js';
import { InvalidQueryError } from '../errors.js';
import type { FieldError } from '../errors.js';
import type { CallContext } from '../upstream/odata-upstream.js';
import type { CursorState } from './cursor.js';
import { pagingOf } from './cursor.js';
import type { ListQueryTranslator } from './list-query.js';
import type { RestContext } from './rest-context.js';
import type { RestObject } from './rest-values.js';
import { queryOf } from './request-parts.js';
import type { Check } from './validation.js';

export interface ListOperation {
  readonly set: EntitySet;
  readonly check: Check;
  readonly translator: ListQueryTranslator;
}

export interface ListPage {
  readonly items: readonly RestObject[];
  readonly next: string | null;
  readonly total?: number;
}

function pathOf(request: FastifyRequest): string {
  const url = request.url;
  const queryStart = url.indexOf('?');
  return queryStart < 0 ? url : url.slice(0, queryStart);
}

/** The cursor's state, or a first page's state from the list options. */
function stateOf(ctx: RestContext, operation: ListOperation, request: FastifyRequest, list: string): CursorState {
  const query = queryOf(request);
  operation.check(query);
  if (typeof query.cursor === 'string') {
    const others = Object.keys(query).filter((name) => name !== 'cursor');
    if (others.length > 0) {
      const errors: FieldError[] = others.map((name) => ({ pointer: `/${name}`, detail: `'${name}' cannot be combined with 'cursor': the cursor carries the options of its list` }));
      throw new InvalidQueryError((errors[0] as FieldError).detail, errors);
    }
    return ctx.cursors.decode(query.cursor, list);
  }
  return {
    list,
    options: operation.translator.translate(query),
    limit: typeof query.limit === 'number' ? query.limit : DEFAULT_LIST_LIMIT,
    count: query.count === true,
    skip: 0,
  };
}

/**
 * One more than the page holds, to learn whether another follows; but never above the largest
 * `$top` upstreams accept (odata/'s maxTop, which the contract's `limit` maximum equals).
 */
function topOf(ctx: RestContext, state: CursorState): number {
  return Math.min(state.limit + 1, resolveLimits(ctx.limits).maxTop);
}

function upstreamQuery(operation: ListOperation, state: CursorState, top: number): string {
  const parts = [operation.translator.upstreamOptions(state.options)];
  parts.push(`$top=${top}`);
  if (state.skipToken !== undefined) parts.push(`$skiptoken=${encodeURIComponent(state.skipToken)}`);
  if (state.skip > 0) parts.push(`$skip=${state.skip}`);
  if (state.count) parts.push('$inlinecount=allpages');
  return parts.join('&');
}

/** `list` names the list a cursor is valid for: the operation and its path parameters. */
export async function readListPage(
  ctx: RestContext,
  operation: ListOperation,
  request: FastifyRequest,
  odataPath: string,
  list: string,
  call: CallContext,
): Promise<ListPage> {
  const state = stateOf(ctx, operation, request, list);
  const top = topOf(ctx, state);
  const feed = await ctx.upstream.feed(operation.set, odataPath, upstreamQuery(operation, state, top), call);
  const shape = ctx.shapes.of(operation.set);
  let entries = feed.entries;
  let following: CursorState | undefined;
  if (entries.length > state.limit) {
    entries = entries.slice(0, state.limit);
    following = { ...state, skip: state.skip + state.limit };
  } else if (feed.next !== undefined) {
    // The upstream's next link is the whole position: its token (or its $skip) replaces ours.
    const paging = pagingOf(feed.next);
    const { skipToken: _previous, ...options } = state;
    following = { ...options, skip: paging.skip, ...(paging.skipToken === undefined ? {} : { skipToken: paging.skipToken }) };
  } else if (top === state.limit && entries.length === state.limit) {
    // A full page at the largest $top cannot tell whether more follow: offer a next page, which
    // may come back empty.
    following = { ...state, skip: state.skip + state.limit };
  }
  const next = following === undefined ? null : `${pathOf(request)}?cursor=${ctx.cursors.encode(following)}`;
  const items = entries.map((entry) => shape.toRest(entry));
  return state.count && feed.count !== undefined ? { items, next, total: feed.count } : { items, next };
}
