// How the gateway treats a struggling upstream and its own overload. Connect and response
// timeouts are the upstream's (config.upstream.connectTimeoutMs / requestTimeoutMs).

export interface RetryConfig {
  /** Retries of one idempotent read after a transport failure or a 502/503/504 (0: never). */
  readonly maxRetries: number;
  /** First backoff; each further retry doubles it (with jitter), up to maxDelayMs. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Retries allowed per request over time (0.2: at most one retry per five requests)... */
  readonly budgetRatio: number;
  /** ...plus this many retries per second whatever the traffic. */
  readonly budgetMinPerSecond: number;
}

export interface BreakerConfig {
  /** Consecutive failed upstream calls that open the breaker (0: no breaker). */
  readonly failureThreshold: number;
  /** How long it stays open before one probe request is let through. */
  readonly openMs: number;
}

export interface LoadSheddingConfig {
  /** Refuse new requests (503) while the event loop lags more than this (0: off). */
  readonly maxEventLoopDelayMs: number;
  /** ...or while its utilisation is above this fraction (0: off). */
  readonly maxEventLoopUtilization: number;
  /** Retry-After of a shed request. */
  readonly retryAfterSeconds: number;
}

export interface ResilienceConfig {
  readonly retry: RetryConfig;
  readonly breaker: BreakerConfig;
  readonly loadShedding: LoadSheddingConfig;
}

export const DEFAULT_RESILIENCE_CONFIG: ResilienceConfig = {
  retry: { maxRetries: 2, baseDelayMs: 50, maxDelayMs: 1_000, budgetRatio: 0.2, budgetMinPerSecond: 10 },
  breaker: { failureThreshold: 5, openMs: 10_000 },
  loadShedding: { maxEventLoopDelayMs: 1_000, maxEventLoopUtilization: 0, retryAfterSeconds: 5 },
};
