// Retries of upstream reads, as an interceptor of the one dispatcher: only idempotent reads (GET
// and HEAD of entity sets, entities, `$metadata` and the service document, never a function
// import: the time-tracking service starts and halts stopwatches with GET), only after failures
// that say the upstream did nothing (no connection, 502/503/504), only while the call's deadline
// leaves room for the backoff and a try, and within a budget (retries as a share of requests), so
// retries cannot multiply the load on an upstream that is already failing. A failed answer is
// swallowed (its body read and dropped) only when a retry follows; the client sees one answer.
import type { Dispatcher } from 'undici';
import type { UpstreamCall } from './upstream-call.js';
import { ForwardingHandler, callOf } from './upstream-call.js';
import { isFailureStatus, isRetryableFault } from './upstream-faults.js';

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

/** Which upstream requests are idempotent reads, from the upstream model's function imports. */
export class IdempotentReads {
  private readonly functionImports: ReadonlySet<string>;

  constructor(
    functionImportNames: Iterable<string>,
    /** The service root's path (`/V1/Api.svc`): request paths are below it. */
    private readonly rootPath: string,
  ) {
    this.functionImports = new Set([...functionImportNames].map((name) => name.toLowerCase()));
  }

  isIdempotentRead(method: string, path: string): boolean {
    if (method !== 'GET' && method !== 'HEAD') return false;
    const below = path.startsWith(this.rootPath) ? path.slice(this.rootPath.length) : path;
    const trimmed = below.startsWith('/') ? below.slice(1) : below;
    const end = trimmed.search(/[(/?]/);
    return !this.functionImports.has((end < 0 ? trimmed : trimmed.slice(0, end)).toLowerCase());
  }
}

export interface RetryOptions {
  readonly config: RetryConfig;
  readonly reads: IdempotentReads;
  /** A random number in [0, 1), for the jitter. */
  readonly random?: () => number;
}

/** The stable controller the client's handler holds while attempts come and go. */
class AttemptController implements Dispatcher.DispatchController {
  target: Dispatcher.DispatchController | undefined;
  #isPaused = false;
  #onAbort: ((reason: Error) => void) | undefined;

  constructor(onAbort: (reason: Error) => void) {
    this.#onAbort = onAbort;
  }

  get aborted(): boolean {
    return this.target?.aborted ?? false;
  }
  get paused(): boolean {
    return this.#isPaused;
  }
  get reason(): Error | null {
    return this.target?.reason ?? null;
  }

  abort(reason: Error): void {
    this.#onAbort?.(reason);
    this.target?.abort(reason);
  }
  pause(): void {
    this.#isPaused = true;
    this.target?.pause();
  }
  resume(): void {
    this.#isPaused = false;
    this.target?.resume();
  }
}

class RetryHandler extends ForwardingHandler {
  readonly #controller: AttemptController;
  #retry = 0;
  #isStarted = false;
  /** An answer went to the client's handler: nothing can be tried again any more. */
  #isAnswering = false;
  /** The backoff of the retry that follows the failed answer being read and dropped now. */
  #discardingFor: number | undefined;
  #waiting: NodeJS.Timeout | undefined;
  #isDone = false;

  constructor(
    handler: Dispatcher.DispatchHandler,
    private readonly dispatch: Dispatcher.Dispatch,
    private readonly opts: Dispatcher.DispatchOptions,
    private readonly call: UpstreamCall,
    private readonly policy: RetryPolicy,
  ) {
    super(handler);
    this.#controller = new AttemptController((reason) => this.#abortWait(reason));
  }

  /** An abort (the deadline) during a backoff ends the call at once. */
  #abortWait(reason: Error): void {
    if (this.#waiting === undefined) return;
    clearTimeout(this.#waiting);
    this.#waiting = undefined;
    this.#fail(reason);
  }

  #fail(error: Error): void {
    if (this.#isDone) return;
    this.#isDone = true;
    this.handler.onResponseError?.(this.#controller, error);
  }

  #retryAfter(delayMs: number): void {
    this.#discardingFor = undefined;
    this.#waiting = setTimeout(() => {
      this.#waiting = undefined;
      try {
        this.dispatch(this.opts, this);
      } catch (error) {
        this.#fail(error as Error);
      }
    }, delayMs);
  }

  override onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#controller.target = controller;
    if (this.#controller.paused) controller.pause();
    if (this.#isStarted) return;
    this.#isStarted = true;
    super.onRequestStart(this.#controller, context);
  }

  override onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    if (isFailureStatus(statusCode)) {
      this.#discardingFor = this.policy.delayBeforeRetry(++this.#retry, this.call);
      if (this.#discardingFor !== undefined) return;
    }
    this.#isAnswering = true;
    super.onResponseStart(this.#controller, statusCode, headers, statusMessage);
  }

  override onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#discardingFor === undefined) super.onResponseData(this.#controller, chunk);
  }

  override onResponseEnd(_controller: Dispatcher.DispatchController, trailers: Record<string, string | string[] | undefined>): void {
    if (this.#discardingFor !== undefined) {
      this.#retryAfter(this.#discardingFor);
      return;
    }
    this.#isDone = true;
    super.onResponseEnd(this.#controller, trailers);
  }

  override onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#isDone) return;
    const delay = this.#isAnswering ? undefined : this.#discardingFor ?? (isRetryableFault(error) ? this.policy.delayBeforeRetry(++this.#retry, this.call) : undefined);
    if (delay === undefined) this.#fail(error);
    else this.#retryAfter(delay);
  }
}

/** When a call may be tried again, and after how long. */
class RetryPolicy {
  readonly budget: RetryBudget;

  constructor(
    private readonly config: RetryConfig,
    private readonly random: () => number,
  ) {
    this.budget = new RetryBudget(config);
  }

  #ceiling(retry: number): number {
    return Math.min(this.config.maxDelayMs, this.config.baseDelayMs * 2 ** (retry - 1));
  }

  /**
   * The wait before retry number `retry` (1-based), or undefined when there is none: no retry
   * left, the client gone, no room before the deadline, or the budget spent.
   */
  delayBeforeRetry(retry: number, call: UpstreamCall): number | undefined {
    if (retry > this.config.maxRetries || call.isClientGone || performance.now() + this.#ceiling(retry) >= call.deadlineAt) return undefined;
    if (!this.budget.withdraw()) return undefined;
    const ceiling = this.#ceiling(retry);
    // "Equal jitter": half fixed, half random, so replicas do not retry in lockstep.
    return Math.max(1, Math.round(ceiling / 2 + (this.random() * ceiling) / 2));
  }
}

export function retryInterceptor(options: RetryOptions): Dispatcher.DispatcherComposeInterceptor {
  const policy = new RetryPolicy(options.config, options.random ?? Math.random);
  return (dispatch) => function retry(opts, handler) {
    const hasBody = opts.body !== undefined && opts.body !== null && opts.body !== '';
    if (options.config.maxRetries <= 0 || hasBody || !options.reads.isIdempotentRead(opts.method, opts.path)) return dispatch(opts, handler);
    policy.budget.deposit();
    return dispatch(opts, new RetryHandler(handler, dispatch, opts, callOf(opts), policy));
  };
}
