// The gateway as a Fastify instance: problem+json for every failure, the edge features of
// features.ts (passthrough, cache, rate limits, resilience, metrics), the REST face registered
// from the model's REST surface under the contract's base path, and its documents
// (/openapi.json, /docs). Nothing here listens: start.ts does, and tests inject or listen.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { indexModel } from '../odata/model-index.js';
import { withoutQueryKeyInUrl } from './auth/caller-key.js';
import type { GatewayConfig } from './config.js';
import { registerDocs } from './docs.js';
import { registerProblemHandlers } from './error-handler.js';
import { sendClientError, sendFrameworkError } from './face-refusal.js';
import type { GatewayFeature, GatewayParts } from './features.js';
import { gatewayFeatures } from './features.js';
import type { GatewayArtefacts } from './model-artefacts.js';
import { registerRestFace, restBasePath } from './rest/rest-face.js';
import { createPoolClient } from './upstream/pool-client.js';
import type { UpstreamClient } from './upstream/upstream-client.js';

export interface BuildGatewayOptions {
  /** false: no logs (tests); a stream for the logs; default: pino at config.logLevel on stdout. */
  readonly logger?: boolean | { readonly stream: NodeJS.WritableStream };
  /** The upstream client to use instead of an undici pool to config.upstream.url. */
  readonly upstreamClient?: UpstreamClient;
  /** The edge features; default gatewayFeatures(config). */
  readonly features?: readonly GatewayFeature[];
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token, else a new one; it is sent upstream too. */
function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

function loggerOptions(config: GatewayConfig) {
  return {
    level: config.logLevel,
    serializers: {
      // The API key never reaches a log: headers are not logged, the query key is cut from the URL.
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: withoutQueryKeyInUrl(request.url),
        remoteAddress: request.ip,
      }),
    },
  };
}

export function buildGateway(config: GatewayConfig, artefacts: GatewayArtefacts, options: BuildGatewayOptions = {}): FastifyInstance {
  const logger = options.logger ?? true;
  const app = Fastify({
    logger: logger === false ? false : { ...loggerOptions(config), ...(typeof logger === 'object' ? { stream: logger.stream } : {}) },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    genReqId: requestId,
    requestIdHeader: false,
    // Long string keys are legitimate; odata/'s limits bound what is parsed.
    routerOptions: { caseSensitive: true, ignoreTrailingSlash: true, maxParamLength: 2048 },
    frameworkErrors: sendFrameworkError,
    clientErrorHandler: sendClientError,
  });
  registerProblemHandlers(app);

  const parts: GatewayParts = { config, artefacts, index: indexModel(artefacts.model) };
  const features = options.features ?? gatewayFeatures(config);
  let upstream = options.upstreamClient ?? createPoolClient(config.upstream);
  for (const feature of features) upstream = feature.wrapUpstream?.(upstream, parts) ?? upstream;
  const client = upstream;
  app.addHook('onClose', async () => {
    await client.close();
  });

  // Edge features first: their hooks then run for every route registered below.
  for (const feature of features) feature.register?.(app, { ...parts, upstream: client });

  registerDocs(app, artefacts.openapi, config.docs);
  app.register(
    (face, _opts, done) => {
      registerRestFace(face, parts, client);
      done();
    },
    { prefix: restBasePath(artefacts.openapi) },
  );
  return app;
}
