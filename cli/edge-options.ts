// The flags of `timegate gateway` for the edge: the read cache, rate limits and the Redis they may
// share, credential freshness, CORS and the admin listener, parsed once at the edge into the
// `cache`, `rateLimit`, `redis`, `auth`, `cors` and `ops` configuration objects.
import type { AuthConfig } from '../gateway/auth/auth-config.js';
import { DEFAULT_AUTH_CONFIG } from '../gateway/auth/auth-config.js';
import type { CacheConfig } from '../gateway/cache/cache-config.js';
import { DEFAULT_CACHE_CONFIG } from '../gateway/cache/cache-config.js';
import type { CorsConfig, OpsConfig, RedisConfig } from '../gateway/config.js';
import { DEFAULT_CORS_CONFIG, DEFAULT_OPS_CONFIG, DEFAULT_REDIS_CONFIG } from '../gateway/config.js';
import type { ConcurrencyConfig, RateLimit, RateLimitConfig, RateLimitHeaders } from '../gateway/limits/rate-limit-config.js';
import { DEFAULT_RATE_LIMIT_CONFIG, parseRateLimit } from '../gateway/limits/rate-limit-config.js';
import { UsageError } from './command.js';
import { integerOption } from './options.js';

/** For node:util parseArgs. */
export const EDGE_OPTIONS = {
  'no-cache': { type: 'boolean', default: false },
  'cache-ttl': { type: 'string' },
  'cache-ttl-set': { type: 'string', multiple: true },
  'metadata-ttl': { type: 'string' },
  'stale-if-error': { type: 'string' },
  'rate-limit': { type: 'string' },
  'rate-limit-class': { type: 'string', multiple: true },
  'rate-limit-anonymous': { type: 'string' },
  'rate-limit-headers': { type: 'string' },
  concurrency: { type: 'string' },
  'concurrency-mode': { type: 'string' },
  redis: { type: 'string' },
  'redis-prefix': { type: 'string' },
  'auth-ttl': { type: 'string' },
  'cors-origin': { type: 'string', multiple: true },
  'admin-port': { type: 'string' },
  'admin-host': { type: 'string' },
} as const;

export const EDGE_USAGE = `Cache and rate limits:
  --no-cache              do not cache reads
  --cache-ttl <time>      freshness of cached reads, e.g. 30s, 5m (default ${DEFAULT_CACHE_CONFIG.defaultTtlSeconds}s; 0 = no caching)
  --cache-ttl-set <Set=time>
                          freshness for one entity set, e.g. TimeEntries=10s (repeatable)
  --metadata-ttl <time>   freshness of $metadata and the service document (default ${DEFAULT_CACHE_CONFIG.metadataTtlSeconds}s)
  --stale-if-error <time> how long an expired read may still answer while the upstream fails
                          (default ${DEFAULT_CACHE_CONFIG.staleIfErrorSeconds}s)
  --rate-limit <n/time>   requests per key (per client IP without a key), e.g. 40/1m (default: none)
  --rate-limit-class <class=n/time>
                          a budget of its own for read, write or stopwatch, e.g. write=10/1m (repeatable)
  --rate-limit-anonymous <n/time>
                          one budget per client IP for requests without a key
  --rate-limit-headers <h>
                          ietf (RateLimit, RateLimit-Policy), legacy (X-RateLimit-Limit,
                          -Remaining, -Reset) or both (default ${DEFAULT_RATE_LIMIT_CONFIG.headers})
  --concurrency <n>       requests of one key at the upstream at once (default: no cap)
  --concurrency-mode <m>  queue or reject requests beyond it (default ${DEFAULT_RATE_LIMIT_CONFIG.concurrency.mode})
  --redis <url>           share cache and rate-limit counters with other instances, e.g. redis://127.0.0.1:6379
  --redis-prefix <text>   prefix of every Redis key (default ${DEFAULT_REDIS_CONFIG.keyPrefix})
  --auth-ttl <time>       serve cached answers to a key only this long after the upstream last
                          accepted it; then ask the upstream first (default ${DEFAULT_AUTH_CONFIG.ttlSeconds}s)

Browsers and operations:
  --cors-origin <origin>  let browser apps on this origin call both faces, e.g. https://app.example
                          (repeatable, or a comma-separated list; * for any; default: CORS off)
  --admin-port <n>        serve /metrics (and /healthz, /readyz) on this port, not the public one
                          (default: no admin listener, no /metrics)
  --admin-host <addr>     address of the admin listener (default ${DEFAULT_OPS_CONFIG.adminHost})`;

export interface EdgeValues {
  readonly 'no-cache'?: boolean;
  readonly 'cache-ttl'?: string;
  readonly 'cache-ttl-set'?: readonly string[];
  readonly 'metadata-ttl'?: string;
  readonly 'stale-if-error'?: string;
  readonly 'rate-limit'?: string;
  readonly 'rate-limit-class'?: readonly string[];
  readonly 'rate-limit-anonymous'?: string;
  readonly 'rate-limit-headers'?: string;
  readonly concurrency?: string;
  readonly 'concurrency-mode'?: string;
  readonly redis?: string;
  readonly 'redis-prefix'?: string;
  readonly 'auth-ttl'?: string;
  readonly 'cors-origin'?: readonly string[];
  readonly 'admin-port'?: string;
  readonly 'admin-host'?: string;
}

