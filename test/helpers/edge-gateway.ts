// The gateway's edge (OData passthrough, auth normalisation, resilience, operations) on a bare
// Fastify in front of an upstream, listening on loopback: what the passthrough, auth, resilience
// and ops suites drive with real HTTP. The whole gateway (REST face included) is
// test/helpers/gateway.ts.
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_AUTH_CONFIG } from '../../gateway/auth/auth-config.js';
import type { AuthConfig } from '../../gateway/auth/auth-config.js';
import { CredentialNormaliser } from '../../gateway/auth/credential-normaliser.js';
import type { UpstreamConfig } from '../../gateway/config.js';
import { DEFAULT_UPSTREAM_CONFIG } from '../../gateway/config.js';
import { sendFrameworkError } from '../../gateway/face-refusal.js';
import { passthroughPlugin } from '../../gateway/passthrough/passthrough-plugin.js';
import { CircuitBreaker } from '../../gateway/resilience/circuit-breaker.js';
import { IdempotentReads } from '../../gateway/resilience/idempotent-reads.js';
import type { ResilienceConfig } from '../../gateway/resilience/resilience-config.js';
import { DEFAULT_RESILIENCE_CONFIG } from '../../gateway/resilience/resilience-config.js';
import { RetryPolicy } from '../../gateway/resilience/retry-policy.js';
import { NO_METRICS } from '../../gateway/ops/metrics.js';
import type { GatewayMetrics } from '../../gateway/ops/metrics.js';
import { model } from '../../generated/model.js';

export interface EdgeOptions {
  readonly upstream?: Partial<UpstreamConfig>;
  readonly auth?: Partial<AuthConfig>;
  readonly resilience?: Partial<ResilienceConfig>;
  readonly metrics?: GatewayMetrics;
}

export interface TestEdge {
  readonly app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** `http://127.0.0.1:<port>/V1/Api.svc` */
  readonly root: string;
  readonly breaker: CircuitBreaker;
  close(): Promise<void>;
}

export async function startEdge(upstreamRoot: string, options: EdgeOptions = {}): Promise<TestEdge> {
  const upstream: UpstreamConfig = { ...DEFAULT_UPSTREAM_CONFIG, ...options.upstream, url: upstreamRoot };
  const resilience = { ...DEFAULT_RESILIENCE_CONFIG, ...options.resilience };
  const metrics = options.metrics ?? NO_METRICS;
  const breaker = new CircuitBreaker(new URL(upstreamRoot).origin, resilience.breaker, metrics);
  const app = Fastify({ logger: false, frameworkErrors: sendFrameworkError });
  await app.register(passthroughPlugin, {
    upstream,
    normaliser: new CredentialNormaliser({ ...DEFAULT_AUTH_CONFIG, ...options.auth }, upstream.credential),
    breaker,
    retries: new RetryPolicy(resilience.retry),
    reads: new IdempotentReads(model.functionImports.map((fn) => fn.name)),
    metrics,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const origin = `http://127.0.0.1:${address.port}`;
  return { app, origin, root: `${origin}/V1/Api.svc`, breaker, close: () => app.close() };
}
