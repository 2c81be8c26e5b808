// Each gateway instance's own copies of what it read from and wrote to the shared store on Redis
// (redis-store.ts), so that a cache hit in one of several instances (`--workers`, replicas) costs
// no round trip to Redis: the copy of the entry, the generation counters of the entity sets, and
// the upstream's verdicts on credentials as the shared store told them.
//
// A copy answers only while it is known to be current. Counters only grow (INCR), and every write
// through any instance publishes the counters it bumped (redis-store.ts invalidate); this instance
// follows that channel and keeps, for each set, the highest counter it has seen, pushed or read.
// While it follows the channel, a counter it knows is the current one: a bump after it was read is
// pushed before the writer hears back (Redis writes the message to every subscriber in the same
// turn as the writer's reply), and the writer's client only then goes on to read. When the
// subscription drops, nothing known holds any more: copies are used again only for counters read
// after it was back (a read begun before could miss a bump made while no one listened).
//
// A credential's verdict from the shared store is remembered with its time, and ages as it would
// have: a copy is served only while the upstream accepted the credential within the auth TTL, so a
// revoked key still meets its 401 within the TTL; an instance that learns of a refusal only at its
// next read of the store learns it no later than that.
import { LRUCache } from 'lru-cache';
import type { Verdict } from '../auth/credential-freshness.js';
import { latestVerdict } from '../auth/credential-freshness.js';
import type { CacheLookup, StoredResponse } from './cache-store.js';
import { isCurrent, responseLru } from './cache-store.js';

const MAX_CREDENTIALS = 100_000;

/** Taken when a read of the store begins; what it read is learned only if it is still valid. */
export type ReadToken = number | undefined;

export class LocalCopies {
  readonly #entries: LRUCache<string, StoredResponse>;
  readonly #generations = new Map<string, number>();
  readonly #verdicts = new LRUCache<string, Verdict>({ max: MAX_CREDENTIALS });
  #isFollowing = false;
  /** Counts the subscriptions lost: a read begun under another one is not learned. */
  #epoch = 0;

  constructor(maxBytes: number) {
    this.#entries = responseLru(maxBytes);
  }

  /** The channel of bumped counters is followed from now on. */
  follow(): void {
    this.#isFollowing = true;
  }

  /** The channel was lost: bumps may have been missed, so no counter known holds. */
  lose(): void {
    this.#isFollowing = false;
    this.#epoch++;
    this.#generations.clear();
  }

  /** Counters bumped by a write (pushed, or the writer's own): the higher of each is kept. */
  learnBumped(sets: readonly string[], values: readonly number[]): void {
    // Not following, later bumps could be missed: a counter learned now would not stay current.
    if (!this.#isFollowing) return;
    for (let i = 0; i < sets.length; i++) this.#raise(sets[i] as string, values[i] as number);
  }

  token(): ReadToken {
    return this.#isFollowing ? this.#epoch : undefined;
  }

  /** What a read of the store begun at `token` found. */
  learnRead(token: ReadToken, key: string, sets: readonly string[], found: CacheLookup, partition: string, now: number): void {
    if (found.verdict !== undefined) this.#verdicts.set(partition, latestVerdict(this.#verdicts.get(partition), found.verdict) as Verdict);
    if (token === undefined || token !== this.#epoch || !this.#isFollowing) return;
    for (let i = 0; i < sets.length; i++) this.#raise(sets[i] as string, found.generations[i] as number);
    if (found.entry !== undefined) this.keep(key, found.entry, now);
  }

  /** Keeps a copy of `entry` for as long as the store keeps it. */
  keep(key: string, entry: StoredResponse, now: number): void {
    if (entry.staleUntil > now) this.#entries.set(key, entry, { ttl: entry.staleUntil - now });
  }

  /** The copy under `key` with its counters and the credential's verdict, when it is current; else undefined (ask the store). */
  peek(key: string, sets: readonly string[], partition: string): CacheLookup | undefined {
    if (!this.#isFollowing) return undefined;
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    const generations: number[] = [];
    for (const set of sets) {
      const known = this.#generations.get(set);
      if (known === undefined) return undefined;
      generations.push(known);
    }
    if (!isCurrent(entry, generations)) return undefined;
    const verdict = this.#verdicts.get(partition);
    return verdict === undefined ? { entry, generations } : { entry, generations, verdict };
  }

  clear(): void {
    this.#entries.clear();
    this.#generations.clear();
    this.#verdicts.clear();
  }

  #raise(set: string, value: number): void {
    if (!Number.isFinite(value)) return;
    const known = this.#generations.get(set);
    if (known === undefined || value > known) this.#generations.set(set, value);
  }
}
