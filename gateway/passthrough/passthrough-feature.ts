// The passthrough face as an edge feature: its plugin registered in its own encapsulated context
// (its content-type parsers and OData error handler stay there), with the shared breaker,
// retry policy and metrics.
import { CredentialNormaliser } from '../auth/credential-normaliser.js';
import type { GatewayFeature } from '../features.js';
import { IdempotentReads } from '../resilience/idempotent-reads.js';
import type { SharedResilience } from '../resilience/resilience-feature.js';
import { passthroughPlugin } from './passthrough-plugin.js';

export function passthroughFeature(shared: SharedResilience): GatewayFeature {
  return {
    name: 'passthrough',
    register(app, parts) {
      const { config } = parts;
      app.register(passthroughPlugin, {
        upstream: config.upstream,
        normaliser: new CredentialNormaliser(config.auth, config.upstream.credential),
        breaker: shared.breaker,
        retries: shared.retries,
        reads: new IdempotentReads(parts.artefacts.model.functionImports.map((fn) => fn.name)),
        metrics: shared.metrics,
      });
    },
  };
}