export interface EdgeConfig {
  readonly cache: CacheConfig;
  readonly rateLimit: RateLimitConfig;
  readonly redis: RedisConfig;
  readonly auth: Pick<AuthConfig, 'ttlSeconds'>;
  readonly cors: CorsConfig;
  readonly ops: OpsConfig;
}

const RATE_LIMIT_HEADERS: readonly RateLimitHeaders[] = ['ietf', 'legacy', 'both'];

/** `https://app.example` (scheme, host, port; no path), or `*`. */
function corsOrigins(values: readonly string[]): string[] {
  const origins = values.flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== '');
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== origin.replace(/\/$/, '')) {
      throw new UsageError(`--cors-origin must be an origin such as https://app.example (or *), not '${origin}'`);
    }
  }
  return origins.map((origin) => origin.replace(/\/$/, ''));
}

const SECONDS_PER_UNIT: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `30s`, `5m`, `1h`, `2d`, or a bare number of seconds. */
export function durationSeconds(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const match = /^(\d+)(s|m|h|d)?$/.exec(text.trim());
  if (match === null) throw new UsageError(`--${name} must be a time such as 30s, 5m or 1h, not '${text}'`);
  return Number(match[1]) * (SECONDS_PER_UNIT[match[2] ?? 's'] as number);
}

function rateLimitOption(name: string, text: string): RateLimit {
  const limit = parseRateLimit(text);
  if (limit === undefined) throw new UsageError(`--${name} must be a count per time such as 40/1m or 5/s, not '${text}'`);
  return limit;
}

/** `name=value` of a repeatable option. */
function pair(name: string, text: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0 || eq === text.length - 1) throw new UsageError(`--${name} must be <name>=<value>, not '${text}'`);
  return [text.slice(0, eq).trim(), text.slice(eq + 1).trim()];
}

export function edgeConfig(values: EdgeValues): EdgeConfig {
  const ttlSecondsBySet: Record<string, number> = {};
  for (const text of values['cache-ttl-set'] ?? []) {
    const [set, time] = pair('cache-ttl-set', text);
    ttlSecondsBySet[set] = durationSeconds('cache-ttl-set', time, 0);
  }
  const byClass: Record<string, RateLimit> = {};
  for (const text of values['rate-limit-class'] ?? []) {
    const [routeClass, limit] = pair('rate-limit-class', text);
    byClass[routeClass] = rateLimitOption('rate-limit-class', limit);
  }
  const mode = values['concurrency-mode'] ?? DEFAULT_RATE_LIMIT_CONFIG.concurrency.mode;
  if (mode !== 'queue' && mode !== 'reject') throw new UsageError(`--concurrency-mode must be queue or reject, not '${mode}'`);
  const concurrency: ConcurrencyConfig = {
    ...DEFAULT_RATE_LIMIT_CONFIG.concurrency,
    perKey: integerOption('concurrency', values.concurrency, DEFAULT_RATE_LIMIT_CONFIG.concurrency.perKey, 0, 10_000),
    mode,
  };
  const rateLimitHeaders = values['rate-limit-headers'] ?? DEFAULT_RATE_LIMIT_CONFIG.headers;
  if (!(RATE_LIMIT_HEADERS as readonly string[]).includes(rateLimitHeaders)) throw new UsageError(`--rate-limit-headers must be one of ${RATE_LIMIT_HEADERS.join(', ')}, not '${rateLimitHeaders}'`);
  const adminPort = values['admin-port'] === undefined ? undefined : integerOption('admin-port', values['admin-port'], 0, 0, 65535);
  const redisUrl = values.redis;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) throw new UsageError(`--redis must be a redis:// or rediss:// URL, not '${redisUrl}'`);
  return {
    cache: {
      ...DEFAULT_CACHE_CONFIG,
      enabled: values['no-cache'] !== true,
      defaultTtlSeconds: durationSeconds('cache-ttl', values['cache-ttl'], DEFAULT_CACHE_CONFIG.defaultTtlSeconds),
      ttlSecondsBySet,
      metadataTtlSeconds: durationSeconds('metadata-ttl', values['metadata-ttl'], DEFAULT_CACHE_CONFIG.metadataTtlSeconds),
      staleIfErrorSeconds: durationSeconds('stale-if-error', values['stale-if-error'], DEFAULT_CACHE_CONFIG.staleIfErrorSeconds),
    },
    rateLimit: {
      byClass,
      default: values['rate-limit'] === undefined ? undefined : rateLimitOption('rate-limit', values['rate-limit']),
      anonymous: values['rate-limit-anonymous'] === undefined ? undefined : rateLimitOption('rate-limit-anonymous', values['rate-limit-anonymous']),
      concurrency,
      headers: rateLimitHeaders as RateLimitHeaders,
    },
    redis: {
      ...DEFAULT_REDIS_CONFIG,
      url: redisUrl,
      keyPrefix: values['redis-prefix'] ?? DEFAULT_REDIS_CONFIG.keyPrefix,
    },
    auth: { ttlSeconds: durationSeconds('auth-ttl', values['auth-ttl'], DEFAULT_AUTH_CONFIG.ttlSeconds) },
    cors: { ...DEFAULT_CORS_CONFIG, origins: corsOrigins(values['cors-origin'] ?? []) },
    ops: { ...DEFAULT_OPS_CONFIG, adminPort, adminHost: values['admin-host'] ?? DEFAULT_OPS_CONFIG.adminHost },
  };
}
