// Operating the service: /healthz (the process is up and its database answers, as before) and
// /readyz (the database answers within a deadline: a load balancer takes the process out while
// it does not) on the public port; and the admin listener (`--admin-port`) with /metrics beside
// them. As on the gateway, Prometheus text is for the operator's scraper, so the public port
// never serves it.
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../storage/database.js';
import type { ServiceMetrics } from './service-metrics.js';

const NO_STORE = 'no-store';
/** A database that takes longer than this for `select 1` is not ready. */
const READINESS_TIMEOUT_MS = 2_000;

async function databaseAnswers(database: DatabaseHandle): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the database did not answer within ${READINESS_TIMEOUT_MS} ms`), READINESS_TIMEOUT_MS);
  });
  const probe = sql`select 1`.execute(database.db).then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error.message : 'the database cannot be reached'),
  );
  try {
    return await Promise.race([probe, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function registerHealth(app: FastifyInstance, database: DatabaseHandle): void {
  const name = database.dialect.name;
  app.get('/healthz', async (_request, reply) => {
    const problem = await databaseAnswers(database);
    return reply.code(problem === undefined ? 200 : 503).header('cache-control', NO_STORE).send({ status: problem === undefined ? 'ok' : 'unavailable', database: name });
  });
  app.get('/readyz', async (_request, reply) => {
    const problem = await databaseAnswers(database);
    if (problem === undefined) return reply.header('cache-control', NO_STORE).send({ status: 'ready', database: name });
    // The driver's message names the host and port at most; the URL, and any password, never.
    return reply.code(503).header('cache-control', NO_STORE).send({ status: 'not ready', database: name, detail: problem });
  });
}

/** Request metrics and the health endpoints on the service's public instance. */
export function registerServiceOps(app: FastifyInstance, database: DatabaseHandle, metrics: ServiceMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.requestAnswered(request.url, request.method, reply.statusCode, reply.elapsedTime / 1000);
  });
  registerHealth(app, database);
}

/** The admin listener's instance: /metrics, /healthz, /readyz. Not listening yet. */
export function buildServiceAdmin(database: DatabaseHandle, metrics: ServiceMetrics): FastifyInstance {
  const admin = Fastify({ logger: false });
  registerHealth(admin, database);
  admin.get('/metrics', async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.header('content-type', metrics.registry.contentType).header('cache-control', NO_STORE).send(text);
  });
  return admin;
}
