// The one way to the upstream, for both faces: an undici Pool of keep-alive connections to the
// service root's origin, composed (as undici's `dispatcher.compose(retry(), redirect())`) with
// one interceptor per policy. From the outside in:
//
//   credential  every key carrier removed, the caller's key written in the upstream's form, the
//               upstream's verdict on it kept for the read cache
//   deadline    `--upstream-timeout` bounds the whole call, retries and waits included
//   retry       idempotent reads again after an upstream fault, within the deadline and a budget
//   breaker     fails fast while the upstream keeps failing; counts only upstream faults
//   metrics     every attempt, by face and outcome
//   ...extra    policies added by the caller (request signing, say), on each attempt as sent
//
// The REST face's client (upstream-client.ts) and the passthrough's relay (upstream-relay.ts)
// both dispatch through it, so a policy added here is one that both faces get.
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import type { CredentialFreshness } from '../auth/credential-freshness.js';
import type { UpstreamConfig } from '../config.js';
import type { GatewayMetrics } from '../ops/metrics.js';
import type { BreakerConfig } from './breaker-interceptor.js';
import { CircuitBreaker, breakerInterceptor } from './breaker-interceptor.js';
import { credentialInterceptor } from './credential-interceptor.js';
import { deadlineInterceptor } from './deadline-interceptor.js';
import { metricsInterceptor } from './metrics-interceptor.js';
import type { RetryConfig } from './retry-interceptor.js';
import { IdempotentReads, retryInterceptor } from './retry-interceptor.js';

export interface UpstreamStackOptions {
  readonly upstream: UpstreamConfig;
  readonly retry: RetryConfig;
  readonly breaker: BreakerConfig;
  /** Lower-case names of the headers a caller may send its key in (X-ServiceApiKey, aliases). */
  readonly keyHeaders: readonly string[];
  /** The upstream model's function imports: never retried. */
  readonly functionImports: readonly string[];
  readonly metrics: GatewayMetrics;
  readonly freshness: CredentialFreshness;
  /** Further policies, applied to each attempt as it is sent (innermost first). */
  readonly interceptors?: readonly Dispatcher.DispatcherComposeInterceptor[];
}

export interface UpstreamStack {
  /** What both faces dispatch through. */
  readonly dispatcher: Dispatcher;
  readonly breaker: CircuitBreaker;
  /** The service root's origin (`http://127.0.0.1:4004`) and path (`/V1/Api.svc`). */
  readonly origin: string;
  readonly rootPath: string;
  /** Closes the pool's connections once the calls in flight are answered. */
  close(): Promise<void>;
}

export function createUpstreamStack(options: UpstreamStackOptions): UpstreamStack {
  const { upstream } = options;
  const root = new URL(upstream.url);
  if (root.protocol !== 'http:' && root.protocol !== 'https:') throw new TypeError(`upstream URL must be http(s), not ${root.protocol}`);
  const rootPath = root.pathname.replace(/\/+$/, '');
  const pool = new Pool(root.origin, {
    connections: upstream.connections,
    connectTimeout: upstream.connectTimeoutMs,
    // The deadline interceptor ends a call at its deadline; these only bound an attempt that no
    // deadline watches, and the body, between chunks.
    headersTimeout: upstream.requestTimeoutMs + 1_000,
    bodyTimeout: upstream.requestTimeoutMs,
    pipelining: 1,
  });
  const breaker = new CircuitBreaker(root.origin, options.breaker, options.metrics);
  const dispatcher = pool.compose(
    ...(options.interceptors ?? []),
    metricsInterceptor(options.metrics),
    breakerInterceptor(breaker),
    retryInterceptor({ config: options.retry, reads: new IdempotentReads(options.functionImports, rootPath) }),
    deadlineInterceptor(upstream.requestTimeoutMs),
    credentialInterceptor({ credential: upstream.credential, keyHeaders: options.keyHeaders, freshness: options.freshness }),
  );
  return { dispatcher, breaker, origin: root.origin, rootPath, close: () => pool.close() };
}
