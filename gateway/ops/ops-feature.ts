// Operations as an edge feature: request ids echoed, requests counted and timed, /metrics,
// /healthz and /readyz. First in the list, so its timing covers every other feature's work.
import type { GatewayFeature } from '../features.js';
import { registerOps } from './ops-plugin.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';

export function opsFeature(metrics: PrometheusMetrics): GatewayFeature {
  return {
    name: 'ops',
    register(app, parts) {
      registerOps(app, { config: parts.config.ops, metrics, upstream: parts.upstream });
    },
  };
}
