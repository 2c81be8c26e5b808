// The rate limiter's settings (the `rateLimit` object of the gateway configuration).

/** `limit` requests per `windowSeconds`, counted from the first request of a window. */
export interface RateLimit {
  readonly limit: number;
  readonly windowSeconds: number;
}

export interface ConcurrencyConfig {
  /** Requests of one key (or client IP) at the upstream at once; 0 = no cap. */
  readonly perKey: number;
  /** Beyond the cap: wait in line (`queue`) or refuse at once with 429 (`reject`). */
  readonly mode: 'queue' | 'reject';
  /** Requests of one key that may wait; more are refused with 429. */
  readonly maxQueued: number;
  /** Longest wait in line before a 429. */
  readonly queueTimeoutMs: number;
}

export interface RateLimitConfig {
  /**
   * Limits per route class: `read`, `write`, or a function group such as `stopwatch` (the first
   * segment of its REST path). A class without its own limit counts against `default`.
   */
  readonly byClass: Readonly<Record<string, RateLimit>>;
  /** One budget per key for every class without its own limit; absent = unlimited. */
  readonly default: RateLimit | undefined;
  /** Requests without a key: one budget per client IP across all classes; absent = the class limits per IP. */
  readonly anonymous: RateLimit | undefined;
  readonly concurrency: ConcurrencyConfig;
  /** Which fields limited answers carry: the IETF RateLimit ones, the X-RateLimit ones, or both. */
  readonly headers: RateLimitHeaders;
}

export type RateLimitHeaders = 'ietf' | 'legacy' | 'both';

export const DEFAULT_RATE_LIMIT_CONFIG: RateLimitConfig = {
  byClass: {},
  default: undefined,
  anonymous: undefined,
  concurrency: { perKey: 0, mode: 'queue', maxQueued: 100, queueTimeoutMs: 10_000 },
  headers: 'ietf',
};

const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `40/1m`, `100/60s`, `5/s`: a limit and its window; undefined when it is not one. */
export function parseRateLimit(text: string): RateLimit | undefined {
  const match = /^\s*(\d+)\s*\/\s*(\d*)\s*(s|m|h|d)\s*$/i.exec(text);
  if (match === null) return undefined;
  const limit = Number(match[1]);
  const windowSeconds = Number(match[2] === '' ? 1 : match[2]) * (UNITS[(match[3] as string).toLowerCase()] as number);
  return limit > 0 && windowSeconds > 0 ? { limit, windowSeconds } : undefined;
}
