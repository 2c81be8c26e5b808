// `timegate service`: the time-tracking OData V2 service on SQLite or PostgreSQL.
import { parseArgs } from 'node:util';
import type { ServiceConfig } from '../service/config.js';
import { DEFAULT_SERVICE_CONFIG } from '../service/config.js';
import type { StartServiceOptions } from '../service/start.js';
import { UsageError } from './command.js';
import type { Command } from './command.js';
import { untilSignal } from './lifecycle.js';
import { DB_HELP, databaseOption, integerOption, listening } from './options.js';
import type { TracingConfig } from './tracing-config.js';
import { tracingConfig } from './tracing-config.js';
import { WORKERS_HELP, announceReady, isSupervisor, supervise, workersOption } from './workers.js';

const USAGE = `Usage: timegate service [options]

Runs the time-tracking OData V2 service at http://<host>:<port>/V1/Api.svc.

Options:
  --port <n>          port (default ${DEFAULT_SERVICE_CONFIG.port}; 0 picks a free one)
  --host <addr>       address to listen on (default ${DEFAULT_SERVICE_CONFIG.host})
${DB_HELP}
  --tls-cert <file>   PEM certificate: serve HTTPS (with --tls-key)
  --tls-key <file>    PEM private key
  --page-size <n>     most entities per page of a collection (default ${DEFAULT_SERVICE_CONFIG.pageSize})
  --batch-max-bytes <n>
                      largest $batch body (default ${DEFAULT_SERVICE_CONFIG.batchMaxBytes}); larger ones get 413
  --batch-max-operations <n>
                      most requests in one $batch, changesets included (default ${DEFAULT_SERVICE_CONFIG.batchMaxOperations}); more get 400
  --api-key-header <name>
                      another header name that carries the API key (repeatable)
  --auth-cache-ttl <ms>
                      how long a checked API key is trusted before it is checked again; a
                      revoked key stops working at most this much later (default ${DEFAULT_SERVICE_CONFIG.authCacheTtlMs}; 0 = every request)
  --trust-proxy       believe X-Forwarded-Proto/-Host (behind a proxy)
  --require-if-match  updates and deletes must send If-Match with the entity's ETag (or *); without it they get 428
  --admin-port <n>    serve /metrics (and /healthz, /readyz) on this port of --admin-host;
                      the public port never serves /metrics
  --admin-host <addr> address of the admin port (default ${DEFAULT_SERVICE_CONFIG.adminHost})
${WORKERS_HELP}; they share the
                      database (a SQLite file in WAL mode, or PostgreSQL)
  --log-level <level> fatal, error, warn, info, debug, trace or silent (default ${DEFAULT_SERVICE_CONFIG.logLevel})
  -h, --help          show this help`;

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export interface ServiceCommandLine {
  readonly config: ServiceConfig;
  /** Processes to run (--workers). */
  readonly workers: number;
  /** OpenTelemetry tracing (the OTEL_* variables), or undefined: off. */
  readonly tracing: TracingConfig | undefined;
}

/** The SDK, the request spans and the statement spans: loaded only when tracing is on. */
async function serviceTracing(config: TracingConfig | undefined): Promise<{ options: StartServiceOptions; shutdown: () => Promise<void> } | undefined> {
  if (config === undefined) return undefined;
  const { startTracing } = await import('./tracing.js');
  const { withStatementSpans } = await import('../service/storage/statement-spans.js');
  const tracing = startTracing(config);
  return {
    options: {
      tracing: {
        requestSpans: tracing.requestSpans,
        wrapDialect: (dialect, name) => withStatementSpans(dialect, tracing.tracer, name === 'postgres' ? 'postgresql' : name),
      },
    },
    shutdown: () => tracing.shutdown(),
  };
}

