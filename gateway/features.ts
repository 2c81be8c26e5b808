// The edge features of the gateway beside the REST face (issue 6: OData passthrough, read cache,
// rate limits, resilience, metrics). Each is one entry of gatewayFeatures(); buildGateway()
// applies them in list order, before the REST face, so their hooks see every request of both
// faces and their upstream wrappers sit under every REST call.
import type { FastifyInstance } from 'fastify';
import type { ModelIndex } from '../odata/model-index.js';
import type { GatewayConfig } from './config.js';
import type { GatewayArtefacts } from './model-artefacts.js';
import type { UpstreamClient } from './upstream/upstream-client.js';
import { authFeature } from './auth/auth-feature.js';
import { cacheFeature } from './cache/cache-feature.js';
import { rateLimitFeature } from './limits/rate-limit-feature.js';
import { opsFeature } from './ops/ops-feature.js';
import { createPrometheusMetrics } from './ops/prometheus-metrics.js';
import { passthroughFeature } from './passthrough/passthrough-feature.js';
import { CircuitBreaker } from './resilience/circuit-breaker.js';
import { resilienceFeature } from './resilience/resilience-feature.js';
import { RetryPolicy } from './resilience/retry-policy.js';

/** What a feature may read while it registers. */
export interface GatewayParts {
  readonly config: GatewayConfig;
  readonly artefacts: GatewayArtefacts;
  readonly index: ModelIndex;
}

export interface GatewayFeature {
  readonly name: string;
  /**
   * Wraps the REST face's upstream client (a cache, retries, a circuit breaker), as undici's
   * dispatchers wrap each other. Applied in list order: the last feature's wrapper is outermost.
   */
  wrapUpstream?(client: UpstreamClient, parts: GatewayParts): UpstreamClient;
  /**
   * Adds hooks and routes on the root instance. Hooks added here (or through a fastify-plugin
   * wrapped plugin) apply to every route of the gateway, both faces; routes are the feature's
   * own (`/V1/Api.svc/*`, `/metrics`, `/healthz`).
   */
  register?(app: FastifyInstance, parts: GatewayParts & { readonly upstream: UpstreamClient }): void;
}

/**
 * The features configured for this gateway, in the order they wrap and hook: operations first
 * (its timing covers the rest), then load shedding, auth, rate limits, the cache, and the
 * passthrough face. One metrics registry and one circuit breaker serve them all.
 */
export function gatewayFeatures(config: GatewayConfig): GatewayFeature[] {
  const metrics = createPrometheusMetrics();
  const shared = {
    breaker: new CircuitBreaker(new URL(config.upstream.url).origin, config.resilience.breaker, metrics),
    retries: new RetryPolicy(config.resilience.retry),
    metrics,
  };
  return [
    opsFeature(metrics),
    resilienceFeature(shared),
    authFeature(),
    rateLimitFeature({ metrics }),
    cacheFeature({ metrics }),
    passthroughFeature(shared),
  ];
}
