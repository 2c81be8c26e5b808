// Rate-limit counters in Redis, shared by every gateway instance: one Lua script increments and
// starts the window atomically, so two gateways with a budget of 100 let exactly 100 through.
import type { Redis } from 'ioredis';
import type { CounterStore, Taken, WindowCount } from './counter-store.js';

const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

// ARGV: window ms, amount, limit. Nothing is added past the limit; nothing given back to a
// window that has ended.
const TAKE_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if (amount < 0 and ttl < 0) or current + amount > tonumber(ARGV[3]) then
  if ttl < 0 then ttl = tonumber(ARGV[1]) end
  return {current, ttl, 0}
end
local count = redis.call('INCRBY', KEYS[1], amount)
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl, 1}
`;

type TakeCommand = (key: string, windowMs: number, amount: number, limit: number) => Promise<[number, number, number]>;

type HitCommand = (key: string, windowMs: number) => Promise<[number, number]>;

export class RedisCounterStore implements CounterStore {
  readonly #hit: HitCommand;
  readonly #take: TakeCommand;
  readonly #prefix: string;

  constructor(redis: Redis, keyPrefix: string) {
    redis.defineCommand('timegateRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    const command = (redis as unknown as Record<string, HitCommand>)['timegateRateLimitHit'] as HitCommand;
    this.#hit = command.bind(redis);
    redis.defineCommand('timegateRateLimitTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.#take = ((redis as unknown as Record<string, TakeCommand>)['timegateRateLimitTake'] as TakeCommand).bind(redis);
    this.#prefix = `${keyPrefix}rl:`;
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const [count, resetMs] = await this.#hit(this.#prefix + key, windowMs);
    return { count, resetMs };
  }

  async take(key: string, windowMs: number, amount: number, limit: number): Promise<Taken> {
    const [count, resetMs, taken] = await this.#take(this.#prefix + key, windowMs, amount, limit);
    return { count, resetMs, isTaken: taken === 1 };
  }

  close(): Promise<void> {
    // The connection belongs to whoever opened it.
    return Promise.resolve();
  }
}
