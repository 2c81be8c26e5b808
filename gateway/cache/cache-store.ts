// The read cache's storage behind one small interface (as undici's cache/ stores and
// @fastify/rate-limit's store/): memory-store.ts (one process, lru-cache) and redis-store.ts
// (shared by every gateway instance), chosen once at start-up by cache-feature.ts.
//
// Invalidation is by generation counters, one per entity set and global across credentials and
// accounts (over-invalidating another account is safe; missing one is not). A write bumps the
// counters of the sets it outdates; an entry remembers the counters it was filled under, read
// BEFORE its upstream request, so a write racing with the fill still outdates it. A lookup reads
// the entry and the current counters together (one round trip on Redis), so a write through any
// instance is seen by the next read through every instance.
import { LRUCache } from 'lru-cache';
import type { Verdict } from '../auth/credential-freshness.js';

/** One stored response, with what the cache needs to judge it. */
export interface StoredResponse {
  readonly status: number;
  /** Lower-case names; hop-by-hop and per-response headers are not stored. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer;
  /** ms since the epoch */
  readonly storedAt: number;
  readonly freshUntil: number;
  /** Until when it may still be served when the upstream fails (stale-if-error). */
  readonly staleUntil: number;
  /** The dependency counters it was filled under, aligned with the lookup's `sets`. */
  readonly generations: readonly number[];
}

export interface CacheLookup {
  readonly entry: StoredResponse | undefined;
  /** The current counters of the sets asked for, in the same order. */
  readonly generations: readonly number[];
  /** The upstream's last verdict on the credential as another instance saw it (shared stores). */
  readonly verdict?: Verdict;
}

export interface CacheStore {
  /**
   * The entry under `key` (if any), the current counters of `sets` and the shared verdict on the
   * credential of `partition`, read together.
   */
  lookup(key: string, sets: readonly string[], partition: string): Promise<CacheLookup>;
  /**
   * What lookup() would say, when the store knows it without waiting (the memory store always;
   * the Redis store from its local copies); undefined: ask lookup(). Cache hits answered from the
   * memory store's cost no promise and no turn of the event loop.
   */
  peek?(key: string, sets: readonly string[], partition: string): CacheLookup | undefined;
  /**
   * For a store whose peek() learns of writes by a push (the Redis store's copies): true once
   * peek() knows every write acknowledged before the call, false when that is not known (peek()
   * is then not to be used). Without it, peek() is always current.
   */
  catchUp?(): Promise<boolean>;
  /** Stores `entry`, kept for `ttlMs` (its freshness plus the stale-if-error window). */
  store(key: string, entry: StoredResponse, ttlMs: number): Promise<void>;
  /** Shares the upstream's verdict on a credential with the other instances (in-process: nothing to do). */
  recordVerdict(partition: string, verdict: Verdict): Promise<void>;
  /** Outdates every entry that depends on one of `sets`. */
  invalidate(sets: readonly string[]): Promise<void>;
  /**
   * Claims the right to fill `key` from the upstream for `ms` (true), or learns that another
   * instance holds it (false). In-process stores always grant it: coalescing within one process
   * is done by the cache layer itself.
   */
  claimFill(key: string, ms: number): Promise<boolean>;
  /** Gives the claim up once the entry is stored (or will not be). */
  releaseFill(key: string): Promise<void>;
  close(): Promise<void>;
}

/** Whether two readings of the same sets' counters are the same (no write came between them). */
export function isSameGenerations(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether an entry filled under `entry.generations` is still current. */
export function isCurrent(entry: StoredResponse, generations: readonly number[]): boolean {
  return isSameGenerations(entry.generations, generations);
}

/** What an entry costs beyond its body: headers and bookkeeping, roughly. */
const ENTRY_OVERHEAD_BYTES = 512;

/**
 * The in-process home of stored answers, bounded by bytes (the memory store's, and each Redis
 * instance's local copies): every entry is set with its own ttl; expired ones are dropped when
 * touched.
 */
export function responseLru(maxBytes: number): LRUCache<string, StoredResponse> {
  return new LRUCache<string, StoredResponse>({
    maxSize: maxBytes,
    sizeCalculation: (entry) => entry.body.length + ENTRY_OVERHEAD_BYTES,
    ttl: 1,
    ttlAutopurge: false,
    allowStale: false,
  });
}

