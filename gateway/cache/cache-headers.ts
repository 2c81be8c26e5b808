// What an answer of either face tells the caches after the gateway (a browser's, a CDN, Varnish),
// as one onSend hook that runs after the read cache's: Cache-Status (RFC 9211) and X-Cache say
// what the read cache did; every read varies on the credential headers (Authorization,
// X-ServiceApiKey and its aliases), so no shared cache hands one caller's answer to another; an
// answer given on behalf of a key is `private`, with the freshness the gateway gives it
// (`max-age`), or the upstream's directives, or `no-cache`. Registered whether the read cache is
// on or not: the conventions hold either way.
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

/** `credentialHeaders`: the header names a key may come in, as they are usually written. */
export function registerCacheHeaders(app: FastifyInstance, credentialHeaders: readonly string[], isFaceRequest: (request: FastifyRequest) => boolean): void {
  // Most answers have no Vary of their own: theirs is worked out once.
  const varyAlone = withVary(undefined, credentialHeaders);
  // A callback hook: nothing here waits, and an async hook costs a promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isFaceRequest(request)) setCacheHeaders(request, reply, credentialHeaders, varyAlone);
    done(null, payload);
  });
}

function setCacheHeaders(request: FastifyRequest, reply: FastifyReply, credentialHeaders: readonly string[], varyAlone: string): void {
  const outcome = outcomes.get(request);
  if (outcome !== undefined) {
    reply.header('cache-status', cacheStatusOf(outcome, reply.statusCode));
    const xCache = xCacheOf(outcome);
    if (xCache !== undefined) reply.header('x-cache', xCache);
  }
  if (request.method === 'GET' || request.method === 'HEAD') {
    const vary = reply.getHeader('vary') as string | undefined;
    reply.header('vary', vary === undefined ? varyAlone : withVary(vary, credentialHeaders));
  }
  const maxAge = reply.statusCode === 200 || reply.statusCode === 304 ? maxAgeOf(outcome) : undefined;
  if (request.credential.key !== undefined) {
    reply.header('cache-control', privateCacheControl(maxAge, reply.getHeader('cache-control') as string | undefined));
  } else if (maxAge !== undefined) {
    reply.header('cache-control', `max-age=${Math.max(0, maxAge)}`);
  }
}
