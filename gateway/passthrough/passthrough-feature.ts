// The passthrough face as an edge feature: its plugin registered in its own encapsulated context
// (its content-type parser and OData error handler stay there), over the gateway's one upstream
// dispatcher.
import { classifierOf } from '../cache/cache-feature.js';
import type { GatewayFeature } from '../features.js';
import { passthroughPlugin } from './passthrough-plugin.js';

export function passthroughFeature(): GatewayFeature {
  return {
    name: 'passthrough',
    register(app, parts) {
      app.register(passthroughPlugin, {
        upstream: parts.upstream,
        writesGatewayRoot: parts.config.upstream.writesGatewayRoot,
        batch: { classify: classifierOf(parts), maxBytes: parts.config.bodyLimitBytes },
      });
    },
  };
}
