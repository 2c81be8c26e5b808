// The service's Prometheus metrics on prom-client, in a registry of its own (two services in one
// process, as in tests, never share counters): requests by resource, method and status and their
// latency, stopwatch starts, and the database pool. The resource label is a name from the model
// (an entity set, a function import, `$metadata`, `$batch`), or `service` for the root and
// `other` for anything else: label values stay few, and no URL, which may carry a key, becomes one.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Model } from '../../odata/model.js';
import type { PoolStats } from '../storage/dialect.js';

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STOPWATCH_START = 'StartStopWatch';

export interface ServiceMetrics {
  readonly registry: Registry;
  requestAnswered(url: string, method: string, status: number, seconds: number): void;
}

/** The resource a request URL names, as a metrics label (see the header). */
export function resourceLabel(url: string, rootPath: string, names: ReadonlySet<string>): string {
  const path = url.slice(0, (url.indexOf('?') + 1 || url.length + 1) - 1);
  if (path.length < rootPath.length || path.slice(0, rootPath.length).toLowerCase() !== rootPath.toLowerCase()) return 'other';
  const rest = path.slice(rootPath.length);
  if (rest === '' || rest === '/') return 'service';
  if (rest[0] !== '/') return 'other';
  const segment = /^\/([^/(]*)/.exec(rest)?.[1] ?? '';
  return names.has(segment) ? segment : 'other';
}

export function createServiceMetrics(model: Model, rootPath: string, poolStats: (() => PoolStats) | undefined): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'timegate_service_' });
  const names = new Set(['$metadata', '$batch', ...model.entitySets.map((set) => set.name), ...model.functionImports.map((fn) => fn.name)]);
  const labelNames = ['resource', 'method', 'status'] as const;
  const requests = new Counter({ name: 'timegate_service_requests_total', help: 'Requests answered, by resource (entity set, function import, $metadata, $batch), method and status.', labelNames, registers: [registry] });
  const seconds = new Histogram({ name: 'timegate_service_request_duration_seconds', help: 'Time to answer a request, by resource, method and status.', labelNames, buckets: LATENCY_BUCKETS, registers: [registry] });
  const stopwatchStarts = new Counter({ name: 'timegate_service_stopwatch_starts_total', help: 'Stopwatches started (StartStopWatch answered 2xx).', registers: [registry] });
  if (poolStats !== undefined) {
    new Gauge({
      name: 'timegate_service_database_pool_connections',
      help: 'Connections of the database pool by state (total, idle), and queries waiting for one (waiting).',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const stats = poolStats();
        this.set({ state: 'total' }, stats.total);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
  }
  return {
    registry,
    requestAnswered(url, method, status, elapsed) {
      const resource = resourceLabel(url, rootPath, names);
      const labels = { resource, method, status: String(status) };
      requests.inc(labels);
      seconds.observe(labels, elapsed);
      if (resource === STOPWATCH_START && status >= 200 && status < 300) stopwatchStarts.inc();
    },
  };
}
