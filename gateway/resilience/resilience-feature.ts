// Resilience as an edge feature: the REST face's upstream client wrapped with the shared breaker
// and retry policy, and load shedding with @fastify/under-pressure (503 + Retry-After in the
// face's format while the event loop lags). The passthrough uses the same breaker and policy.
import underPressure from '@fastify/under-pressure';
import type { GatewayFeature } from '../features.js';
import type { GatewayMetrics } from '../ops/metrics.js';
import { sendFaceRefusal } from '../face-refusal.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import { IdempotentReads } from './idempotent-reads.js';
import type { LoadSheddingConfig } from './resilience-config.js';
import { OverloadedError } from './resilience-errors.js';
import { createResilientClient } from './resilient-client.js';
import type { RetryPolicy } from './retry-policy.js';

export interface SharedResilience {
  readonly breaker: CircuitBreaker;
  readonly retries: RetryPolicy;
  readonly metrics: GatewayMetrics;
}

function isShedding(config: LoadSheddingConfig): boolean {
  return config.maxEventLoopDelayMs > 0 || config.maxEventLoopUtilization > 0;
}

export function resilienceFeature(shared: SharedResilience): GatewayFeature {
  return {
    name: 'resilience',
    wrapUpstream(client, parts) {
      const reads = new IdempotentReads(parts.artefacts.model.functionImports.map((fn) => fn.name));
      return createResilientClient(client, { ...shared, reads });
    },
    register(app, parts) {
      const config = parts.config.resilience.loadShedding;
      if (!isShedding(config)) return;
      app.register(underPressure, {
        ...(config.maxEventLoopDelayMs > 0 ? { maxEventLoopDelay: config.maxEventLoopDelayMs } : {}),
        ...(config.maxEventLoopUtilization > 0 ? { maxEventLoopUtilization: config.maxEventLoopUtilization } : {}),
        // A lag is measured over one sample interval and acted on until the next one.
        sampleInterval: Math.max(10, Math.min(1000, config.maxEventLoopDelayMs || 250)),
        retryAfter: config.retryAfterSeconds,
        pressureHandler: (request, reply) => {
          sendFaceRefusal(new OverloadedError(config.retryAfterSeconds), request, reply);
        },
      });
    },
  };
}
