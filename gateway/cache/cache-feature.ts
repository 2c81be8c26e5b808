// The read cache as an edge feature of the gateway (features.ts): its store chosen once from the
// configuration (Redis when a URL is given, else memory), its hooks on the root instance, and the
// caching headers of both faces' answers (on whether the cache is or not).
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { GatewayFeature, GatewayParts } from '../features.js';
import type { CacheMetrics } from '../ops/metrics.js';
import { cacheFieldRule, registerCacheHeaders } from './cache-headers.js';
import { restBasePath } from '../rest/rest-face.js';
import type { CacheStore } from './cache-store.js';
import { MemoryCacheStore } from './memory-store.js';
import { registerReadCache } from './read-cache.js';
import { LocalCopies } from './local-copies.js';
import { closeRedis, mainRedis, openRedis } from './redis-connection.js';
import { followGenerations, RedisCacheStore } from './redis-store.js';
import type { ResourceClassifier } from './request-resources.js';
import { DEFAULT_FACE_PATHS, createResourceClassifier, resourceOf } from './request-resources.js';

export interface CacheFeatureOptions {
  readonly metrics?: CacheMetrics;
  /** Where the passthrough face is mounted (default `/V1/Api.svc`). */
  readonly odataBasePath?: string;
}

const classifiers = new WeakMap<GatewayParts['artefacts'], Map<string, ResourceClassifier>>();

/** The classifier of the gateway's model and faces, one per model, shared by cache and limiter. */
export function classifierOf(parts: GatewayParts, odataBasePath = DEFAULT_FACE_PATHS.odataBasePath): ResourceClassifier {
  let byPath = classifiers.get(parts.artefacts);
  if (byPath === undefined) {
    byPath = new Map();
    classifiers.set(parts.artefacts, byPath);
  }
  let classify = byPath.get(odataBasePath);
  if (classify === undefined) {
    classify = createResourceClassifier(parts.artefacts.model, { restBasePath: restBasePath(parts.artefacts.openapi), odataBasePath });
    byPath.set(odataBasePath, classify);
  }
  return classify;
}

/**
 * A store whose connection is opened when the gateway gets ready and closed with it. Until then
 * lookups fail, which the cache treats as "no cache" (never as a failed request).
 */
export function storeOnRedis(app: FastifyInstance, url: string, keyPrefix: string, commandTimeoutMs: number, copiesMaxBytes: number): CacheStore {
  const main = mainRedis(app, url, commandTimeoutMs);
  let subscriber: Redis | undefined;
  const pending: { store?: CacheStore } = {};
  app.addHook('onReady', async () => {
    const redis = await main();
    // Hits answered from this instance's copies while it follows the bumped counters.
    const copies = new LocalCopies(copiesMaxBytes);
    try {
      // followGenerations() subscribes on each reconnection and handles its failure; ioredis' own
      // resubscribing would leave a timed-out SUBSCRIBE's rejection unhandled (a stalled link).
      subscriber = await openRedis(url, commandTimeoutMs, { autoResubscribe: false });
      await followGenerations(subscriber, keyPrefix, copies);
    } catch (error) {
      if (subscriber !== undefined) await closeRedis(subscriber);
      throw error;
    }
    pending.store = new RedisCacheStore(redis, keyPrefix, copies);
  });
  app.addHook('onClose', async () => {
    await pending.store?.close();
    if (subscriber !== undefined) await closeRedis(subscriber);
  });
  const current = (): CacheStore => {
    if (pending.store === undefined) throw new Error('the cache store is not connected yet');
    return pending.store;
  };
  return {
    lookup: (key, sets, partition) => current().lookup(key, sets, partition),
    peek: (key, sets, partition) => pending.store?.peek?.(key, sets, partition),
    catchUp: () => pending.store?.catchUp?.() ?? Promise.resolve(false),
    recordVerdict: (partition, verdict) => current().recordVerdict(partition, verdict),
    store: (key, entry, ttlMs) => current().store(key, entry, ttlMs),
    invalidate: (sets) => current().invalidate(sets),
    claimFill: (key, ms) => current().claimFill(key, ms),
    releaseFill: (key) => current().releaseFill(key),
    close: () => current().close(),
  };
}

/** The credential headers as a Vary header names them. */
function credentialHeaderNames(aliases: readonly string[]): string[] {
  return ['Authorization', 'X-ServiceApiKey', ...aliases.filter((name) => !['authorization', 'x-serviceapikey'].includes(name.toLowerCase()))];
}

export function cacheFeature(options: CacheFeatureOptions = {}): GatewayFeature {
  return {
    name: 'cache',
    register(app, parts) {
      const { cache, redis, auth, upstream } = parts.config;
      const classify = classifierOf(parts, options.odataBasePath);
      const fieldsOf = cacheFieldRule(credentialHeaderNames(auth.keyHeaderAliases));
      if (cache.enabled) {
        const store = redis.url === undefined
          ? new MemoryCacheStore(cache.maxMemoryBytes)
          : storeOnRedis(app, redis.url, redis.keyPrefix, redis.commandTimeoutMs, cache.maxMemoryBytes);
        registerReadCache(app, {
          config: cache,
          store,
          classify,
          metrics: options.metrics ?? parts.metrics,
          freshness: parts.freshness,
          // A request in flight has its answer by the upstream deadline, or never.
          deadlineMs: upstream.requestTimeoutMs + 1_000,
          fieldsOf,
        });
      }
      registerCacheHeaders(app, fieldsOf, (request) => resourceOf(request, classify) !== undefined);
    },
  };
}
