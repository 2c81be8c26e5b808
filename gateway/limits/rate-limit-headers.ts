// The rate-limit fields of an answer. The IETF ones (draft-ietf-httpapi-ratelimit-headers,
// structured-field form), by default:
//   RateLimit-Policy: "read";q=100;w=60     the policy: quota q per window w seconds
//   RateLimit: "read";r=42;t=17             what is left (r) and seconds until the window resets (t)
// and the older ones many clients still read (`--rate-limit-headers legacy` or `both`):
//   X-RateLimit-Limit: 100, X-RateLimit-Remaining: 42, X-RateLimit-Reset: 17 (seconds)
// plus Retry-After (RFC 9110 §10.2.3) on a 429.
import type { RateLimit } from './rate-limit-config.js';
import type { WindowCount } from './counter-store.js';

export function policyField(name: string, limit: RateLimit): string {
  return `"${name}";q=${limit.limit};w=${limit.windowSeconds}`;
}

export function rateLimitField(name: string, limit: RateLimit, window: WindowCount): string {
  return `"${name}";r=${Math.max(0, limit.limit - window.count)};t=${resetSeconds(window)}`;
}

/** Whole seconds until the window ends, at least 1 (a client must not retry at once). */
export function resetSeconds(window: WindowCount): number {
  return Math.max(1, Math.ceil(window.resetMs / 1000));
}

/** X-RateLimit-Limit, -Remaining and -Reset (seconds until the window resets). */
export function legacyFields(limit: RateLimit, window: WindowCount): Array<[string, string]> {
  return [
    ['x-ratelimit-limit', String(limit.limit)],
    ['x-ratelimit-remaining', String(Math.max(0, limit.limit - window.count))],
    ['x-ratelimit-reset', String(resetSeconds(window))],
  ];
}
