// The read cache in front of both faces, as two hooks on the root instance, so it sees REST
// routes and the OData passthrough alike and stores what the client would have received:
//
//   onRequest  a GET/HEAD with a fresh, current entry in its credential's partition is answered
//              from the store (X-Cache: HIT, 304 when the client's validator matches); a miss
//              waits for an identical request already in flight (coalescing) or becomes the one
//              that fills the entry; its conditional headers are held back so the upstream
//              answers in full and the cache can store it.
//   onSend     a filling request's 200 is stored (X-Cache: MISS) and handed to those waiting;
//              a 5xx is replaced by the stale entry when there is one (X-Cache: STALE, RFC 5861);
//              a write's success (or unknown outcome, 5xx) outdates the sets it touches before
//              the writer hears back, so its next read cannot see the old state.
//
// Register it after the rate limiter (cache hits count against limits) and before any hook that
// answers for the upstream (a circuit breaker), which would otherwise pre-empt hits.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CacheMetrics } from '../ops/metrics.js';
import type { CacheConfig } from './cache-config.js';
import type { CacheLookup, CacheStore, StoredResponse } from './cache-store.js';
import { isCurrent } from './cache-store.js';
import { cacheKeyOf } from './cache-key.js';
import type { Conditional } from './http-caching.js';
import {
  REPLACED_BY_STORED,
  conditionalOf,
  headerOf,
  isNotModified,
  requestDirectives,
  storableSeconds,
  storedHeaders,
} from './http-caching.js';
import type { RequestResource, ResourceClassifier } from './request-resources.js';
import { METADATA_TTL_NAME } from './request-resources.js';
import { bodyBytes, discardPayload } from './payload-bytes.js';
import { factsOf } from './request-facts.js';

export interface ReadCacheOptions {
  readonly config: CacheConfig;
  readonly store: CacheStore;
  readonly classify: ResourceClassifier;
  readonly metrics: CacheMetrics;
  /** Lower-case header names that carry the caller's key (X-ServiceApiKey and aliases). */
  readonly keyHeaders?: readonly string[];
}

type XCache = 'HIT' | 'STALE';

interface Served {
  readonly entry: StoredResponse;
  readonly xCache: XCache;
}

/** A request that goes to the upstream to fill `key`. */
interface Fill {
  readonly key: string;
  readonly resource: RequestResource;
  readonly ttlSeconds: number;
  /** The dependency counters read before the upstream request. */
  readonly generations: readonly number[];
  readonly stale: StoredResponse | undefined;
  readonly conditional: Conditional | undefined;
  /** Hands the outcome to coalesced requests (once; later calls do nothing). */
  readonly settle: (served: Served | undefined) => void;
}

const POLL_MS = 20;

function ageSeconds(entry: StoredResponse, now: number): string {
  return String(Math.max(0, Math.floor((now - entry.storedAt) / 1000)));
}

function notModified(reply: FastifyReply): void {
  reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
}

function setStoredHeaders(reply: FastifyReply, entry: StoredResponse, xCache: string, now: number): void {
  for (const [name, value] of entry.headers) reply.header(name, value);
  reply.header('x-cache', xCache);
  reply.header('age', ageSeconds(entry, now));
}

function answersCondition(conditional: Conditional | undefined, entry: StoredResponse): boolean {
  return conditional !== undefined && isNotModified(conditional, headerOf(entry.headers, 'etag'), headerOf(entry.headers, 'last-modified'));
}

/** Answers from a stored entry, in an onRequest hook. */
function serve(request: FastifyRequest, reply: FastifyReply, served: Served, conditional: Conditional | undefined): FastifyReply {
  const now = Date.now();
  setStoredHeaders(reply, served.entry, served.xCache, now);
  if (answersCondition(conditional, served.entry)) {
    notModified(reply);
    return reply.send();
  }
  return reply.code(served.entry.status).send(request.method === 'HEAD' ? undefined : served.entry.body);
}

