// One Redis connection for the features that share state between gateway instances (the read
// cache and the rate limiter), opened once at start-up. Commands fail fast while Redis is away
// (no offline queue, a command timeout) so that a Redis outage degrades the gateway to "no
// cache" or "limits from memory" instead of hanging requests.
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';

/** `overrides`: what one connection needs beyond these (the cache's subscriber). */
export async function openRedis(url: string, commandTimeoutMs: number, overrides: RedisOptions = {}): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 5_000,
    ...overrides,
  });
  // Connection errors surface on each command; ioredis reconnects on its own.
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (error) {
    // Stop the reconnect loop, which would keep the process alive, and say where we tried.
    redis.disconnect();
    const where = new URL(url);
    throw new Error(`cannot reach Redis at ${where.host}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return redis;
}

/** Closes a connection politely when it is up, at once when it is not (quit would fail). */
export async function closeRedis(redis: Redis): Promise<void> {
  try {
    if (redis.status === 'ready') {
      await redis.quit();
      return;
    }
  } catch {
    // fall through: drop the connection
  }
  redis.disconnect();
}
