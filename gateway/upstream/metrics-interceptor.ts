// Every attempt of an upstream call, recorded where it meets the pool (the innermost interceptor):
// its face, its status (or `error` when no response came) and its time to the response headers;
// every attempt after a call's first is a retry. Attempts the breaker refused never get here.
import type { Dispatcher } from 'undici';
import type { GatewayMetrics } from '../ops/metrics.js';
import type { UpstreamCall } from './upstream-call.js';
import { ForwardingHandler, callOf } from './upstream-call.js';

class MetricsHandler extends ForwardingHandler {
  readonly #started = performance.now();
  #isRecorded = false;

  constructor(
    handler: Dispatcher.DispatchHandler,
    private readonly metrics: Pick<GatewayMetrics, 'upstreamCalled'>,
    private readonly call: UpstreamCall,
  ) {
    super(handler);
  }

  #record(outcome: number | 'error'): void {
    if (this.#isRecorded) return;
    this.#isRecorded = true;
    this.metrics.upstreamCalled(this.call.face, outcome, (performance.now() - this.#started) / 1000);
  }

  override onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    this.#record(statusCode);
    super.onResponseStart(controller, statusCode, headers, statusMessage);
  }

  override onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#record('error');
    super.onResponseError(controller, error);
  }
}

export function metricsInterceptor(metrics: Pick<GatewayMetrics, 'upstreamCalled' | 'upstreamRetried'>): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => function recordAttempt(opts, handler) {
    const call = callOf(opts);
    if (++call.attempts > 1) metrics.upstreamRetried(call.face);
    return dispatch(opts, new MetricsHandler(handler, metrics, call));
  };
}
