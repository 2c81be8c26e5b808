// Each gateway instance's own copies of what it read from and wrote to the shared store on Redis
// (redis-store.ts), so that a cache hit in one of several instances (`--workers`, replicas) costs
// no round trip to Redis: the copy of the entry, the generation counters of the entity sets, and
// the upstream's verdicts on credentials as the shared store told them.
//
// A copy answers only while it is known to be current. Counters only grow (INCR), and every write
// through any instance publishes the counters it bumped in the same script (redis-store.ts
// invalidate); this instance follows that channel and keeps, for each set, the highest counter it
// has seen, pushed or read. A push is not known to be here when the writer's client hears back,
// though: Redis writes the writer's reply and each follower's message separately (with both
// connections in one process, the reply came first in 656 of 2,000 tries), and a follower may be
// farther from Redis, busier, or descheduled. So a request answered from a copy first catches up (catchUp): a round
// trip on the followed connection, sent after the request came, comes back behind every message
// published before Redis ran it, the writer's among them, and its messages are learned in that
// order. One round trip serves every request that came in the same turn of the event loop.
// When the subscription drops, nothing known holds any more: copies are used again only for
// counters read after it was back (a read begun before could miss a bump made while no one
// listened).
//
// The followed connection can stall while the main one works (Redis paused for that client, a
// half-open TCP link): its round trip would then hold every hit for the command timeout. So a
// request waits for the round trip at most CATCH_UP_BUDGET_MS, then reads the shared store over
// the main connection (lookup, always current); while a round trip is overdue, the requests after
// it do so at once. The round trip that times out loses the subscription (followGenerations).
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

/**
 * How long a request waits for the round trip before it reads the store instead: a healthy one
 * takes a millisecond or two within a region, a lookup on the store about as long, so a round trip
 * this late means the followed connection stalls, and waiting longer only costs the request.
 */
export const CATCH_UP_BUDGET_MS = 50;

/** Taken when a read of the store begins; what it read is learned only if it is still valid. */
export type ReadToken = number | undefined;

/** A command on the followed connection (a PING): settles once its answer is back, behind every message sent before it. */
export type RoundTrip = () => Promise<unknown>;

export class LocalCopies {
  readonly #entries: LRUCache<string, StoredResponse>;
  readonly #generations = new Map<string, number>();
  readonly #verdicts = new LRUCache<string, Verdict>({ max: MAX_CREDENTIALS });
  #isFollowing = false;
  /** Counts the subscriptions lost: a read begun under another one is not learned. */
  #epoch = 0;
  #roundTrip: RoundTrip | undefined;
  /** The round trip the requests of this turn wait for, sent when the turn ends. */
  #nextRound: Promise<boolean> | undefined;
  /** A round trip is out for longer than the budget: the followed connection may be stalled. */
  #isOverdue = false;

  constructor(maxBytes: number) {
    this.#entries = responseLru(maxBytes);
  }

  /** The channel of bumped counters is followed from now on, on the connection `roundTrip` goes over. */
  follow(roundTrip: RoundTrip): void {
    this.#roundTrip = roundTrip;
    this.#isFollowing = true;
    this.#isOverdue = false;
  }

  /**
   * True once every bump published before this call has been learned, so peek() may be trusted
   * for a request that came before it; false when that is not known within the budget (peek() is
   * not to be used).
   */
  catchUp(): Promise<boolean> {
    const roundTrip = this.#roundTrip;
    if (!this.#isFollowing || roundTrip === undefined || this.#isOverdue) return Promise.resolve(false);
    // Joined only while not sent: one sent before a request came could overtake its writer's bump.
    this.#nextRound ??= new Promise<boolean>((resolve) => {
      setImmediate(() => {
        this.#nextRound = undefined;
        const budget = setTimeout(() => {
          this.#isOverdue = true;
          resolve(false);
        }, CATCH_UP_BUDGET_MS);
        const settle = (isCaughtUp: boolean): void => {
          clearTimeout(budget);
          // Answered, or failed (then the subscription is lost): a later round trip may be waited for.
          this.#isOverdue = false;
          resolve(isCaughtUp);
        };
        roundTrip().then(() => settle(this.#isFollowing), () => settle(false));
      });
    });
    return this.#nextRound;
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

  /**
   * The copy under `key` with its counters and the credential's verdict, when it is current as far
   * as this instance has learned (to be trusted only after catchUp()); else undefined (ask the store).
   */
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
