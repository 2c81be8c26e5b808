// The cache store shared by every gateway instance: entries, generation counters and the
// upstream's verdicts on credentials in Redis. A lookup is one MGET of the entry, its counters and
// the verdict, so invalidation by a write through any instance is seen by the next read through
// any other, and a credential one instance found accepted (or refused) is so for all. An entry is
// one binary value: a 4-byte length, the JSON of its head (status, headers, times, counters), then
// the body bytes as is. A verdict is `a:<ms>` (accepted) or `r:<ms>` (refused).
//
// With local copies (local-copies.ts), a lookup whose answer this instance already holds, current,
// is answered from memory (peek) once the copies have caught up with the writes acknowledged
// before (catchUp: one PING on the subscribed connection, waited for within a short budget); a
// write bumps its counters and publishes the new values in one script, and every instance
// follows that channel (followGenerations).
//
// A write's bump that fails (Redis away, the connection stalled and being replaced) is owed: the
// writer still gets its answer (the write is done upstream; read-cache.ts logs the failure), and
// until the bump has been sent again this instance answers nothing from its copies and reads the
// store only after sending it (lookup), so its own callers never get what was before their write.
// It is sent again as soon as a new connection is ready, or with the next lookup, whichever comes
// first; the other instances see the write only then (or when their entries expire). An owed bump
// is lost only with the process.
import type { Redis } from 'ioredis';
import type { Verdict } from '../auth/credential-freshness.js';
import type { CacheLookup, CacheStore, StoredResponse } from './cache-store.js';
import type { LocalCopies } from './local-copies.js';

type StoredHead = Omit<StoredResponse, 'body'>;

/** How long a verdict is kept: far beyond any auth TTL, so a refusal outlives stale entries. */
const VERDICT_TTL_MS = 24 * 3_600_000;

/**
 * Bumps the counters KEYS and publishes their new values to ARGV[1], a line `<set> <value>` each
 * (the sets' names are ARGV[2...]); returns the values. One script, so no instance can read a
 * bumped counter, nor have a PING answered, before the bump is on its way to every follower.
 */
const INVALIDATE_SCRIPT = `
local values = {}
local lines = {}
for i, key in ipairs(KEYS) do
  values[i] = redis.call('INCR', key)
  lines[i] = ARGV[i + 1] .. ' ' .. values[i]
end
redis.call('PUBLISH', ARGV[1], table.concat(lines, '\\n'))
return values
`;

/** The channel of bumped counters under `keyPrefix`. */
export function generationChannel(keyPrefix: string): string {
  return `${keyPrefix}cache:generations`;
}

function parseBumps(text: string): { sets: string[]; values: number[] } {
  const sets: string[] = [];
  const values: number[] = [];
  for (const line of text.split('\n')) {
    const space = line.lastIndexOf(' ');
    if (space <= 0) continue;
    sets.push(line.slice(0, space));
    values.push(Number(line.slice(space + 1)));
  }
  return { sets, values };
}

/**
 * Follows the channel of bumped counters on `subscriber` (a connection of its own: a subscribed
 * connection can do nothing else but PING) into `copies`, which trust what they know only while it
 * is followed: lost with the connection, followed again once it is back and subscribed. Its PING
 * is how the copies catch up: Redis answers it on that connection behind every message published
 * before, and ioredis hands them over in the order they came.
 */
