// When an upstream call may be tried again: only idempotent reads, only after failures that say
// nothing was done (no connection, 502/503/504), with exponential backoff and jitter, and within
// a budget (retries as a share of requests), so retries cannot multiply the load on an upstream
// that is already failing.
import type { RetryConfig } from './resilience-config.js';

const IDEMPOTENT_READS = new Set(['GET', 'HEAD']);

export class RetryBudget {
  private balance: number;
  private lastRefill: number;
  private readonly cap: number;

  constructor(
    private readonly config: RetryConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.cap = Math.max(1, config.budgetMinPerSecond * 10);
    this.balance = config.budgetMinPerSecond;
    this.lastRefill = now();
  }

  /** Every first attempt earns a share of a retry. */
  deposit(): void {
    this.balance = Math.min(this.cap, this.balance + this.config.budgetRatio);
  }

  /** Spends one retry if the budget has one. */
  withdraw(): boolean {
    const now = this.now();
    this.balance = Math.min(this.cap, this.balance + ((now - this.lastRefill) / 1000) * this.config.budgetMinPerSecond);
    this.lastRefill = now;
    if (this.balance < 1) return false;
    this.balance -= 1;
    return true;
  }
}

export class RetryPolicy {
  readonly budget: RetryBudget;

  constructor(
    private readonly config: RetryConfig,
    now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {
    this.budget = new RetryBudget(config, now);
  }

  /** Whether a request may ever be retried: `isIdempotent` is false for reads with effects (a GET function import). */
  mayRetry(method: string, isIdempotent: boolean): boolean {
    return this.config.maxRetries > 0 && isIdempotent && IDEMPOTENT_READS.has(method);
  }

  /** The wait before retry number `attempt` (1-based), or undefined when no retry is left. */
  delayBeforeRetry(attempt: number): number | undefined {
    if (attempt > this.config.maxRetries || !this.budget.withdraw()) return undefined;
    const ceiling = Math.min(this.config.maxDelayMs, this.config.baseDelayMs * 2 ** (attempt - 1));
    // "Equal jitter": half fixed, half random, so replicas do not retry in lockstep.
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }
}
