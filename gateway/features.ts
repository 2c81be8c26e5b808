// The edge features of the gateway beside the REST face: operations, CORS, request hygiene, load
// shedding, reading the caller's key, rate limits, the read cache and the OData passthrough face.
// buildGateway() registers them in list order, before the REST face, each as a plugin whose hooks
// go to the root instance, so their hooks see every request of both faces in that order; what
// they refuse, they throw as typed errors for the face's own error handler.
import type { FastifyInstance } from 'fastify';
import type { ModelIndex } from '../odata/model-index.js';
import { authFeature } from './auth/auth-feature.js';
import type { CredentialFreshness } from './auth/credential-freshness.js';
import { cacheFeature } from './cache/cache-feature.js';
import type { GatewayConfig } from './config.js';
import { corsFeature } from './cors-feature.js';
import { loadSheddingFeature } from './limits/load-shedding.js';
import { rateLimitFeature } from './limits/rate-limit-feature.js';
import type { GatewayArtefacts } from './model-artefacts.js';
import { opsFeature } from './ops/ops-plugin.js';
import type { PrometheusMetrics } from './ops/prometheus-metrics.js';
import { passthroughFeature } from './passthrough/passthrough-feature.js';
import { hygieneFeature } from './request-hygiene.js';
import type { UpstreamStack } from './upstream/upstream-dispatcher.js';

/** What a feature may use while it registers. */
export interface GatewayParts {
  readonly config: GatewayConfig;
  readonly artefacts: GatewayArtefacts;
  readonly index: ModelIndex;
  /** The one way to the upstream, for both faces. */
  readonly upstream: UpstreamStack;
  /** What the upstream last said about each credential. */
  readonly freshness: CredentialFreshness;
  readonly metrics: PrometheusMetrics;
}

export interface GatewayFeature {
  readonly name: string;
  /**
   * Adds hooks and routes. Hooks apply to every route of the gateway, both faces; routes are the
   * feature's own (`/V1/Api.svc/*`, `/healthz`), in an encapsulated plugin where they need their
   * own parsers or error handler.
   */
  register(app: FastifyInstance, parts: GatewayParts): void | Promise<void>;
}

/** What every gateway has, whatever else it is given: the REST face cannot do without them. */
export const CORE_FEATURES: readonly GatewayFeature[] = [hygieneFeature(), authFeature()];

/**
 * The features of a full gateway, in the order their hooks run: operations first (its timing
 * covers the rest), CORS (preflights need nothing else), hygiene, load shedding, the key, rate
 * limits (cache hits count), the cache, and the passthrough face.
 */
export function gatewayFeatures(): GatewayFeature[] {
  const [hygiene, auth] = CORE_FEATURES as [GatewayFeature, GatewayFeature];
  return [opsFeature(), corsFeature(), hygiene, loadSheddingFeature(), auth, rateLimitFeature(), cacheFeature(), passthroughFeature()];
}

/** `features` with the core ones in front where they are missing. */
export function withCoreFeatures(features: readonly GatewayFeature[]): GatewayFeature[] {
  const missing = CORE_FEATURES.filter((core) => !features.some((feature) => feature.name === core.name));
  return [...missing, ...features];
}
