// Single resources on the wire: the REST object with its ETag, 304 for a matching If-None-Match,
// and the If-Match check of a write, which reads the current version and refuses with 412
// before anything is written upstream.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EntitySet } from '../../odata/model.js';
import { PreconditionFailedError } from '../errors.js';
import type { UpstreamEntry } from '../upstream/odata-codec.js';
import type { CallContext } from '../upstream/odata-upstream.js';
import { matchesAny, resourceVersion } from './etag.js';
import type { RestContext } from './rest-context.js';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** The entity as REST JSON with its ETag; 304 (no body) when If-None-Match names that ETag. */
export function sendEntity(ctx: RestContext, set: EntitySet, entry: UpstreamEntry, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const rest = ctx.shapes.of(set).toRest(entry);
  const { etag } = resourceVersion(entry, rest, ctx.versionProperty);
  reply.header('etag', etag);
  const ifNoneMatch = header(request, 'if-none-match');
  if (ifNoneMatch !== undefined && request.method === 'GET' && matchesAny(ifNoneMatch, etag)) return reply.code(304).send();
  return reply.send(rest);
}

/**
 * The call context of a write under the request's If-Match: unchanged without one; otherwise the
 * entity is read, and a version that does not match is a 412 (nothing written). An ETag the
 * upstream wrote itself is passed on, so the upstream checks it too at the moment of the write.
 */
export async function underPrecondition(ctx: RestContext, set: EntitySet, path: string, request: FastifyRequest, call: CallContext): Promise<CallContext> {
  const ifMatch = header(request, 'if-match');
  if (ifMatch === undefined) return call;
  const entry = await ctx.upstream.entry(set, path, '', call);
  const version = resourceVersion(entry, ctx.shapes.of(set).toRest(entry), ctx.versionProperty);
  if (!matchesAny(ifMatch, version.etag)) {
    throw new PreconditionFailedError(`the resource changed: its ETag is now ${version.etag}; read it again and reapply the change`);
  }
  return version.fromUpstream ? { ...call, ifMatch: version.etag } : call;
}
