// The rate limiter's refusals, as typed gateway errors (status, problem type, title), turned into
// the face's error format by refusal.ts.
import { GatewayError } from '../errors.js';

/** The caller used up its budget for this class of requests. */
export class RateLimitedError extends GatewayError {
  override readonly name = 'RateLimitedError';
  constructor(
    readonly routeClass: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, 'rate-limited', 'Too many requests', `the rate limit of ${routeClass} requests for this key is used up; retry in ${retryAfterSeconds} s`);
  }
}

/** The caller already has as many requests at the upstream as it may (and the line is full). */
export class ConcurrencyLimitedError extends GatewayError {
  override readonly name = 'ConcurrencyLimitedError';
  constructor(
    readonly retryAfterSeconds: number,
    reason: string,
  ) {
    super(429, 'concurrency-limited', 'Too many concurrent requests', reason);
  }
}
