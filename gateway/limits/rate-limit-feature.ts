// Rate limits and the concurrency cap as an edge feature of the gateway (features.ts): counters
// in Redis when a URL is given (exact across instances), else in memory.
import { classifierOf } from '../cache/cache-feature.js';
import { mainRedis } from '../cache/redis-connection.js';
import type { GatewayFeature } from '../features.js';
import type { RateLimitMetrics } from '../ops/metrics.js';
import type { CounterStore } from './counter-store.js';
import { MemoryCounterStore } from './memory-counter-store.js';
import { registerRateLimiter } from './rate-limiter.js';
import { RedisCounterStore } from './redis-counter-store.js';

export interface RateLimitFeatureOptions {
  readonly metrics?: RateLimitMetrics;
  readonly odataBasePath?: string;
}

export function rateLimitFeature(options: RateLimitFeatureOptions = {}): GatewayFeature {
  return {
    name: 'rate-limit',
    register(app, parts) {
      const { rateLimit, redis } = parts.config;
      let counters: CounterStore;
      if (redis.url !== undefined) {
        const main = mainRedis(app, redis.url, redis.commandTimeoutMs);
        const shared: { store?: CounterStore } = {};
        app.addHook('onReady', async () => {
          shared.store = new RedisCounterStore(await main(), redis.keyPrefix);
        });
        counters = {
          hit: (key, windowMs) => {
            if (shared.store === undefined) return Promise.reject(new Error('the rate-limit counters are not connected yet'));
            return shared.store.hit(key, windowMs);
          },
          take: (key, windowMs, amount, limit) => {
            if (shared.store === undefined) return Promise.reject(new Error('the rate-limit counters are not connected yet'));
            return shared.store.take(key, windowMs, amount, limit);
          },
          close: () => Promise.resolve(),
        };
      } else {
        // Its sweeping timer runs until the gateway closes; with Redis there is none.
        const local = new MemoryCounterStore();
        app.addHook('onClose', () => local.close());
        counters = local;
      }
      registerRateLimiter(app, {
        config: rateLimit,
        counters,
        classify: classifierOf(parts, options.odataBasePath),
        metrics: options.metrics ?? parts.metrics,
      });
    },
  };
}
