// The gateway as a Fastify instance: the one upstream stack (upstream/) both faces call through,
// the edge features of features.ts (hygiene and the key always, in front), the REST face
// registered from the model's REST surface under the contract's base path, and its documents
// (/openapi.json, /docs). Each face formats its own errors: problem+json at the root and on the
// REST face, OData error documents on the passthrough. Nothing here listens: start.ts does (the
// admin listener too), and tests inject or listen.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Dispatcher } from 'undici';
import { redactApiKeys } from '../odata/api-key.js';
import { indexModel } from '../odata/model-index.js';
import { keyHeadersOf } from './auth/auth-config.js';
import { CredentialFreshness } from './auth/credential-freshness.js';
import type { GatewayConfig } from './config.js';
import { registerDocs } from './docs.js';
import type { GatewayFeature, GatewayParts } from './features.js';
import { gatewayFeatures, withCoreFeatures } from './features.js';
import type { GatewayArtefacts } from './model-artefacts.js';
import { buildAdminServer } from './ops/ops-plugin.js';
import { createPrometheusMetrics } from './ops/prometheus-metrics.js';
import { registerProblemHandlers, sendClientError, sendProblem } from './problem-handler.js';
import { repairUrl } from './request-hygiene.js';
import { registerRestFace, restBasePath } from './rest/rest-face.js';
import { createUpstreamClient } from './upstream/upstream-client.js';
import { createUpstreamStack } from './upstream/upstream-dispatcher.js';

export interface BuildGatewayOptions {
  /** false: no logs (tests); a stream for the logs; default: pino at config.logLevel on stdout. */
  readonly logger?: boolean | { readonly stream: NodeJS.WritableStream };
  /** The edge features; default gatewayFeatures(). Hygiene and the key are added in front when missing. */
  readonly features?: readonly GatewayFeature[];
  /** Further policies of the upstream dispatcher, applied to each attempt as it is sent. */
  readonly upstreamInterceptors?: readonly Dispatcher.DispatcherComposeInterceptor[];
  /** Adds a span to every request (cli/tracing.ts), when tracing is on. */
  readonly requestSpans?: (app: FastifyInstance) => void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The admin listener's instance (`--admin-port`), listened on by start.ts. */
    adminServer: FastifyInstance | undefined;
  }
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * With --trust-proxy: the one proxy in front (the peer of the connection) is believed, no hop
 * behind it. It appends the address it saw to the client's X-Forwarded-For, so only that last
 * entry is its word; trusting every hop (Fastify's `true`) takes the first, which the client
 * writes, and an anonymous caller would pick a new address, and a new rate-limit budget, for each
 * request. (A hop count does not do it: Fastify takes a number as trusting nobody.)
 */
function trustsOneProxy(_address: string, hop: number): boolean {
  return hop === 0;
}

/** The caller's X-Request-Id when it is a sane token, else a new one; it is sent upstream too. */
function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

function loggerOptions(config: GatewayConfig) {
  return {
    level: config.logLevel,
    serializers: {
      // The API key never reaches a log: headers are not logged, and every spelling of the query
      // key (a malformed one too) is masked in the URL.
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactApiKeys(request.url),
        remoteAddress: request.ip,
      }),
    },
  };
}

export function buildGateway(config: GatewayConfig, artefacts: GatewayArtefacts, options: BuildGatewayOptions = {}): FastifyInstance {
  // Silent is no logger at all: pino at level silent still made a child logger per request.
  const logger = config.logLevel === 'silent' ? false : (options.logger ?? true);
  const app = Fastify({
    logger: logger === false ? false : { ...loggerOptions(config), ...(typeof logger === 'object' ? { stream: logger.stream } : {}) },
    bodyLimit: config.bodyLimitBytes,
    // Fastify sets no deadline of its own: a body trickling in a byte at a time held its
    // connection for good. Node enforces the deadline when it checks its open connections (every
    // 30 s by default), so they are checked more often; the headers' own deadline is within it.
    requestTimeout: config.requestTimeoutMs,
    http: { headersTimeout: Math.min(60_000, config.requestTimeoutMs), connectionsCheckingInterval: Math.min(5_000, Math.ceil(config.requestTimeoutMs / 2)) },
    trustProxy: config.trustProxy ? trustsOneProxy : false,
    genReqId: requestId,
    requestIdHeader: false,
    rewriteUrl: repairUrl,
    // Long string keys are legitimate; odata/'s limits bound what is parsed.
    routerOptions: { caseSensitive: true, ignoreTrailingSlash: true, maxParamLength: 2048 },
    // Before any route is chosen there is no face: the gateway answers as itself.
    frameworkErrors: (error, request, reply) => void sendProblem(error, request, reply),
    clientErrorHandler: sendClientError,
  });
  options.requestSpans?.(app);
  registerProblemHandlers(app);

  const metrics = createPrometheusMetrics();
  const freshness = new CredentialFreshness(config.auth.ttlSeconds * 1000);
  const upstream = createUpstreamStack({
    upstream: config.upstream,
    retry: config.resilience.retry,
    breaker: config.resilience.breaker,
    keyHeaders: keyHeadersOf(config.auth),
    functionImports: artefacts.model.functionImports.map((fn) => fn.name),
    metrics,
    freshness,
    ...(options.upstreamInterceptors === undefined ? {} : { interceptors: options.upstreamInterceptors }),
  });
  const parts: GatewayParts = { config, artefacts, index: indexModel(artefacts.model), upstream, freshness, metrics };

  const admin = config.ops.adminPort === undefined ? undefined : buildAdminServer(parts);
  app.decorate('adminServer', admin);
  app.addHook('onClose', async () => {
    await admin?.close();
    await upstream.close();
  });

  // Edge features first, each a plugin whose hooks go to the root: they run, in list order, for
  // every route registered below.
  for (const feature of withCoreFeatures(options.features ?? gatewayFeatures())) {
    app.register(fp(async (instance) => feature.register(instance, parts), { name: `timegate-${feature.name}` }));
  }

  registerDocs(app, artefacts.openapi, config.docs);
  app.register(
    (face, _opts, done) => {
      registerRestFace(face, parts, createUpstreamClient(upstream, config.upstream.maxResponseBytes));
      done();
    },
    { prefix: restBasePath(artefacts.openapi) },
  );
  return app;
}
