// The gateway's metrics as a small interface: features record what happened (a request answered,
// an upstream call, a cache lookup, a rate-limit rejection, a breaker changing state) without
// knowing about Prometheus. prometheus-metrics.ts implements it with prom-client; NO_METRICS is
// the do-nothing default for code and tests that do not care.

/** Which face a request or an upstream call belongs to. */
export type Face = 'rest' | 'odata';

/** Who made an upstream call: a face, or the gateway itself (the readiness probe). */
export type UpstreamCaller = Face | 'ops';

export type CacheOutcome = 'hit' | 'miss' | 'stale';

export type BreakerState = 'closed' | 'open' | 'half-open';

/** What the read cache reports (gateway/cache/). */
export interface CacheMetrics {
  /** One cache lookup and how it ended (`stale`: served stale-if-error or while revalidating). */
  cacheLookup(face: Face, outcome: CacheOutcome): void;
}

/** What the rate limiter reports (gateway/limits/). */
export interface RateLimitMetrics {
  /** One request refused with 429; `routeClass` is the limit's class (`read`, `write`, `stopwatch`, ...). */
  rateLimited(routeClass: string): void;
}

export interface GatewayMetrics extends CacheMetrics, RateLimitMetrics {
  /** One request answered; `route` is the route pattern (never the raw URL, which may hold a key). */
  requestAnswered(route: string, method: string, status: number, seconds: number): void;
  /** One upstream call; `outcome` is the status code, or `error` when no response came. */
  upstreamCalled(face: UpstreamCaller, outcome: number | 'error', seconds: number): void;
  /** A retry of an upstream read. */
  upstreamRetried(face: UpstreamCaller): void;
  /** The circuit breaker of `upstream` (a name, not a URL with credentials) is now `state`. */
  breakerChanged(upstream: string, state: BreakerState): void;
}

const noop = (): void => {};

/** Records nothing. */
export const NO_METRICS: GatewayMetrics = {
  cacheLookup: noop,
  rateLimited: noop,
  requestAnswered: noop,
  upstreamCalled: noop,
  upstreamRetried: noop,
  breakerChanged: noop,
};