export async function followGenerations(subscriber: Redis, keyPrefix: string, copies: LocalCopies): Promise<void> {
  const channel = generationChannel(keyPrefix);
  subscriber.on('message', (from: string, text: string) => {
    if (from !== channel) return;
    const { sets, values } = parseBumps(text);
    copies.learnBumped(sets, values);
  });
  const lose = (): void => copies.lose();
  // A PING or SUBSCRIBE unanswered within the command timeout: the connection stalls (Redis
  // paused for this client, a half-open link), and ioredis would keep it. What it still brings
  // would come late, so the subscription is lost, and followed again on a new connection.
  const restart = (): void => {
    lose();
    if (subscriber.status === 'ready') subscriber.disconnect(true);
  };
  const roundTrip = (): Promise<unknown> =>
    subscriber.ping().catch((error: unknown) => {
      restart();
      throw error;
    });
  // The socket's own end or error, not ioredis' 'close': that one comes in the loop's close phase,
  // after a request read in the same turn could have been answered from a copy.
  const watch = (): void => {
    subscriber.stream.once('end', lose);
    subscriber.stream.once('error', lose);
  };
  watch();
  subscriber.on('connect', watch);
  subscriber.on('close', lose);
  subscriber.on('reconnecting', lose);
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(() => copies.follow(roundTrip), restart);
  });
  await subscriber.subscribe(channel);
  copies.follow(roundTrip);
}

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
  readonly #copies: LocalCopies | undefined;
  readonly #channel: string;
  /**
   * The sets whose bump failed, each with the number of the failure that left it owed: a bump
   * sent before that failure does not pay it.
   */
  readonly #owed = new Map<string, number>();
  #failures = 0;
  /** The bump of owed sets in flight, which lookups wait for rather than send their own. */
  #paying: Promise<void> | undefined;

  /** `copies`: this instance's copies, kept current by followGenerations() on another connection. */
  constructor(redis: Redis, keyPrefix: string, copies?: LocalCopies) {
    this.#redis = redis;
    this.#prefix = `${keyPrefix}cache:`;
    this.#copies = copies;
    this.#channel = generationChannel(keyPrefix);
    redis.on('ready', () => {
      // Failing again: still owed, and the next lookup tries.
      if (this.#owed.size > 0) this.#payOwed().catch(() => {});
    });
  }

  async lookup(key: string, sets: readonly string[], partition: string): Promise<CacheLookup> {
    // A failure throws: the request is answered without the cache.
    while (this.#owed.size > 0) await this.#payOwed();
    const token = this.#copies?.token();
    const values = await this.#redis.mgetBuffer(this.#prefix + 'e:' + key, this.#verdictKey(partition), ...sets.map((set) => this.#generationKey(set)));
    const [entryBytes, verdictBytes, ...counters] = values;
    const verdict = decodeVerdict(verdictBytes);
    const found: CacheLookup = {
      entry: entryBytes == null ? undefined : decodeEntry(entryBytes),
      generations: counters.map((value) => (value == null ? 0 : Number(value.toString()))),
      ...(verdict === undefined ? {} : { verdict }),
    };
    this.#copies?.learnRead(token, key, sets, found, partition, Date.now());
    return found;
  }

  peek(key: string, sets: readonly string[], partition: string): CacheLookup | undefined {
    // The copies do not know of a write whose bump is owed.
    if (this.#owed.size > 0) return undefined;
    return this.#copies?.peek(key, sets, partition);
  }

  catchUp(): Promise<boolean> {
    return this.#copies?.catchUp() ?? Promise.resolve(false);
  }

  async recordVerdict(partition: string, verdict: Verdict): Promise<void> {
    await this.#redis.set(this.#verdictKey(partition), `${verdict.isAccepted ? 'a' : 'r'}:${verdict.at}`, 'PX', VERDICT_TTL_MS);
  }

  async store(key: string, entry: StoredResponse, ttlMs: number): Promise<void> {
    await this.#redis.set(this.#prefix + 'e:' + key, encodeEntry(entry), 'PX', Math.max(1, Math.ceil(ttlMs)));
    this.#copies?.keep(key, entry, Date.now());
  }

  async invalidate(sets: readonly string[]): Promise<void> {
    if (sets.length === 0) return;
    // What is owed goes along: one bump more of a set outdates entries that were current, no more.
    await this.#bump([...new Set([...sets, ...this.#owed.keys()])]);
  }

  /** Bumps `sets`; those it fails for are owed until a later bump of them succeeds. */
  async #bump(sets: readonly string[]): Promise<void> {
    const marks = sets.map((set) => this.#owed.get(set));
    let values: number[];
    try {
      values = (await this.#redis.eval(INVALIDATE_SCRIPT, sets.length, ...sets.map((set) => this.#generationKey(set)), this.#channel, ...sets)) as number[];
    } catch (error) {
      const failure = ++this.#failures;
      for (const set of sets) this.#owed.set(set, failure);
      throw error;
    }
    sets.forEach((set, i) => {
      if (this.#owed.get(set) === marks[i]) this.#owed.delete(set);
    });
    this.#copies?.learnBumped(sets, values.map(Number));
  }

  #payOwed(): Promise<void> {
    this.#paying ??= this.#bump([...this.#owed.keys()]).finally(() => {
      this.#paying = undefined;
    });
    return this.#paying;
  }

  async claimFill(key: string, ms: number): Promise<boolean> {
    const answer = await this.#redis.set(this.#prefix + 'f:' + key, '1', 'PX', Math.max(1, Math.ceil(ms)), 'NX');
    return answer === 'OK';
  }

  async releaseFill(key: string): Promise<void> {
    await this.#redis.del(this.#prefix + 'f:' + key);
  }

  close(): Promise<void> {
    this.#copies?.clear();
    // The connection belongs to whoever opened it (redis-connection.ts mainRedis).
    return Promise.resolve();
  }

  #verdictKey(partition: string): string {
    return `${this.#prefix}v:${partition}`;
  }

  #generationKey(set: string): string {
    return `${this.#prefix}g:${set}`;
  }
}
