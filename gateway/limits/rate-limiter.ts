// Rate limits and the upstream concurrency cap, as hooks on the root instance (both faces):
//
//   onRequest   counts the request against its budget: per key (a hash of it, never the key) and
//               route class, or per client IP when it carries no key; over budget → 429 with
//               Retry-After; every limited response carries RateLimit-Policy and RateLimit (the
//               IETF fields) and/or X-RateLimit-Limit/-Remaining/-Reset, as configured. A policy
//               has one name in the headers, the 429's text and README: its class (`read`,
//               `write`, `stopwatch`), `default` or `anonymous`.
//   preHandler  takes one of the caller's upstream slots (cache hits, answered in onRequest,
//               never get here), queued or refused beyond the cap; given back when the
//               response is finished or the connection closes.
//
// Register it before the read cache, so that cache hits count against the budget too.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ResourceClassifier } from '../cache/request-resources.js';
import { resourceOf } from '../cache/request-resources.js';
import { ConcurrencyLimitedError, RateLimitedError } from '../errors.js';
import type { RateLimitMetrics } from '../ops/metrics.js';
import { ConcurrencyCap } from './concurrency-cap.js';
import type { CounterStore, WindowCount } from './counter-store.js';
import type { RateLimit, RateLimitConfig } from './rate-limit-config.js';
import { legacyFields, policyField, rateLimitField, resetSeconds } from './rate-limit-headers.js';

export interface RateLimiterOptions {
  readonly config: RateLimitConfig;
  readonly counters: CounterStore;
  readonly classify: ResourceClassifier;
  readonly metrics: RateLimitMetrics;
}

interface Budget {
  /** The policy's name in the headers, and its counter's. */
  readonly name: string;
  readonly limit: RateLimit;
}

const ANONYMOUS_POLICY = 'anonymous';
const DEFAULT_POLICY = 'default';

export function registerRateLimiter(app: FastifyInstance, options: RateLimiterOptions): void {
  const { config, counters, classify, metrics } = options;
  const cap = new ConcurrencyCap(config.concurrency);
  const callers = new WeakMap<FastifyRequest, string>();
  const hasBudgets = config.default !== undefined || config.anonymous !== undefined || Object.keys(config.byClass).length > 0;

  const budgetOf = (routeClass: string, hasKey: boolean): Budget | undefined => {
    if (!hasKey && config.anonymous !== undefined) return { name: ANONYMOUS_POLICY, limit: config.anonymous };
    const own = config.byClass[routeClass];
    if (own !== undefined) return { name: routeClass, limit: own };
    return config.default === undefined ? undefined : { name: DEFAULT_POLICY, limit: config.default };
  };

  // Counting must not take the gateway down with Redis: without a count the request goes on.
  async function count(request: FastifyRequest, key: string, windowMs: number): Promise<WindowCount | undefined> {
    try {
      return await counters.hit(key, windowMs);
    } catch (error) {
      request.log.warn({ err: error }, 'rate-limit counter unavailable; request not counted');
      return undefined;
    }
  }

  // Without budgets or a cap there is nothing to count: no hook, not one that returns at once.
  if (!hasBudgets && !cap.isActive) return;
  app.addHook('onRequest', async (request, reply) => {
    const resource = resourceOf(request, classify);
    if (resource === undefined) return;
    // Who the request counts for: its key's hash, else its client address.
    const hasKey = request.credential.key !== undefined;
    const caller = hasKey ? request.credential.partition : `ip:${request.ip}`;
    callers.set(request, caller);
    const budget = budgetOf(resource.routeClass, hasKey);
    if (budget === undefined) return;
    const window = await count(request, `${budget.name}:${caller}`, budget.limit.windowSeconds * 1000);
    if (window === undefined) return;
    if (config.headers !== 'legacy') {
      reply.header('ratelimit-policy', policyField(budget.name, budget.limit));
      reply.header('ratelimit', rateLimitField(budget.name, budget.limit, window));
    }
    if (config.headers !== 'ietf') for (const [name, value] of legacyFields(budget.limit, window)) reply.header(name, value);
    if (window.count <= budget.limit.limit) return;
    metrics.rateLimited(resource.routeClass);
    throw new RateLimitedError(budget.name, resetSeconds(window));
  });

  if (!cap.isActive) return;
  app.addHook('preHandler', async (request, reply) => {
    const caller = callers.get(request);
    if (caller === undefined) return;
    const outcome = await cap.acquire(caller);
    if ('release' in outcome) {
      // 'close' comes once whether the response finished or the client went away.
      if (reply.raw.closed) outcome.release();
      else reply.raw.once('close', outcome.release);
      return;
    }
    metrics.rateLimited('concurrency');
    throw new ConcurrencyLimitedError(1, outcome.refused);
  });
}
