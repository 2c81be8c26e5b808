// Single resources on the wire: the REST object with its ETag, 304 for a matching If-None-Match,
// and the If-Match check of a write, which reads the current version and refuses with 412
// before anything is written upstream.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { concurrencyProperties } from '../../odata/etag.js';
import type { EntitySet } from '../../odata/model.js';
import { PreconditionFailedError } from '../errors.js';
import type { UpstreamEntry } from '../upstream/odata-codec.js';
import type { CallContext } from '../upstream/odata-upstream.js';
import { matchesAny, resourceVersion } from './etag.js';
import type { ListQueryTranslator } from './list-query.js';
import type { RestContext } from './rest-context.js';
import { entityOptionsOf } from './request-parts.js';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

export interface EntityRead {
  /** The upstream query options (`$select`, `$expand`). */
  readonly query: string;
  /** A property read only to version the entity, left out of the answer. */
  readonly hidden?: string;
}

/**
 * The options of a read of one entity. A `select` without the version property (LastChangeTime)
 * still fetches it, so a partial read carries the entity's own ETag, usable in If-Match.
 */
export function entityRead(ctx: RestContext, set: EntitySet, translator: ListQueryTranslator, request: FastifyRequest, needsSelect = false): EntityRead {
  const options = entityOptionsOf(request, needsSelect);
  const version = ctx.index.property(ctx.index.typeOfSet(set), ctx.versionProperty);
  const selected = options.select?.split(',').map((item) => item.trim());
  if (version === undefined || selected === undefined || selected.includes(version.restName) || selected.includes('*')) {
    return { query: translator.translate(options) };
  }
  return { query: translator.translate({ ...options, select: `${options.select as string},${version.restName}` }), hidden: version.restName };
}

/** The entity as REST JSON with its ETag; 304 (no body) when If-None-Match names that ETag. */
export function sendEntity(ctx: RestContext, set: EntitySet, entry: UpstreamEntry, request: FastifyRequest, reply: FastifyReply, hidden?: string): FastifyReply {
  const rest = ctx.shapes.of(set).toRest(entry);
  const { etag } = resourceVersion(entry, rest, ctx.versionProperty);
  if (hidden !== undefined) delete rest[hidden];
  reply.header('etag', etag);
  const ifNoneMatch = header(request, 'if-none-match');
  if (ifNoneMatch !== undefined && request.method === 'GET' && matchesAny(ifNoneMatch, etag)) return reply.code(304).send();
  return reply.send(rest);
}

/**
 * The call context of a write under the request's If-Match: unchanged without one. An upstream
 * whose model declares concurrency tokens for the set (`ConcurrencyMode="Fixed"`) writes the
 * ETags this face hands out, so If-Match goes to it as sent and it compares in the write itself:
 * of two writers holding one ETag, one wins. For any other upstream the entity is read and a
 * version that does not match is a 412 (nothing written); this read-compare-write cannot stop
 * two writers that compare at the same moment, which only the upstream could.
 */
export async function underPrecondition(ctx: RestContext, set: EntitySet, path: string, request: FastifyRequest, call: CallContext): Promise<CallContext> {
  const ifMatch = header(request, 'if-match');
  if (ifMatch === undefined) return call;
  if (concurrencyProperties(ctx.index.typeOfSet(set)).length > 0) return { ...call, ifMatch };
  const entry = await ctx.upstream.entry(set, path, '', call);
  const version = resourceVersion(entry, ctx.shapes.of(set).toRest(entry), ctx.versionProperty);
  if (!matchesAny(ifMatch, version.etag)) {
    throw new PreconditionFailedError(`the resource changed: its ETag is now ${version.etag}; read it again and reapply the change`);
  }
  return version.fromUpstream ? { ...call, ifMatch: version.etag } : call;
}
