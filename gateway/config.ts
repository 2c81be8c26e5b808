// The gateway's configuration: read once at the edge (CLI flags, later a config file) and passed
// in, so no module below reads process.env or argv itself.
import type { QueryLimits } from '../odata/limits.js';
import type { AuthConfig } from './auth/auth-config.js';
import { DEFAULT_AUTH_CONFIG } from './auth/auth-config.js';
import type { CacheConfig } from './cache/cache-config.js';
import { DEFAULT_CACHE_CONFIG } from './cache/cache-config.js';
import type { RateLimitConfig } from './limits/rate-limit-config.js';
import { DEFAULT_RATE_LIMIT_CONFIG } from './limits/rate-limit-config.js';
import type { BreakerConfig } from './upstream/breaker-interceptor.js';
import type { RetryConfig } from './upstream/retry-interceptor.js';

// The settings of the features whose modules load Fastify plugins or ioredis are declared here,
// so that reading a command line (and answering --help) loads none of them.

/** The Redis connection of the shared stores (cache/redis-connection.ts). */
export interface RedisConfig {
  /** `redis://host:port/db`; absent = in-process stores. */
  readonly url: string | undefined;
  /** Prefix of every key, so several deployments (or test runs) can share one Redis. */
  readonly keyPrefix: string;
  readonly commandTimeoutMs: number;
}

export const DEFAULT_REDIS_CONFIG: RedisConfig = { url: undefined, keyPrefix: 'timegate:', commandTimeoutMs: 1_000 };

/** CORS (cors-feature.ts). */
export interface CorsConfig {
  /** Origins allowed to call (`https://app.example`), or `*` for any; empty: CORS off. */
  readonly origins: readonly string[];
  /** How long a browser may keep a preflight's answer. */
  readonly maxAgeSeconds: number;
}

export const DEFAULT_CORS_CONFIG: CorsConfig = { origins: [], maxAgeSeconds: 600 };

/** Load shedding (limits/load-shedding.ts). */
export interface LoadSheddingConfig {
  /** Refuse new requests (503) while the event loop lags more than this (0: off). */
  readonly maxEventLoopDelayMs: number;
  /** ...or while its utilisation is above this fraction (0: off). */
  readonly maxEventLoopUtilization: number;
  /** Retry-After of a shed request. */
  readonly retryAfterSeconds: number;
}

export const DEFAULT_LOAD_SHEDDING_CONFIG: LoadSheddingConfig = { maxEventLoopDelayMs: 1_000, maxEventLoopUtilization: 0, retryAfterSeconds: 5 };

/** The operations endpoints and the admin listener (ops/ops-plugin.ts). */
export interface OpsConfig {
  /** Serve Prometheus metrics at /metrics on the admin listener. */
  readonly metrics: boolean;
  /** /readyz asks the upstream for its service document; this long at most (ms). */
  readonly readinessTimeoutMs: number;
  /** Port of the admin listener (/metrics, /healthz, /readyz); undefined: none. */
  readonly adminPort: number | undefined;
  readonly adminHost: string;
}

export const DEFAULT_OPS_CONFIG: OpsConfig = {
  metrics: true,
  readinessTimeoutMs: 2_000,
  adminPort: undefined,
  adminHost: '127.0.0.1',
};

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
  /**
   * The deadline of a whole upstream call (`--upstream-timeout`): from the call until the
   * response headers, every retry and backoff included; also the longest gap between body chunks.
   */
  readonly requestTimeoutMs: number;
  /** Keep-alive connections to the upstream. */
  readonly connections: number;
  /** Upstream bodies above this are refused (502) rather than buffered. */
  readonly maxResponseBytes: number;
  /**
   * The upstream writes the gateway's root into its answers itself: it believes the
   * X-Forwarded-Host/-Proto the gateway sends and serves at the gateway's root path (our service
   * with --trust-proxy, as `timegate start` runs it). Its bodies are then relayed untouched.
   */
  readonly writesGatewayRoot: boolean;
}

