// The gateway's configuration: read once at the edge (CLI flags, later a config file) and passed
// in, so no module below reads process.env or argv itself.
import type { QueryLimits } from '../odata/limits.js';
import type { AuthConfig } from './auth/auth-config.js';
import { DEFAULT_AUTH_CONFIG } from './auth/auth-config.js';
import type { CacheConfig } from './cache/cache-config.js';
import { DEFAULT_CACHE_CONFIG } from './cache/cache-config.js';
import type { RedisConfig } from './cache/redis-connection.js';
import { DEFAULT_REDIS_CONFIG } from './cache/redis-connection.js';
import type { RateLimitConfig } from './limits/rate-limit-config.js';
import { DEFAULT_RATE_LIMIT_CONFIG } from './limits/rate-limit-config.js';
import type { OpsConfig } from './ops/ops-config.js';
import { DEFAULT_OPS_CONFIG } from './ops/ops-config.js';
import type { ResilienceConfig } from './resilience/resilience-config.js';
import { DEFAULT_RESILIENCE_CONFIG } from './resilience/resilience-config.js';

/** How the upstream's documents are read and its request bodies written. */
export type UpstreamFormat = 'json' | 'atom';

/** The verb of a partial update: V2's MERGE, or PATCH (which some V2 servers prefer). */
export type UpdateMethod = 'merge' | 'patch';

/** The one form in which the gateway hands the caller's API key to the upstream. */
export type CredentialForm = 'header' | 'basic' | 'bearer' | 'query';

export interface UpstreamCredentialConfig {
  readonly form: CredentialForm;
  /** Header name for the `header` form. */
  readonly headerName: string;
  /** Query parameter name for the `query` form (the upstream grants reads only with it). */
  readonly queryName: string;
}

export interface UpstreamConfig {
  /** The OData service root, e.g. `http://127.0.0.1:4004/V1/Api.svc`. */
  readonly url: string;
  readonly format: UpstreamFormat;
  readonly updateMethod: UpdateMethod;
  readonly credential: UpstreamCredentialConfig;
  readonly connectTimeoutMs: number;
  /** Longest wait for the upstream's response headers, and between body chunks. */
  readonly requestTimeoutMs: number;
  /** Keep-alive connections to the upstream. */
  readonly connections: number;
  /** Upstream bodies above this are refused (502) rather than buffered. */
  readonly maxResponseBytes: number;
}

export interface GatewayConfig {
  readonly host: string;
  readonly port: number;
  readonly upstream: UpstreamConfig;
  /** Request bodies above this are refused with 413. */
  readonly bodyLimitBytes: number;
  /**
   * Key that signs list cursors. Replicas behind one load balancer need the same secret; when
   * absent, each process makes its own (cursors then only work on the process that wrote them).
   */
  readonly cursorSecret: string | undefined;
  /** Property whose value versions an entity when the upstream sends no ETag. */
  readonly etagProperty: string;
  /** How long shutdown waits for in-flight requests before closing anyway (ms). */
  readonly shutdownGraceMs: number;
  /** Believe X-Forwarded-Proto/-Host (behind a proxy). */
  readonly trustProxy: boolean;
  /** Serve `/docs` (the API reference page). `/openapi.json` is always served. */
  readonly docs: boolean;
  /** pino level: fatal, error, warn, info, debug, trace or silent. */
  readonly logLevel: string;
  /** Limits on `filter`, `orderBy`, `expand` (odata/ defaults when absent). */
  readonly queryLimits: Partial<QueryLimits>;
  /** The read cache (gateway/cache/). */
  readonly cache: CacheConfig;
  /** Rate limits and the upstream concurrency cap (gateway/limits/). */
  readonly rateLimit: RateLimitConfig;
  /** Shared state of several gateway instances (cache, rate-limit counters); no URL = in-process. */
  readonly redis: RedisConfig;
  /** Caller key forms and the optional gateway-level key check (gateway/auth/). */
  readonly auth: AuthConfig;
  /** Retries, circuit breaker, load shedding (gateway/resilience/). */
  readonly resilience: ResilienceConfig;
  /** /metrics, /healthz, /readyz (gateway/ops/). */
  readonly ops: OpsConfig;
}

export const DEFAULT_UPSTREAM_CONFIG: Omit<UpstreamConfig, 'url'> = {
  format: 'json',
  updateMethod: 'merge',
  credential: { form: 'header', headerName: 'X-ServiceApiKey', queryName: 'ApiKey' },
  connectTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
  connections: 32,
  maxResponseBytes: 32 * 1024 * 1024,
};

export const DEFAULT_GATEWAY_CONFIG: Omit<GatewayConfig, 'upstream'> = {
  host: '127.0.0.1',
  port: 8080,
  bodyLimitBytes: 1024 * 1024,
  cursorSecret: undefined,
  etagProperty: 'LastChangeTime',
  shutdownGraceMs: 10_000,
  trustProxy: false,
  docs: true,
  logLevel: 'info',
  queryLimits: {},
  cache: DEFAULT_CACHE_CONFIG,
  rateLimit: DEFAULT_RATE_LIMIT_CONFIG,
  redis: DEFAULT_REDIS_CONFIG,
  auth: DEFAULT_AUTH_CONFIG,
  resilience: DEFAULT_RESILIENCE_CONFIG,
  ops: DEFAULT_OPS_CONFIG,
};

export interface GatewayConfigInput extends Partial<Omit<GatewayConfig, 'upstream' | 'cache' | 'rateLimit' | 'redis' | 'auth' | 'resilience' | 'ops'>> {
  readonly upstream: Partial<UpstreamConfig> & { readonly url: string };
  readonly cache?: Partial<CacheConfig>;
  readonly rateLimit?: Partial<RateLimitConfig>;
  readonly redis?: Partial<RedisConfig>;
  readonly auth?: Partial<AuthConfig>;
  readonly resilience?: { readonly [K in keyof ResilienceConfig]?: Partial<ResilienceConfig[K]> };
  readonly ops?: Partial<OpsConfig>;
}

/** A whole configuration from what was given; the rest are defaults. */
export function gatewayConfig(input: GatewayConfigInput): GatewayConfig {
  const { upstream, cache, rateLimit, redis, auth, resilience, ops, ...rest } = input;
  return {
    ...DEFAULT_GATEWAY_CONFIG,
    ...rest,
    cache: { ...DEFAULT_CACHE_CONFIG, ...cache },
    rateLimit: { ...DEFAULT_RATE_LIMIT_CONFIG, ...rateLimit },
    redis: { ...DEFAULT_REDIS_CONFIG, ...redis },
    auth: { ...DEFAULT_AUTH_CONFIG, ...auth },
    resilience: {
      retry: { ...DEFAULT_RESILIENCE_CONFIG.retry, ...resilience?.retry },
      breaker: { ...DEFAULT_RESILIENCE_CONFIG.breaker, ...resilience?.breaker },
      loadShedding: { ...DEFAULT_RESILIENCE_CONFIG.loadShedding, ...resilience?.loadShedding },
    },
    ops: { ...DEFAULT_OPS_CONFIG, ...ops },
    upstream: {
      ...DEFAULT_UPSTREAM_CONFIG,
      ...upstream,
      credential: { ...DEFAULT_UPSTREAM_CONFIG.credential, ...upstream.credential },
      url: upstream.url.replace(/\/+$/, ''),
    },
  };
}
