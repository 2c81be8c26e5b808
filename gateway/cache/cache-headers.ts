// What an answer of either face tells the caches after the gateway (a browser's, a CDN, Varnish),
// as one onSend hook that runs after the read cache's: Cache-Status (RFC 9211) and X-Cache say
// what the read cache did; every read varies on the credential headers (Authorization,
// X-ServiceApiKey and its aliases), so no shared cache hands one caller's answer to another; an
// answer given on behalf of a key is `private`, with the freshness the gateway gives it
// (`max-age`), or the upstream's directives, or `no-cache`. Registered whether the read cache is
// on or not: the conventions hold either way. A cache hit written at once (read-cache.ts, without
// the onSend hooks) takes its fields from cacheFieldsOf(), the same rule.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CacheOutcome } from './http-caching.js';
import { cacheStatusOf, privateCacheControl, withVary, xCacheOf } from './http-caching.js';

const outcomes = new WeakMap<FastifyRequest, CacheOutcome>();

/** What the read cache did for `request` (the last record wins). */
export function recordOutcome(request: FastifyRequest, outcome: CacheOutcome): void {
  outcomes.set(request, outcome);
}

function maxAgeOf(outcome: CacheOutcome | undefined): number | undefined {
  if (outcome === undefined) return undefined;
  if (outcome.kind === 'hit') return outcome.ttlSeconds;
  if (outcome.kind === 'stale') return 0;
  return outcome.storedSeconds;
}

/** The caching fields of one answer, in the order they are written; undefined: not written. */
export interface CacheFields {
  readonly cacheStatus: string | undefined;
  readonly xCache: string | undefined;
  readonly vary: string | undefined;
  readonly cacheControl: string | undefined;
}

/** Works out an answer's caching fields from what the read cache did and the answer's own fields. */
export interface CacheFieldRule {
  (outcome: CacheOutcome | undefined, status: number, isRead: boolean, hasKey: boolean, vary: string | undefined, cacheControl: string | undefined): CacheFields;
}

/** `credentialHeaders`: the header names a key may come in, as they are usually written. */
export function cacheFieldRule(credentialHeaders: readonly string[]): CacheFieldRule {
  // Most answers have no Vary of their own: theirs is worked out once.
  const varyAlone = withVary(undefined, credentialHeaders);
  return (outcome, status, isRead, hasKey, vary, cacheControl) => {
    const maxAge = status === 200 || status === 304 ? maxAgeOf(outcome) : undefined;
    return {
      cacheStatus: outcome === undefined ? undefined : cacheStatusOf(outcome, status),
      xCache: outcome === undefined ? undefined : xCacheOf(outcome),
      vary: isRead ? (vary === undefined ? varyAlone : withVary(vary, credentialHeaders)) : undefined,
      cacheControl: hasKey ? privateCacheControl(maxAge, cacheControl) : maxAge === undefined ? undefined : `max-age=${Math.max(0, maxAge)}`,
    };
  };
}

export function registerCacheHeaders(app: FastifyInstance, fieldsOf: CacheFieldRule, isFaceRequest: (request: FastifyRequest) => boolean): void {
  // A callback hook: nothing here waits, and an async hook costs a promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isFaceRequest(request)) setCacheHeaders(request, reply, fieldsOf);
    done(null, payload);
  });
}

function setCacheHeaders(request: FastifyRequest, reply: FastifyReply, fieldsOf: CacheFieldRule): void {
  const isRead = request.method === 'GET' || request.method === 'HEAD';
  const fields = fieldsOf(outcomes.get(request), reply.statusCode, isRead, request.credential.key !== undefined,
    isRead ? (reply.getHeader('vary') as string | undefined) : undefined, reply.getHeader('cache-control') as string | undefined);
  if (fields.cacheStatus !== undefined) reply.header('cache-status', fields.cacheStatus);
  if (fields.xCache !== undefined) reply.header('x-cache', fields.xCache);
  if (fields.vary !== undefined) reply.header('vary', fields.vary);
  if (fields.cacheControl !== undefined) reply.header('cache-control', fields.cacheControl);
}
