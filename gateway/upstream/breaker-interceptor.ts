// The circuit breaker of the upstream, as an interceptor of the one dispatcher, so both faces feed
// and obey the same one: after `failureThreshold` consecutive failed attempts it opens and calls
// fail fast (503 + Retry-After) instead of piling onto a broken upstream; after `openMs` one probe
// is let through (half-open): its success closes the breaker, its failure opens it again.
//
// Only the upstream's faults count (upstream-faults.ts: no connection, a timeout, 502/503/504).
// Whatever the gateway refused never gets here, an answer of the upstream (a 401, a 404, a 500 of
// its own logic) is a success, and an attempt the client abandoned says nothing either way: no
// anonymous caller can open it (issue 32 opened it with five `Expect: 100-continue` requests).
import type { Dispatcher } from 'undici';
import { UpstreamUnavailableError, retryAfterSeconds } from '../errors.js';
import type { BreakerState, GatewayMetrics } from '../ops/metrics.js';
import type { UpstreamCall } from './upstream-call.js';
import { DETACHED_CONTROLLER, ForwardingHandler, callOf } from './upstream-call.js';
import { isFailureStatus, isUpstreamFault } from './upstream-faults.js';

export interface BreakerConfig {
  /** Consecutive failed upstream attempts that open the breaker (0: no breaker). */
  readonly failureThreshold: number;
  /** How long it stays open before one probe request is let through. */
  readonly openMs: number;
}

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

  /** Whether an attempt may go upstream now; every allowed one ends in succeeded(), failed() or released(). */
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
    if (this.currentState === 'half-open' || (this.currentState === 'closed' && this.config.failureThreshold > 0 && this.consecutiveFailures >= this.config.failureThreshold)) {
      this.openedAt = this.now();
      this.moveTo('open');
    }
  }

  /** An attempt that ended without telling anything about the upstream. */
  released(): void {
    this.isProbing = false;
  }

  private moveTo(state: BreakerState): void {
    this.currentState = state;
    this.metrics.breakerChanged(this.name, state);
  }
}

class BreakerHandler extends ForwardingHandler {
  #isCounted = false;

  constructor(
    handler: Dispatcher.DispatchHandler,
    private readonly breaker: CircuitBreaker,
    private readonly call: UpstreamCall,
  ) {
    super(handler);
  }

  #count(outcome: 'succeeded' | 'failed' | 'released'): void {
    if (this.#isCounted) return;
    this.#isCounted = true;
    this.breaker[outcome]();
  }

  override onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    this.#count(isFailureStatus(statusCode) ? 'failed' : 'succeeded');
    super.onResponseStart(controller, statusCode, headers, statusMessage);
  }

  override onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#count(isUpstreamFault(error) && !this.call.isClientGone ? 'failed' : 'released');
    super.onResponseError(controller, error);
  }
}

export function breakerInterceptor(breaker: CircuitBreaker): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => function circuitBreaker(opts, handler) {
    const permit = breaker.acquire();
    if (!permit.allowed) {
      handler.onResponseError?.(DETACHED_CONTROLLER, new UpstreamUnavailableError(retryAfterSeconds(permit.retryAfterMs)));
      return true;
    }
    return dispatch(opts, new BreakerHandler(handler, breaker, callOf(opts)));
  };
}
