// The gateway with the read cache and the rate limiter in front of the real service, for the
// cache-* and rate-limit-* suites: the real REST face and OData passthrough (test/helpers/
// gateway.ts), without operations, CORS or load shedding.
import { randomBytes } from 'node:crypto';
import type { CacheConfig } from '../../gateway/cache/cache-config.js';
import { cacheFeature } from '../../gateway/cache/cache-feature.js';
import { rateLimitFeature } from '../../gateway/limits/rate-limit-feature.js';
import { passthroughFeature } from '../../gateway/passthrough/passthrough-feature.js';
import type { RateLimitConfig } from '../../gateway/limits/rate-limit-config.js';
import type { CacheOutcome, Face, GatewayMetrics } from '../../gateway/ops/metrics.js';
import { NO_METRICS } from '../../gateway/ops/metrics.js';
import type { TestDatabaseKind } from '../helpers/databases.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startTestGateway } from '../helpers/gateway.js';

export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** A key prefix no other suite or run uses, so suites can share one Redis. */
export function uniqueKeyPrefix(): string {
  return `tg-test-${randomBytes(6).toString('hex')}:`;
}

/** Metrics that remember what the cache and the limiter reported. */
export interface RecordedMetrics extends GatewayMetrics {
  readonly lookups: Array<{ face: Face; outcome: CacheOutcome }>;
  readonly rejections: string[];
}

export function recordedMetrics(): RecordedMetrics {
  const lookups: RecordedMetrics['lookups'] = [];
  const rejections: string[] = [];
  return {
    ...NO_METRICS,
    lookups,
    rejections,
    cacheLookup: (face, outcome) => lookups.push({ face, outcome }),
    rateLimited: (routeClass) => rejections.push(routeClass),
  };
}

export interface EdgeGatewayOptions {
  readonly cache?: Partial<CacheConfig>;
  readonly rateLimit?: Partial<RateLimitConfig>;
  /** Share state through Redis under this prefix. */
  readonly redisKeyPrefix?: string;
  /** Another Redis than REDIS_URL (with redisKeyPrefix). */
  readonly redisUrl?: string;
  readonly metrics?: GatewayMetrics;
}

export interface EdgeGateway extends TestGateway {
  /** `http://127.0.0.1:<port>/V1/Api.svc` on the gateway. */
  readonly odataRoot: string;
}

export async function startEdgeGateway(kind: TestDatabaseKind, options: EdgeGatewayOptions = {}): Promise<EdgeGateway> {
  const metrics = options.metrics ?? NO_METRICS;
  const started = await startTestGateway(kind, {
    config: {
      cache: options.cache ?? {},
      rateLimit: options.rateLimit ?? {},
      ...(options.redisKeyPrefix === undefined ? {} : { redis: { url: options.redisUrl ?? REDIS_URL, keyPrefix: options.redisKeyPrefix } }),
    },
    features: [rateLimitFeature({ metrics }), cacheFeature({ metrics }), passthroughFeature()],
  });
  return { ...started, odataRoot: `${started.origin}/V1/Api.svc` };
}
