// The cache store chosen once at start-up: Redis when the gateway has a Redis connection (so every
// instance shares entries and invalidations), else in-process memory.
import type { Redis } from 'ioredis';
import type { CacheConfig } from './cache-config.js';
import type { CacheStore } from './cache-store.js';
import { MemoryCacheStore } from './memory-store.js';
import { RedisCacheStore } from './redis-store.js';

export function createCacheStore(config: CacheConfig, redis: { readonly client: Redis; readonly keyPrefix: string } | undefined): CacheStore {
  return redis === undefined ? new MemoryCacheStore(config.maxMemoryBytes) : new RedisCacheStore(redis.client, redis.keyPrefix, false);
}