/** How the gateway treats a struggling upstream (upstream/) and its own overload (limits/). */
export interface ResilienceConfig {
  readonly retry: RetryConfig;
  readonly breaker: BreakerConfig;
  readonly loadShedding: LoadSheddingConfig;
}

export const DEFAULT_RESILIENCE_CONFIG: ResilienceConfig = {
  retry: { maxRetries: 2, baseDelayMs: 50, maxDelayMs: 1_000, budgetRatio: 0.2, budgetMinPerSecond: 10 },
  breaker: { failureThreshold: 5, openMs: 10_000 },
  loadShedding: DEFAULT_LOAD_SHEDDING_CONFIG,
};

export interface GatewayConfig {
  readonly host: string;
  readonly port: number;
  readonly upstream: UpstreamConfig;
  /** Request bodies above this are refused with 413. */
  readonly bodyLimitBytes: number;
  /**
   * A request (headers and body) must have arrived whole within this many ms; a client still
   * sending then gets 408 and loses the connection (slowloris). Answers are not limited.
   */
  readonly requestTimeoutMs: number;
  /**
   * Key that signs list cursors. Replicas behind one load balancer need the same secret; when
   * absent, each process makes its own (cursors then only work on the process that wrote them).
   */
  readonly cursorSecret: string | undefined;
  /** Property whose value versions an entity when the upstream sends no ETag. */
  readonly etagProperty: string;
  /** How long shutdown waits for in-flight requests before closing anyway (ms). */
  readonly shutdownGraceMs: number;
  /** Believe the one proxy in front: X-Forwarded-Proto/-Host, and the address it appended to X-Forwarded-For. */
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
  /** Retries, circuit breaker (gateway/upstream/), load shedding (gateway/limits/). */
  readonly resilience: ResilienceConfig;
  /** /metrics on the admin port, /healthz, /readyz (gateway/ops/). */
  readonly ops: OpsConfig;
  /** Browser apps on other origins (cors-feature.ts). */
  readonly cors: CorsConfig;
}

export const DEFAULT_UPSTREAM_CONFIG: Omit<UpstreamConfig, 'url'> = {
  format: 'json',
  updateMethod: 'merge',
  credential: { form: 'header', headerName: 'X-ServiceApiKey', queryName: 'ApiKey' },
  connectTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
  connections: 32,
  maxResponseBytes: 32 * 1024 * 1024,
  writesGatewayRoot: false,
};

export const DEFAULT_GATEWAY_CONFIG: Omit<GatewayConfig, 'upstream'> = {
  host: '127.0.0.1',
  port: 8080,
  bodyLimitBytes: 1024 * 1024,
  // nginx's client_header_timeout and client_body_timeout are 60 s each.
  requestTimeoutMs: 60_000,
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
  cors: DEFAULT_CORS_CONFIG,
};

export interface GatewayConfigInput extends Partial<Omit<GatewayConfig, 'upstream' | 'cache' | 'rateLimit' | 'redis' | 'auth' | 'resilience' | 'ops' | 'cors'>> {
  readonly upstream: Partial<UpstreamConfig> & { readonly url: string };
  readonly cache?: Partial<CacheConfig>;
  readonly rateLimit?: Partial<RateLimitConfig>;
  readonly redis?: Partial<RedisConfig>;
  readonly auth?: Partial<AuthConfig>;
  readonly resilience?: { readonly [K in keyof ResilienceConfig]?: Partial<ResilienceConfig[K]> };
  readonly ops?: Partial<OpsConfig>;
  readonly cors?: Partial<CorsConfig>;
}

/** A whole configuration from what was given; the rest are defaults. */
export function gatewayConfig(input: GatewayConfigInput): GatewayConfig {
  const { upstream, cache, rateLimit, redis, auth, resilience, ops, cors, ...rest } = input;
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
    cors: { ...DEFAULT_CORS_CONFIG, ...cors },
    upstream: {
      ...DEFAULT_UPSTREAM_CONFIG,
      ...upstream,
      credential: { ...DEFAULT_UPSTREAM_CONFIG.credential, ...upstream.credential },
      url: upstream.url.replace(/\/+$/, ''),
    },
  };
}
