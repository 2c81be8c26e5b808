// Load shedding as an edge feature, with @fastify/under-pressure: while the event loop lags (or is
// busier than allowed), new requests are refused with 503 + Retry-After, as a typed error each
// face writes in its own format.
import underPressure from '@fastify/under-pressure';
import { OverloadedError } from '../errors.js';
import type { GatewayFeature } from '../features.js';

export function loadSheddingFeature(): GatewayFeature {
  return {
    name: 'load-shedding',
    async register(app, parts) {
      const config = parts.config.resilience.loadShedding;
      if (config.maxEventLoopDelayMs <= 0 && config.maxEventLoopUtilization <= 0) return;
      await app.register(underPressure, {
        ...(config.maxEventLoopDelayMs > 0 ? { maxEventLoopDelay: config.maxEventLoopDelayMs } : {}),
        ...(config.maxEventLoopUtilization > 0 ? { maxEventLoopUtilization: config.maxEventLoopUtilization } : {}),
        // A lag is measured over one sample interval and acted on until the next one.
        sampleInterval: Math.max(10, Math.min(1000, config.maxEventLoopDelayMs || 250)),
        retryAfter: config.retryAfterSeconds,
        // A rejection goes to the error handler of the face the request was routed to.
        pressureHandler: () => Promise.reject(new OverloadedError(config.retryAfterSeconds)),
      });
    },
  };
}
