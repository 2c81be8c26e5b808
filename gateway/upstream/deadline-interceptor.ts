// One deadline for a whole upstream call (`--upstream-timeout`): from the moment a face hands the
// call to the dispatcher until the upstream's response headers, whatever happens in between
// (waiting for a pooled connection, every attempt, every backoff of the retry interceptor inside
// it). When it passes, the call is aborted and answered 504: a 30 s timeout is 30 s, not 30 s per
// attempt (issue 32 saw 91 s). After the headers, the body is bounded by the pool's bodyTimeout
// between chunks, so a large answer may take as long as it keeps flowing.
import type { Dispatcher } from 'undici';
import { GatewayTimeoutError } from '../errors.js';
import { DETACHED_CONTROLLER, ForwardingHandler, callOf } from './upstream-call.js';

class DeadlineHandler extends ForwardingHandler {
  #controller: Dispatcher.DispatchController | undefined;
  #timer: NodeJS.Timeout | undefined;
  #expired: GatewayTimeoutError | undefined;
  #isSettled = false;

  constructor(handler: Dispatcher.DispatchHandler, timeoutMs: number) {
    super(handler);
    this.#timer = setTimeout(() => this.#expire(), timeoutMs);
  }

  #expire(): void {
    this.#timer = undefined;
    if (this.#isSettled) return;
    this.#expired = new GatewayTimeoutError('the upstream OData service did not answer in time');
    if (this.#controller !== undefined) {
      this.#controller.abort(this.#expired);
      return;
    }
    // Still waiting for a connection: answer now, and abort the attempt when it starts.
    this.#settle();
    this.handler.onResponseError?.(DETACHED_CONTROLLER, this.#expired);
  }

  #settle(): void {
    this.#isSettled = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  override onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    if (this.#isSettled && this.#expired !== undefined) {
      controller.abort(this.#expired);
      return;
    }
    this.#controller = controller;
    super.onRequestStart(controller, context);
  }

  override onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    if (this.#isSettled) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    super.onResponseStart(controller, statusCode, headers, statusMessage);
  }

  override onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.#isSettled) super.onResponseData(controller, chunk);
  }

  override onResponseEnd(controller: Dispatcher.DispatchController, trailers: Record<string, string | string[] | undefined>): void {
    if (this.#isSettled) return;
    this.#settle();
    super.onResponseEnd(controller, trailers);
  }

  override onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#isSettled) return;
    this.#settle();
    super.onResponseError(controller, this.#expired ?? error);
  }
}

export function deadlineInterceptor(timeoutMs: number): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => function deadline(opts, handler) {
    callOf(opts).deadlineAt = performance.now() + timeoutMs;
    return dispatch(opts, new DeadlineHandler(handler, timeoutMs));
  };
}
