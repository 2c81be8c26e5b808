// The in-process cache store (the default): an LRU bounded by bytes, and generation counters in a
// Map. Nothing is shared with other gateway instances; use redis-store.ts for several.
import type { LRUCache } from 'lru-cache';
import type { CacheLookup, CacheStore, StoredResponse } from './cache-store.js';
import { responseLru } from './cache-store.js';

export class MemoryCacheStore implements CacheStore {
  readonly #entries: LRUCache<string, StoredResponse>;
  readonly #generations = new Map<string, number>();

  constructor(maxBytes: number) {
    this.#entries = responseLru(maxBytes);
  }

  lookup(key: string, sets: readonly string[]): Promise<CacheLookup> {
    return Promise.resolve(this.peek(key, sets));
  }

  peek(key: string, sets: readonly string[]): CacheLookup {
    const generations = sets.map((set) => this.#generations.get(set) ?? 0);
    return { entry: this.#entries.get(key), generations };
  }

  store(key: string, entry: StoredResponse, ttlMs: number): Promise<void> {
    this.#entries.set(key, entry, { ttl: Math.max(1, ttlMs) });
    return Promise.resolve();
  }

  recordVerdict(): Promise<void> {
    // One process: the credential interceptor's verdicts are all there is.
    return Promise.resolve();
  }

  invalidate(sets: readonly string[]): Promise<void> {
    for (const set of sets) this.#generations.set(set, (this.#generations.get(set) ?? 0) + 1);
    return Promise.resolve();
  }

  claimFill(): Promise<boolean> {
    return Promise.resolve(true);
  }

  releaseFill(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#entries.clear();
    return Promise.resolve();
  }
}
