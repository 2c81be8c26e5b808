// The edge features of the gateway beside the REST face (issue 6: OData passthrough, read cache,
// rate limits, resilience, metrics). Each is one entry of gatewayFeatures(); buildGateway()
// applies them in list order, before the REST face, so their hooks see every request of both
// faces and their upstream wrappers sit under every REST call.
import type { FastifyInstance } from 'fastify';
import type { ModelIndex } from '../odata/model-index.js';
import type { GatewayConfig } from './config.js';
import type { GatewayArtefacts } from './model-artefacts.js';
import type { UpstreamClient } from './upstream/upstream-client.js';

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

/** The features configured for this gateway, in the order they wrap and hook. */
export function gatewayFeatures(_config: GatewayConfig): GatewayFeature[] {
  // issue 6 adds its features here, e.g. passthroughFeature(config), cacheFeature(config), ...
  return [];
}
