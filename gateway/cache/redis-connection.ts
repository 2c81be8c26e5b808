// The Redis connection of the features that share state between gateway instances (the read
// cache and the rate limiter): one main connection per gateway, shared by them (mainRedis), opened
// when the gateway gets ready, so that what one finds of a stall holds for both; the cache's
// subscriber has its own (openRedis with overrides). Commands fail fast while Redis is away
// (no offline queue, a command timeout) so that a Redis outage degrades the gateway to "no
// cache" or "requests not counted" instead of hanging requests.
//
// A connection can also stall without closing (a half-open TCP link, Redis paused for it): left
// alone, ioredis would keep it, and every command on it would wait the whole command timeout for
// as long as the stall lasts. So a connection that has sent a command and hears nothing back
// within the command timeout is given up (ioredis' socketTimeout: the socket is destroyed, at the
// moment the first command times out) and a new one is opened; until a new one has answered
// (ioredis' ready check), commands fail at once, as during an outage. A command that timed out
// has had its answer (the fallback) and is not sent again on the new connection: a rate-limit hit
// would count twice, a fill claim would hold other instances back for nothing.
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';

const mainConnections = new WeakMap<FastifyInstance, Map<string, () => Promise<Redis>>>();

/**
 * The main connection of `app` to the Redis at `url`, the same for every feature that asks: opened
 * by the first call of the function returned (in an onReady hook), closed with `app`.
 */
export function mainRedis(app: FastifyInstance, url: string, commandTimeoutMs: number): () => Promise<Redis> {
  let byUrl = mainConnections.get(app);
  if (byUrl === undefined) {
    byUrl = new Map();
    mainConnections.set(app, byUrl);
  }
  let open = byUrl.get(url);
  if (open === undefined) {
    let opening: Promise<Redis> | undefined;
    open = () => (opening ??= openRedis(url, commandTimeoutMs).then((redis) => logEpisodes(app, redis)));
    // Not opened, or it failed (then nothing is open): nothing to close.
    app.addHook('onClose', () => opening?.then(closeRedis, () => {}));
    byUrl.set(url, open);
  }
  return open;
}

/**
 * Says once when the main connection is lost or stalls, and once when a new one answers: the
 * requests in between log their own fallbacks, this is the line an operator looks for.
 */
function logEpisodes(app: FastifyInstance, redis: Redis): Redis {
  let isLost = false;
  redis.on('error', (error: Error) => {
    if (!isLost) app.log.warn({ err: error }, 'Redis connection lost or stalled: the cache and the rate limits go without Redis until a new connection answers');
    isLost = true;
  });
  redis.on('ready', () => {
    if (isLost) app.log.info('Redis connection back: the cache and the rate limits use Redis again');
    isLost = false;
  });
  return redis;
}

/** `overrides`: what one connection needs beyond these (the cache's subscriber). */
export async function openRedis(url: string, commandTimeoutMs: number, overrides: RedisOptions = {}): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    socketTimeout: commandTimeoutMs,
    autoResendUnfulfilledCommands: false,
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
