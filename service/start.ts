// Runs the service: opens (and migrates) the database, listens, and stops gracefully: no new
// connections, in-flight requests finish (up to the grace period), then the database closes.
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { ServiceConfig } from './config.js';
import { SERVICE_ROOT_PATH } from './config.js';
import { buildService } from './server.js';
import type { DatabaseHandle, OpenDatabaseOptions } from './storage/database.js';
import { openDatabase } from './storage/database.js';

export interface RunningService {
  /** `http://host:port` as it listens. */
  readonly origin: string;
  /** The service root: origin + `/V1/Api.svc`. */
  readonly root: string;
  readonly app: FastifyInstance;
  readonly database: DatabaseHandle;
  /** `http://host:port` of the admin listener (/metrics), when `adminPort` is set. */
  readonly adminOrigin: string | undefined;
  /** Stops accepting, lets in-flight requests finish within the grace period, closes the database. */
  close(): Promise<void>;
}

export interface StartServiceOptions {
  readonly logger?: boolean;
  /** An open database to use instead of opening `config.databaseUrl` (closed by close()). */
  readonly database?: DatabaseHandle;
  /** Tracing's hooks (cli/tracing.ts): a span per request, and the dialect wrapped for a span per statement. */
  readonly tracing?: {
    readonly requestSpans: (app: FastifyInstance) => void;
    readonly wrapDialect: NonNullable<OpenDatabaseOptions['wrapDialect']>;
  };
}

export async function startService(config: ServiceConfig, options: StartServiceOptions = {}): Promise<RunningService> {
  const database = options.database ?? await openDatabase(config.databaseUrl, { postgres: { poolMax: config.postgresPoolMax }, ...(options.tracing === undefined ? {} : { wrapDialect: options.tracing.wrapDialect }) });
  try {
    const tls = config.tls === undefined ? undefined : {
      cert: await readFile(config.tls.certFile),
      key: await readFile(config.tls.keyFile),
    };
    const app = buildService(config, database, { ...(tls === undefined ? {} : { tls }), ...(options.logger === undefined ? {} : { logger: options.logger }), ...(options.tracing === undefined ? {} : { requestSpans: options.tracing.requestSpans }) });
    await app.listen({ host: config.host, port: config.port });
    const origin = originOf(app, config.host, tls === undefined ? 'http' : 'https');
    let adminOrigin: string | undefined;
    if (app.adminServer !== undefined) {
      await app.adminServer.listen({ host: config.adminHost, port: config.adminPort ?? 0 });
      adminOrigin = originOf(app.adminServer, config.adminHost, 'http');
    }
    return {
      origin,
      root: `${origin}${SERVICE_ROOT_PATH}`,
      app,
      database,
      adminOrigin,
      close: () => closeGracefully(app, database, config.shutdownGraceMs),
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

function originOf(app: FastifyInstance, configuredHost: string, scheme: string): string {
  const address = app.server.address();
  const port = address !== null && typeof address === 'object' ? address.port : 0;
  const host = configuredHost.includes(':') ? `[${configuredHost}]` : configuredHost;
  return `${scheme}://${host}:${port}`;
}

async function closeGracefully(app: FastifyInstance, database: DatabaseHandle, graceMs: number): Promise<void> {
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
  await database.close();
}
