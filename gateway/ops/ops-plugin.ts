// Operating the gateway: every request's id echoed as X-Request-Id (the id comes from the
// caller's header or is generated in server.ts, and is sent upstream), every answer counted and
// timed by route pattern, /healthz (the process is up) and /readyz (the upstream is reachable;
// Fastify itself answers 503 once the gateway is closing) on the public port, and the admin
// listener (`--admin-port`) with /metrics beside them: Prometheus text is for the operator's
// scraper, not for every caller of the API, so the public port never serves it.
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { GatewayFeature, GatewayParts } from '../features.js';
import { newCall, withCall } from '../upstream/upstream-call.js';
import type { UpstreamStack } from '../upstream/upstream-dispatcher.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's name in metrics when its pattern is not readable (the passthrough's regex). */
    metricsRoute?: string;
  }
}

const NO_STORE = 'no-store';

export interface Readiness {
  readonly isReady: boolean;
  readonly detail: string;
}

/**
 * Whether the upstream answers at all: its service document, asked for through the one
 * dispatcher (an open breaker says not ready) with a deadline. Any HTTP answer below 500 (a 401
 * for the missing key included) means it is up and reachable.
 */
export async function checkUpstream(upstream: UpstreamStack, timeoutMs: number): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Readiness>((resolve) => {
    timer = setTimeout(() => resolve({ isReady: false, detail: `the upstream did not answer within ${timeoutMs} ms` }), timeoutMs);
  });
  const headers = withCall({ accept: 'application/xml', 'user-agent': 'timegate-gateway-readiness' }, newCall('ops', undefined, 'anonymous'));
  const probe = upstream.dispatcher
    .request({ method: 'GET', path: `${upstream.rootPath}/`, headers })
    .then(async (response): Promise<Readiness> => {
      await response.body.dump();
      return response.statusCode < 500
        ? { isReady: true, detail: 'the upstream answers' }
        : { isReady: false, detail: `the upstream answers ${response.statusCode}` };
    })
    .catch((error: unknown): Readiness => ({ isReady: false, detail: error instanceof Error ? error.message : 'the upstream cannot be reached' }));
  try {
    return await Promise.race([probe, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function registerHealth(app: FastifyInstance, parts: GatewayParts): void {
  app.get('/healthz', async (_request, reply) => reply.header('cache-control', NO_STORE).send({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const readiness = await checkUpstream(parts.upstream, parts.config.ops.readinessTimeoutMs);
    return reply
      .code(readiness.isReady ? 200 : 503)
      .header('cache-control', NO_STORE)
      .send({ status: readiness.isReady ? 'ready' : 'not ready', upstream: readiness.detail });
  });
}

/** Request ids, request metrics and the health endpoints on the public instance. */
export function opsFeature(): GatewayFeature {
  return {
    name: 'ops',
    register(app, parts) {
      const { metrics } = parts;
      // The hooks of every request that cannot wait for anything take Fastify's callback form:
      // an async one costs a promise and a turn of the microtask queue on each request.
      app.addHook('onRequest', (request, reply, done) => {
        reply.header('x-request-id', request.id);
        done();
      });

      // While the gateway closes, answers to requests still in flight close their connection, so a
      // keep-alive client does not hold the shutdown open until the grace period ends.
      let isClosing = false;
      app.addHook('preClose', async () => {
        isClosing = true;
      });
      app.addHook('onSend', (_request, reply, payload, done) => {
        if (isClosing) reply.header('connection', 'close');
        done(null, payload);
      });

      app.addHook('onResponse', (request, reply, done) => {
        // routeOptions is an object built on each reading: read once.
        const options = request.routeOptions;
        const route = options.config?.metricsRoute ?? options.url ?? 'unmatched';
        metrics.requestAnswered(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
        done();
      });
      registerHealth(app, parts);
    },
  };
}

/** The admin listener's instance: /metrics (when enabled), /healthz, /readyz. Not listening yet. */
export function buildAdminServer(parts: GatewayParts): FastifyInstance {
  const admin = Fastify({ logger: false });
  registerHealth(admin, parts);
  if (parts.config.ops.metrics) {
    admin.get('/metrics', async (_request, reply) => {
      const text = await parts.metrics.registry.metrics();
      return reply.header('content-type', parts.metrics.registry.contentType).header('cache-control', NO_STORE).send(text);
    });
  }
  return admin;
}
