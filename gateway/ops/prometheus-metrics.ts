// GatewayMetrics on prom-client, in a registry of its own (two gateways in one process, as in
// tests, never share counters). Route labels are route patterns, never raw URLs: label values
// stay few, and a URL could carry a key.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BreakerState, CacheOutcome, Face, GatewayMetrics, UpstreamCaller } from './metrics.js';

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const BREAKER_STATES: readonly BreakerState[] = ['closed', 'half-open', 'open'];

export interface PrometheusMetrics extends GatewayMetrics {
  readonly registry: Registry;
}

export function createPrometheusMetrics(options: { readonly processMetrics?: boolean } = {}): PrometheusMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'timegate_gateway_' });
  const requests = new Counter({ name: 'timegate_gateway_requests_total', help: 'Requests answered, by route pattern, method and status.', labelNames: ['route', 'method', 'status'], registers: [registry] });
  const requestSeconds = new Histogram({ name: 'timegate_gateway_request_duration_seconds', help: 'Time to answer a request, by route pattern, method and status.', labelNames: ['route', 'method', 'status'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const upstreamSeconds = new Histogram({ name: 'timegate_gateway_upstream_duration_seconds', help: 'Upstream calls until their response headers, by face and status (or error).', labelNames: ['face', 'outcome'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const retries = new Counter({ name: 'timegate_gateway_upstream_retries_total', help: 'Retries of idempotent upstream reads, by face.', labelNames: ['face'], registers: [registry] });
  const cacheLookups = new Counter({ name: 'timegate_gateway_cache_lookups_total', help: 'Read-cache lookups, by face and outcome (hit, miss, stale).', labelNames: ['face', 'outcome'], registers: [registry] });
  const rateLimited = new Counter({ name: 'timegate_gateway_rate_limited_total', help: 'Requests refused with 429, by route class.', labelNames: ['route_class'], registers: [registry] });
  const breaker = new Gauge({ name: 'timegate_gateway_circuit_breaker_state', help: 'Circuit breaker per upstream: 1 for its current state, 0 for the others.', labelNames: ['upstream', 'state'], registers: [registry] });

  return {
    registry,
    requestAnswered(route, method, status, seconds) {
      const labels = { route, method, status: String(status) };
      requests.inc(labels);
      requestSeconds.observe(labels, seconds);
    },
    upstreamCalled(face: UpstreamCaller, outcome, seconds) {
      upstreamSeconds.observe({ face, outcome: String(outcome) }, seconds);
    },
    upstreamRetried(face: UpstreamCaller) {
      retries.inc({ face });
    },
    cacheLookup(face: Face, outcome: CacheOutcome) {
      cacheLookups.inc({ face, outcome });
    },
    rateLimited(routeClass) {
      rateLimited.inc({ route_class: routeClass });
    },
    breakerChanged(upstream, state) {
      for (const each of BREAKER_STATES) breaker.set({ upstream, state: each }, each === state ? 1 : 0);
    },
  };
}