export function registerReadCache(app: FastifyInstance, options: ReadCacheOptions): void {
  const { config, store, classify, metrics } = options;
  const inflight = new Map<string, Promise<Served | undefined>>();
  const fills = new WeakMap<FastifyRequest, Fill>();
  const writes = new WeakMap<FastifyRequest, RequestResource>();

  const ttlSecondsOf = (resource: RequestResource): number => {
    if (resource.ttlName === METADATA_TTL_NAME) return config.metadataTtlSeconds;
    return (resource.ttlName === undefined ? undefined : config.ttlSecondsBySet[resource.ttlName]) ?? config.defaultTtlSeconds;
  };

  // A store that fails (Redis away) turns the cache off for the request, never the request off.
  async function lookup(request: FastifyRequest, key: string, sets: readonly string[]): Promise<CacheLookup | undefined> {
    try {
      return await store.lookup(key, sets);
    } catch (error) {
      request.log.warn({ err: error }, 'cache lookup failed; answering without the cache');
      return undefined;
    }
  }

  /** The entry under `key` when it is current and fresh. */
  async function freshEntry(request: FastifyRequest, key: string, resource: RequestResource): Promise<StoredResponse | undefined | 'unavailable'> {
    const found = await lookup(request, key, resource.dependsOn);
    if (found === undefined) return 'unavailable';
    const entry = found.entry;
    return entry !== undefined && isCurrent(entry, found.generations) && entry.freshUntil > Date.now() ? entry : undefined;
  }

  /**
   * The right to fill `key` (undefined), or the entry another instance filled meanwhile: a claim
   * won just after the other instance stored its entry and gave its claim up is checked against
   * the store once more, so that instance's upstream call is not repeated.
   */
  async function claimOrAwait(request: FastifyRequest, key: string, resource: RequestResource): Promise<StoredResponse | undefined> {
    const deadline = Date.now() + config.fillClaimMs;
    for (let isFirst = true; isFirst || Date.now() < deadline; isFirst = false) {
      if (!isFirst) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const isClaimed = await claimFill(request, key);
      const entry = await freshEntry(request, key, resource);
      if (entry === 'unavailable') return undefined;
      if (entry !== undefined) {
        if (isClaimed) releaseFill(request, key);
        return entry;
      }
      if (isClaimed) return undefined;
    }
    return undefined;
  }

  function releaseFill(request: FastifyRequest, key: string): void {
    store.releaseFill(key).catch((error: unknown) => request.log.warn({ err: error }, 'cache fill release failed'));
  }

  async function claimFill(request: FastifyRequest, key: string): Promise<boolean> {
    try {
      return await store.claimFill(key, config.fillClaimMs);
    } catch (error) {
      request.log.warn({ err: error }, 'cache fill claim failed');
      return true;
    }
  }

  app.addHook('onRequest', async (request, reply) => {
    const facts = factsOf(request, classify, options.keyHeaders);
    const resource = facts.resource;
    if (resource === undefined) return;
    if (resource.isWrite) {
      writes.set(request, resource);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    const directives = requestDirectives(request.headers);
    const ttlSeconds = ttlSecondsOf(resource);
    if (directives.noStore || ttlSeconds <= 0) return;

    const partition = facts.partition ?? 'anonymous';
    const key = cacheKeyOf(resource.face, partition, request.url, request.headers);
    const found = await lookup(request, key, resource.dependsOn);
    if (found === undefined) return;
    const now = Date.now();
    const current = found.entry !== undefined && isCurrent(found.entry, found.generations) ? found.entry : undefined;
    const conditional = conditionalOf(request.headers);
    if (current !== undefined && !directives.mustRevalidate && current.freshUntil > now) {
      metrics.cacheLookup(resource.face, 'hit');
      return serve(request, reply, { entry: current, xCache: 'HIT' }, conditional);
    }
    const stale = current !== undefined && current.staleUntil > now ? current : undefined;
    // A HEAD has no body to store: it passes through.
    if (request.method === 'HEAD') {
      metrics.cacheLookup(resource.face, 'miss');
      reply.header('x-cache', 'MISS');
      return;
    }

    // `no-cache` asks for the upstream's answer now, so it neither waits for nor leads others.
    let isLeader = false;
    if (!directives.mustRevalidate) {
      const pending = inflight.get(key);
      if (pending !== undefined) {
        const served = await pending;
        if (served !== undefined) {
          metrics.cacheLookup(resource.face, served.xCache === 'STALE' ? 'stale' : 'hit');
          return serve(request, reply, served, conditional);
        }
      } else {
        const filled = await claimOrAwait(request, key, resource);
        if (filled !== undefined) {
          metrics.cacheLookup(resource.face, 'hit');
          return serve(request, reply, { entry: filled, xCache: 'HIT' }, conditional);
        }
      }
      isLeader = !inflight.has(key);
    }

    metrics.cacheLookup(resource.face, 'miss');
    let settle: (served: Served | undefined) => void = () => {};
    if (isLeader) {
      let isSettled = false;
      const promise = new Promise<Served | undefined>((resolve) => {
        settle = (served) => {
          if (isSettled) return;
          isSettled = true;
          if (inflight.get(key) === promise) inflight.delete(key);
          releaseFill(request, key);
          resolve(served);
        };
      });
      inflight.set(key, promise);
    }
    fills.set(request, { key, resource, ttlSeconds, generations: found.generations, stale, conditional, settle });
    // Whatever happens to this request (an abort, an error before onSend), the waiting ones go on.
    reply.raw.once('close', () => settle(undefined));
    if (conditional !== undefined) {
      delete request.headers['if-none-match'];
      delete request.headers['if-modified-since'];
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const written = writes.get(request);
    if (written !== undefined) {
      writes.delete(request);
      // 4xx: refused, nothing changed. 5xx: the write may have happened; outdate to be safe.
      if (reply.statusCode < 400 || reply.statusCode >= 500) {
        try {
          await store.invalidate(written.invalidates);
        } catch (error) {
          request.log.error({ err: error, sets: written.invalidates }, 'cache invalidation failed');
        }
      }
      return payload;
    }
    const fill = fills.get(request);
    if (fill === undefined) return payload;
    fills.delete(request);
    const now = Date.now();
    const status = reply.statusCode;

    if (status >= 500 && fill.stale !== undefined) {
      discardPayload(payload);
      for (const name of REPLACED_BY_STORED) reply.removeHeader(name);
      setStoredHeaders(reply, fill.stale, 'STALE', now);
      metrics.cacheLookup(fill.resource.face, 'stale');
      fill.settle({ entry: fill.stale, xCache: 'STALE' });
      if (answersCondition(fill.conditional, fill.stale)) {
        notModified(reply);
        return null;
      }
      reply.code(fill.stale.status);
      return fill.stale.body;
    }

    reply.header('x-cache', 'MISS');
    const seconds = storableSeconds(status, reply.getHeaders(), fill.ttlSeconds);
    const declaredLength = Number(reply.getHeader('content-length'));
    if (seconds === undefined || declaredLength > config.maxEntryBytes) {
      fill.settle(undefined);
      return payload;
    }
    const body = await bodyBytes(payload);
    if (body.length > config.maxEntryBytes) {
      fill.settle(undefined);
      return body;
    }
    const freshUntil = now + seconds * 1000;
    const entry: StoredResponse = {
      status,
      headers: storedHeaders(reply.getHeaders()),
      body,
      storedAt: now,
      freshUntil,
      staleUntil: freshUntil + config.staleIfErrorSeconds * 1000,
      generations: fill.generations,
    };
    try {
      // Awaited, so the client's next request (to any instance) finds the entry.
      await store.store(fill.key, entry, entry.staleUntil - now);
    } catch (error) {
      request.log.warn({ err: error }, 'cache store failed');
    }
    fill.settle({ entry, xCache: 'HIT' });
    if (answersCondition(fill.conditional, entry)) {
      notModified(reply);
      return null;
    }
    return body;
  });
}
