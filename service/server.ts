// The time-tracking service as a Fastify instance: the OData V2 service of the model at
// /V1/Api.svc on the time-tracking data source, API keys, the web interface at /, health and
// metrics (ops/), request logs.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { model as timeTrackingModel } from '../generated/model.js';
import { indexModel } from '../odata/model-index.js';
import type { ServiceConfig } from './config.js';
import { SERVICE_ROOT_PATH } from './config.js';
import { Authenticator } from './http/authenticator.js';
import { registerClosingAnswers } from './http/closing-answers.js';
import { DEFAULT_KEY_HEADER, credentialOf, redactApiKey } from './http/credentials.js';
import { sendClientError, sendFrameworkError } from './odata-server/error-handler.js';
import { ForbiddenError, UnauthorizedError } from './odata-server/errors.js';
import { registerODataService } from './odata-server/plugin.js';
import { buildServiceAdmin, registerServiceOps } from './ops/ops-routes.js';
import { createServiceMetrics } from './ops/service-metrics.js';
import type { Intent } from './odata-server/plugin.js';
import type { DatabaseHandle } from './storage/database.js';
import type { Caller } from './timetracking/caller.js';
import { TimeTrackingDataSource } from './timetracking/data-source.js';
import { Administration } from './web/administration.js';
import { Bookings } from './web/bookings.js';
import { registerWebInterface } from './web/plugin.js';

export interface TlsMaterial {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

export interface BuildServiceOptions {
  readonly tls?: TlsMaterial;
  /** false: no logs (tests); default: pino at config.logLevel on stdout. */
  readonly logger?: boolean;
  /** Adds a span to every request (cli/tracing.ts), when tracing is on. */
  readonly requestSpans?: (app: FastifyInstance) => void;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** A request id: the caller's X-Request-Id when it is a sane token (the gateway sends one), else new. */
function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

function loggerOptions(config: ServiceConfig) {
  return {
    level: config.logLevel,
    serializers: {
      // The API key never reaches a log: not from the query string, and headers are not logged.
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactApiKey(request.url),
        remoteAddress: request.ip,
        userAgent: request.headers['x-useragent'] ?? request.headers['user-agent'],
      }),
    },
  };
}

export function buildService(config: ServiceConfig, database: DatabaseHandle, options: BuildServiceOptions = {}): FastifyInstance {
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    genReqId: requestId,
    clientErrorHandler: sendClientError,
    frameworkErrors: (_error, request, reply) => void sendFrameworkError(request, reply, config.authRealm),
    ...(options.tls === undefined ? {} : { https: { cert: options.tls.cert, key: options.tls.key } }),
  }) as unknown as FastifyInstance;
  options.requestSpans?.(app);

  const index = indexModel(timeTrackingModel);
  const authenticator = new Authenticator(database.db, { cacheTtlMs: config.authCacheTtlMs });
  const headerNames = [DEFAULT_KEY_HEADER, ...config.apiKeyHeaderAliases.map((name) => name.toLowerCase())];

  async function authenticate(request: FastifyRequest, intent: Intent): Promise<Caller> {
    const credential = credentialOf(request, headerNames);
    if (credential === undefined) {
      throw new UnauthorizedError({
        de: 'Ein API-Schlüssel ist erforderlich: als Kopf X-ServiceApiKey, als Passwort von HTTP Basic, als Bearer-Token oder (nur zum Lesen) als Abfrageparameter ApiKey.',
        en: 'An API key is required: send it as the X-ServiceApiKey header, as the password of HTTP Basic, as a Bearer token, or (reads only) as the ApiKey query parameter.',
      });
    }
    if (intent === 'write' && credential.form === 'query') {
      throw new ForbiddenError({
        de: 'Der Abfrageparameter ApiKey erlaubt nur Lesen; zum Schreiben den Schlüssel in einem Kopf senden.',
        en: 'The ApiKey query parameter grants read access only; send the key in a header to write.',
      });
    }
    return authenticator.callerFor(credential.key);
  }

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerClosingAnswers(app);

  const metrics = createServiceMetrics(timeTrackingModel, SERVICE_ROOT_PATH, database.poolStats);
  registerServiceOps(app, database, metrics);
  const admin = config.adminPort === undefined ? undefined : buildServiceAdmin(database, metrics);
  app.decorate('adminServer', admin);
  app.addHook('onClose', async () => {
    await admin?.close();
  });

  const dataSource = new TimeTrackingDataSource(database, index);
  registerODataService(app, {
    model: timeTrackingModel,
    rootPath: SERVICE_ROOT_PATH,
    dataSource,
    authenticate,
    pageSize: config.pageSize,
    batchLimits: { maxBytes: config.batchMaxBytes, maxOperations: config.batchMaxOperations },
    messages: dataSource.messages,
    authRealm: config.authRealm,
    requireIfMatch: config.requireIfMatch,
  });
  // The web interface for employees and administrators at /, on the same data source and rules.
  registerWebInterface(app, { db: database.db, bookings: new Bookings(index, dataSource), administration: new Administration(index, dataSource, database.db), reports: database });
  return app;
}
