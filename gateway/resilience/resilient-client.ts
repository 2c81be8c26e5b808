// The REST face's upstream client wrapped with the breaker and retries (as undici's RetryAgent
// wraps a dispatcher): the breaker refuses calls while open; idempotent reads that fail in
// transport or with 502/503/504 are retried with backoff within the budget; every call's
// outcome and duration is recorded.
import { BadGatewayError, GatewayTimeoutError } from '../errors.js';
import type { GatewayMetrics } from '../ops/metrics.js';
import type { UpstreamClient, UpstreamRequest, UpstreamResponse } from '../upstream/upstream-client.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import { isFailureStatus } from './circuit-breaker.js';
import type { IdempotentReads } from './idempotent-reads.js';
import { retryAfterSeconds, UpstreamUnavailableError } from './resilience-errors.js';
import type { RetryPolicy } from './retry-policy.js';

export interface ResilienceParts {
  readonly breaker: CircuitBreaker;
  readonly retries: RetryPolicy;
  readonly reads: IdempotentReads;
  readonly metrics: GatewayMetrics;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A failure of the upstream itself (as opposed to the client's request being refused). */
function isTransportFailure(error: unknown): boolean {
  return error instanceof BadGatewayError || error instanceof GatewayTimeoutError;
}

export function createResilientClient(inner: UpstreamClient, parts: ResilienceParts): UpstreamClient {
  const { breaker, retries, reads, metrics } = parts;

  async function attempt(request: UpstreamRequest): Promise<UpstreamResponse> {
    const started = performance.now();
    try {
      const response = await inner.send(request);
      metrics.upstreamCalled('rest', response.status, (performance.now() - started) / 1000);
      return response;
    } catch (error) {
      metrics.upstreamCalled('rest', 'error', (performance.now() - started) / 1000);
      throw error;
    }
  }

  return {
    async send(request) {
      const permit = breaker.acquire();
      if (!permit.allowed) throw new UpstreamUnavailableError(retryAfterSeconds(permit.retryAfterMs));
      const mayRetry = retries.mayRetry(request.method, reads.isIdempotentRead(request.method, request.path));
      if (mayRetry) retries.budget.deposit();
      for (let retry = 1; ; retry++) {
        let outcome: { response: UpstreamResponse } | { error: unknown };
        try {
          outcome = { response: await attempt(request) };
        } catch (error) {
          outcome = { error };
        }
        const failed = 'error' in outcome ? isTransportFailure(outcome.error) : isFailureStatus(outcome.response.status);
        const delay = failed && mayRetry && !permit.isProbe ? retries.delayBeforeRetry(retry) : undefined;
        if (delay === undefined) {
          if (failed) breaker.failed();
          else if ('error' in outcome) breaker.released();
          else breaker.succeeded();
          if ('error' in outcome) throw outcome.error;
          return outcome.response;
        }
        metrics.upstreamRetried('rest');
        await sleep(delay);
      }
    },
    close: () => inner.close(),
  };
}
