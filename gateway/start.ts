// Runs the gateway: builds it, listens (and the admin listener, when configured), and stops
// gracefully: no new connections, in-flight requests finish (up to the grace period), then the
// upstream connections close.
import type { FastifyInstance } from 'fastify';
import type { GatewayConfig } from './config.js';
import { DOCS_PATH, OPENAPI_PATH } from './docs.js';
import type { GatewayArtefacts } from './model-artefacts.js';
import { restBasePath } from './rest/rest-face.js';
import type { BuildGatewayOptions } from './server.js';
import { buildGateway } from './server.js';

export interface RunningGateway {
  /** `http://host:port` as it listens. */
  readonly origin: string;
  /** Where the REST face is: origin + `/api/v1`. */
  readonly restRoot: string;
  readonly openapiUrl: string;
  readonly docsUrl: string;
  /** `http://host:port` of the admin listener (/metrics), when `ops.adminPort` is set. */
  readonly adminOrigin: string | undefined;
  readonly app: FastifyInstance;
  /** Stops accepting, lets in-flight requests finish within the grace period, closes upstream connections. */
  close(): Promise<void>;
}

export async function startGateway(config: GatewayConfig, artefacts: GatewayArtefacts, options: BuildGatewayOptions = {}): Promise<RunningGateway> {
  const app = buildGateway(config, artefacts, options);
  let adminOrigin: string | undefined;
  try {
    await app.listen({ host: config.host, port: config.port });
    if (app.adminServer !== undefined) {
      await app.adminServer.listen({ host: config.ops.adminHost, port: config.ops.adminPort ?? 0 });
      adminOrigin = originOf(app.adminServer, config.ops.adminHost);
    }
  } catch (error) {
    await app.close();
    throw error;
  }
  const origin = originOf(app, config.host);
  return {
    origin,
    restRoot: `${origin}${restBasePath(artefacts.openapi)}`,
    openapiUrl: `${origin}${OPENAPI_PATH}`,
    docsUrl: `${origin}${DOCS_PATH}`,
    adminOrigin,
    app,
    close: () => closeGracefully(app, config.shutdownGraceMs),
  };
}

function originOf(app: FastifyInstance, host: string): string {
  const address = app.server.address();
  const port = address !== null && typeof address === 'object' ? address.port : 0;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

async function closeGracefully(app: FastifyInstance, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      // Requests still running after the grace period are cut off rather than waited for.
      app.server.closeAllConnections();
      resolve();
    }, graceMs);
    timer.unref();
  });
  await Promise.race([app.close(), deadline]);
  clearTimeout(timer);
}
