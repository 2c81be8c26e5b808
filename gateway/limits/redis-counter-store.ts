// Rate-limit counters in Redis, shared by every gateway instance: one Lua script increments and
// starts the window atomically, so two gateways with a budget of 100 let exactly 100 through.
import type { Redis } from 'ioredis';
import type { CounterStore, WindowCount } from './counter-store.js';

const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

type HitCommand = (key: string, windowMs: number) => Promise<[number, number]>;

export class RedisCounterStore implements CounterStore {
  readonly #hit: HitCommand;
  readonly #prefix: string;

  constructor(redis: Redis, keyPrefix: string) {
    redis.defineCommand('timegateRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    const command = (redis as unknown as Record<string, HitCommand>)['timegateRateLimitHit'] as HitCommand;
    this.#hit = command.bind(redis);
    this.#prefix = `${keyPrefix}rl:`;
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const [count, resetMs] = await this.#hit(this.#prefix + key, windowMs);
    return { count, resetMs };
  }

  close(): Promise<void> {
    // The connection belongs to whoever opened it.
    return Promise.resolve();
  }
}
