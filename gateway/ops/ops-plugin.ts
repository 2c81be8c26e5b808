// Operations on the root instance: every request's id echoed as X-Request-Id (the id comes from
// the caller's header or is generated in server.ts, and is sent upstream), every answer counted
// and timed by route pattern, and the endpoints /metrics, /healthz (the process is up) and
// /readyz (the upstream is reachable; Fastify itself answers 503 once the gateway is closing).
import type { FastifyInstance } from 'fastify';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import type { OpsConfig } from './ops-config.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';
import { checkUpstream } from './readiness.js';

export interface OpsOptions {
  readonly config: OpsConfig;
  readonly metrics: PrometheusMetrics;
  readonly upstream: UpstreamClient;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's name in metrics when its pattern is not readable (the passthrough's regex). */
    metricsRoute?: string;
  }
}

const NO_STORE = 'no-store';

export function registerOps(app: FastifyInstance, options: OpsOptions): void {
  const { config, metrics, upstream } = options;

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // While the gateway closes, answers to requests still in flight close their connection, so a
  // keep-alive client does not hold the shutdown open until the grace period ends.
  let isClosing = false;
  app.addHook('preClose', async () => {
    isClosing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (isClosing) reply.header('connection', 'close');
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.config?.metricsRoute ?? request.routeOptions.url ?? 'unmatched';
    metrics.requestAnswered(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
  });

  app.get('/healthz', async (_request, reply) => reply.header('cache-control', NO_STORE).send({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const readiness = await checkUpstream(upstream, config.readinessTimeoutMs);
    return reply
      .code(readiness.isReady ? 200 : 503)
      .header('cache-control', NO_STORE)
      .send({ status: readiness.isReady ? 'ready' : 'not ready', upstream: readiness.detail });
  });

  if (config.metrics) {
    app.get('/metrics', async (_request, reply) => {
      const text = await metrics.registry.metrics();
      return reply.header('content-type', metrics.registry.contentType).header('cache-control', NO_STORE).send(text);
    });
  }
}
