// A circuit breaker per upstream: after `failureThreshold` consecutive failures it opens and
// callers fail fast (503 + Retry-After) instead of piling onto a broken upstream; after `openMs`
// one probe is let through (half-open): its success closes the breaker, its failure opens it again.
import type { BreakerState, GatewayMetrics } from '../ops/metrics.js';
import type { BreakerConfig } from './resilience-config.js';

export type Permit =
  | { readonly allowed: true; readonly isProbe: boolean }
  | { readonly allowed: false; readonly retryAfterMs: number };

export class CircuitBreaker {
  private currentState: BreakerState = 'closed';
  private consecutiveFailures = 0;
  private openedAt = 0;
  private isProbing = false;

  constructor(
    /** The upstream's name in metrics (its origin, never a URL with credentials). */
    readonly name: string,
    private readonly config: BreakerConfig,
    private readonly metrics: Pick<GatewayMetrics, 'breakerChanged'>,
    private readonly now: () => number = Date.now,
  ) {
    metrics.breakerChanged(name, 'closed');
  }

  get state(): BreakerState {
    return this.currentState;
  }

  /** Whether a call may go upstream now; every allowed call must end in succeeded() or failed(). */
  acquire(): Permit {
    if (this.config.failureThreshold <= 0 || this.currentState === 'closed') return { allowed: true, isProbe: false };
    const waitedMs = this.now() - this.openedAt;
    if (this.currentState === 'open' && waitedMs >= this.config.openMs) this.moveTo('half-open');
    if (this.currentState === 'half-open' && !this.isProbing) {
      this.isProbing = true;
      return { allowed: true, isProbe: true };
    }
    return { allowed: false, retryAfterMs: Math.max(1, this.config.openMs - waitedMs) };
  }

  succeeded(): void {
    this.consecutiveFailures = 0;
    this.isProbing = false;
    if (this.currentState !== 'closed') this.moveTo('closed');
  }

  failed(): void {
    this.consecutiveFailures++;
    this.isProbing = false;
    if (this.currentState === 'half-open' || (this.currentState === 'closed' && this.consecutiveFailures >= this.config.failureThreshold && this.config.failureThreshold > 0)) {
      this.openedAt = this.now();
      this.moveTo('open');
    }
  }

  /** A call that ended without telling anything about the upstream (the client went away). */
  released(): void {
    this.isProbing = false;
  }

  private moveTo(state: BreakerState): void {
    this.currentState = state;
    this.metrics.breakerChanged(this.name, state);
  }
}

/** Upstream answers that count as the upstream failing (its application errors do not). */
export function isFailureStatus(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}
