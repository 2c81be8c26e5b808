// The cache store shared by every gateway instance: entries, generation counters and the
// upstream's verdicts on credentials in Redis. A lookup is one MGET of the entry, its counters and
// the verdict, so invalidation by a write through any instance is seen by the next read through
// any other, and a credential one instance found accepted (or refused) is so for all. An entry is
// one binary value: a 4-byte length, the JSON of its head (status, headers, times, counters), then
// the body bytes as is. A verdict is `a:<ms>` (accepted) or `r:<ms>` (refused).
import type { Redis } from 'ioredis';
import type { Verdict } from '../auth/credential-freshness.js';
import type { CacheLookup, CacheStore, StoredResponse } from './cache-store.js';
import { closeRedis } from './redis-connection.js';

type StoredHead = Omit<StoredResponse, 'body'>;

/** How long a verdict is kept: far beyond any auth TTL, so a refusal outlives stale entries. */
const VERDICT_TTL_MS = 24 * 3_600_000;

function decodeVerdict(bytes: Buffer | null | undefined): Verdict | undefined {
  const text = bytes?.toString('latin1');
  if (text === undefined || (!text.startsWith('a:') && !text.startsWith('r:'))) return undefined;
  const at = Number(text.slice(2));
  return Number.isFinite(at) ? { at, isAccepted: text.startsWith('a:') } : undefined;
}

export function encodeEntry(entry: StoredResponse): Buffer {
  const { body, ...head } = entry;
  const headBytes = Buffer.from(JSON.stringify(head));
  const length = Buffer.allocUnsafe(4);
  length.writeUInt32BE(headBytes.length, 0);
  return Buffer.concat([length, headBytes, body]);
}

export function decodeEntry(bytes: Buffer): StoredResponse | undefined {
  if (bytes.length < 4) return undefined;
  const headLength = bytes.readUInt32BE(0);
  if (4 + headLength > bytes.length) return undefined;
  try {
    const head = JSON.parse(bytes.subarray(4, 4 + headLength).toString('utf8')) as StoredHead;
    return { ...head, body: bytes.subarray(4 + headLength) };
  } catch {
    // Written by another version, or damaged: a miss, not a failure.
    return undefined;
  }
}

export class RedisCacheStore implements CacheStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #ownsConnection: boolean;

  constructor(redis: Redis, keyPrefix: string, ownsConnection: boolean) {
    this.#redis = redis;
    this.#prefix = `${keyPrefix}cache:`;
    this.#ownsConnection = ownsConnection;
  }

  async lookup(key: string, sets: readonly string[], partition: string): Promise<CacheLookup> {
    const values = await this.#redis.mgetBuffer(this.#prefix + 'e:' + key, this.#verdictKey(partition), ...sets.map((set) => this.#generationKey(set)));
    const [entryBytes, verdictBytes, ...counters] = values;
    const verdict = decodeVerdict(verdictBytes);
    return {
      entry: entryBytes == null ? undefined : decodeEntry(entryBytes),
      generations: counters.map((value) => (value == null ? 0 : Number(value.toString()))),
      ...(verdict === undefined ? {} : { verdict }),
    };
  }

  async recordVerdict(partition: string, verdict: Verdict): Promise<void> {
    await this.#redis.set(this.#verdictKey(partition), `${verdict.isAccepted ? 'a' : 'r'}:${verdict.at}`, 'PX', VERDICT_TTL_MS);
  }

  async store(key: string, entry: StoredResponse, ttlMs: number): Promise<void> {
    await this.#redis.set(this.#prefix + 'e:' + key, encodeEntry(entry), 'PX', Math.max(1, Math.ceil(ttlMs)));
  }

  async invalidate(sets: readonly string[]): Promise<void> {
    if (sets.length === 0) return;
    const batch = this.#redis.multi();
    for (const set of sets) batch.incr(this.#generationKey(set));
    await batch.exec();
  }

  async claimFill(key: string, ms: number): Promise<boolean> {
    const answer = await this.#redis.set(this.#prefix + 'f:' + key, '1', 'PX', Math.max(1, Math.ceil(ms)), 'NX');
    return answer === 'OK';
  }

  async releaseFill(key: string): Promise<void> {
    await this.#redis.del(this.#prefix + 'f:' + key);
  }

  async close(): Promise<void> {
    if (this.#ownsConnection) await closeRedis(this.#redis);
  }

  #verdictKey(partition: string): string {
    return `${this.#prefix}v:${partition}`;
  }

  #generationKey(set: string): string {
    return `${this.#prefix}g:${set}`;
  }
}