export function serviceCommandLine(args: readonly string[], env: NodeJS.ProcessEnv): ServiceCommandLine | undefined {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      db: { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'page-size': { type: 'string' },
      'batch-max-bytes': { type: 'string' },
      'batch-max-operations': { type: 'string' },
      'api-key-header': { type: 'string', multiple: true },
      'auth-cache-ttl': { type: 'string' },
      'trust-proxy': { type: 'boolean', default: false },
      'require-if-match': { type: 'boolean', default: false },
      'admin-port': { type: 'string' },
      'admin-host': { type: 'string' },
      workers: { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  const certFile = values['tls-cert'];
  const keyFile = values['tls-key'];
  if ((certFile === undefined) !== (keyFile === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  const logLevel = values['log-level'] ?? DEFAULT_SERVICE_CONFIG.logLevel;
  if (!LOG_LEVELS.has(logLevel)) throw new UsageError(`--log-level must be one of ${[...LOG_LEVELS].join(', ')}`);
  const workers = workersOption(values.workers);
  const databaseUrl = databaseOption(values.db, env);
  // Each process would have a database of its own.
  if (workers > 1 && databaseUrl?.trim() === ':memory:') throw new UsageError('--workers needs a database they can share: a SQLite file or PostgreSQL, not :memory:');
  const config: ServiceConfig = {
    ...DEFAULT_SERVICE_CONFIG,
    port: integerOption('port', values.port, DEFAULT_SERVICE_CONFIG.port, 0, 65535),
    host: values.host ?? DEFAULT_SERVICE_CONFIG.host,
    databaseUrl,
    tls: certFile === undefined || keyFile === undefined ? undefined : { certFile, keyFile },
    pageSize: integerOption('page-size', values['page-size'], DEFAULT_SERVICE_CONFIG.pageSize, 1, 10_000),
    batchMaxBytes: integerOption('batch-max-bytes', values['batch-max-bytes'], DEFAULT_SERVICE_CONFIG.batchMaxBytes, 1024, 1024 * 1024 * 1024),
    batchMaxOperations: integerOption('batch-max-operations', values['batch-max-operations'], DEFAULT_SERVICE_CONFIG.batchMaxOperations, 1, 100_000),
    apiKeyHeaderAliases: values['api-key-header'] ?? [],
    authCacheTtlMs: integerOption('auth-cache-ttl', values['auth-cache-ttl'], DEFAULT_SERVICE_CONFIG.authCacheTtlMs, 0, 3_600_000),
    trustProxy: values['trust-proxy'],
    requireIfMatch: values['require-if-match'],
    logLevel,
    adminPort: values['admin-port'] === undefined ? undefined : integerOption('admin-port', values['admin-port'], 0, 0, 65535),
    adminHost: values['admin-host'] ?? DEFAULT_SERVICE_CONFIG.adminHost,
  };
  return { config, workers, tracing: tracingConfig(env, 'timegate-service') };
}

async function run(args: readonly string[]): Promise<number> {
  const commandLine = serviceCommandLine(args, process.env);
  if (commandLine === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { config, workers } = commandLine;
  // The server and the database layer are loaded only once the command line is good.
  if (isSupervisor(workers)) {
    const { openDatabase } = await import('../service/storage/database.js');
    // Migrated once, here, so the workers start on a current schema and a database that does
    // not open fails the command once, with one message.
    const database = await openDatabase(config.databaseUrl, { postgres: { poolMax: 1 } });
    await database.close();
    const { pino } = await import('pino');
    const logger = pino({ level: config.logLevel });
    return supervise({ count: workers, graceMs: config.shutdownGraceMs, log: (level, fields, message) => logger[level](fields, message) });
  }
  const options = new Map([[config.port, '--port'], ...(config.adminPort === undefined ? [] : [[config.adminPort, '--admin-port'] as const])]);
  const tracing = await serviceTracing(commandLine.tracing);
  const { startService } = await import('../service/start.js');
  const service = await listening(startService(config, tracing?.options), options);
  const addresses = { root: service.root, database: service.database.location, ...(service.adminOrigin === undefined ? {} : { admin: service.adminOrigin }) };
  service.app.log.info(addresses, 'timegate service listening');
  const stopped = untilSignal(async () => {
    await service.close();
    await tracing?.shutdown();
  }, (line) => service.app.log.info(line));
  announceReady(addresses);
  return stopped;
}

export const serviceCommand: Command = {
  name: 'service',
  usage: USAGE,
  run,
};
