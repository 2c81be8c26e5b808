// Rate limits and the upstream concurrency cap, as hooks on the root instance (both faces):
//
//   onRequest   counts the request against its budget: per key (a hash of it, never the key) and
//               route class, or per client IP when it carries no key; over budget → 429 with
//               Retry-After; every limited response carries RateLimit-Policy and RateLimit (the
//               IETF fields) and/or X-RateLimit-Limit/-Remaining/-Reset, as configured. A policy
//               has one name in the headers, the 429's text and README: its class (`read`,
//               `write`, `stopwatch`), `default` or `anonymous`.
//               A `$batch` is counted by its operations instead, once its body has been read: each
//               against its own class, as it would count alone; a batch whose operations do not
//               fit in what is left of a budget gets 429 before anything of it is forwarded, and
//               takes nothing of any budget.
//   preHandler  counts a batch's operations, then takes one of the caller's upstream slots (cache hits, answered in onRequest,
//               never get here), queued or refused beyond the cap; given back when the
//               response is finished or the connection closes.
//
// Register it before the read cache, so that cache hits count against the budget too.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BatchResources } from '../cache/batch-resources.js';
import { batchOf } from '../cache/batch-resources.js';
import type { ResourceClassifier } from '../cache/request-resources.js';
import { resourceOf } from '../cache/request-resources.js';
import { ConcurrencyLimitedError, RateLimitedError } from '../errors.js';
import type { RateLimitMetrics } from '../ops/metrics.js';
import { ConcurrencyCap } from './concurrency-cap.js';
import type { CounterStore, Taken, WindowCount } from './counter-store.js';
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

  /** Sets the limited answer's rate-limit fields, one entry per budget in the IETF ones. */
  function setFields(reply: FastifyReply, counted: ReadonlyArray<readonly [Budget, WindowCount]>): void {
    if (config.headers !== 'legacy') {
      reply.header('ratelimit-policy', counted.map(([budget]) => policyField(budget.name, budget.limit)).join(', '));
      reply.header('ratelimit', counted.map(([budget, window]) => rateLimitField(budget.name, budget.limit, window)).join(', '));
    }
    // The legacy fields have room for one policy: the one with the least left.
    const tightest = counted.reduce<readonly [Budget, WindowCount] | undefined>(
      (least, entry) => (least === undefined || entry[0].limit.limit - entry[1].count < least[0].limit.limit - least[1].count ? entry : least),
      undefined,
    );
    if (config.headers !== 'ietf' && tightest !== undefined) for (const [name, value] of legacyFields(tightest[0].limit, tightest[1])) reply.header(name, value);
  }

  async function take(request: FastifyRequest, key: string, windowMs: number, amount: number, limit: number): Promise<Taken | undefined> {
    try {
      return await counters.take(key, windowMs, amount, limit);
    } catch (error) {
      request.log.warn({ err: error }, 'rate-limit counter unavailable; batch not counted');
      return undefined;
    }
  }

  /** Counts each operation of a batch against its class's budget; all or none. */
  async function countBatch(request: FastifyRequest, reply: FastifyReply, caller: string, batch: BatchResources): Promise<void> {
    const hasKey = request.credential.key !== undefined;
    const amounts = new Map<string, { budget: Budget; amount: number }>();
    for (const [routeClass, operations] of batch.charges) {
      const budget = budgetOf(routeClass, hasKey);
      if (budget === undefined) continue;
      const entry = amounts.get(budget.name) ?? { budget, amount: 0 };
      entry.amount += operations;
      amounts.set(budget.name, entry);
    }
    const counted: Array<readonly [Budget, WindowCount]> = [];
    for (const { budget, amount } of amounts.values()) {
      const key = `${budget.name}:${caller}`;
      const windowMs = budget.limit.windowSeconds * 1000;
      const window = await take(request, key, windowMs, amount, budget.limit.limit);
      if (window === undefined) continue;
      counted.push([budget, window]);
      if (window.isTaken) continue;
      for (const [given] of counted.slice(0, -1)) {
        const back = amounts.get(given.name) as { amount: number };
        await take(request, `${given.name}:${caller}`, given.limit.windowSeconds * 1000, -back.amount, Number.MAX_SAFE_INTEGER);
      }
      setFields(reply, counted);
      metrics.rateLimited(budget.name);
      const left = Math.max(0, budget.limit.limit - window.count);
      throw new RateLimitedError(budget.name, resetSeconds(window), `the batch holds ${amount} operations of the rate limit "${budget.name}", and ${left} of its ${budget.limit.limit} per ${budget.limit.windowSeconds} s are left; nothing of the batch was sent`);
    }
    if (counted.length > 0) setFields(reply, counted);
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
    // Counted by its operations once its body is read (preHandler).
    if (resource.isBatch === true) return;
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

  app.addHook('preHandler', async (request, reply) => {
    const caller = callers.get(request);
    if (caller === undefined) return;
    const batch = hasBudgets ? batchOf(request) : undefined;
    if (batch !== undefined) await countBatch(request, reply, caller, batch);
    if (!cap.isActive) return;
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
