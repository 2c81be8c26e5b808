// `timegate gateway`: the REST/JSON face (and the edge features) in front of an OData V2 upstream.
import { createHash, randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { CredentialForm, GatewayConfig, UpdateMethod, UpstreamFormat } from '../gateway/config.js';
import { DEFAULT_GATEWAY_CONFIG, DEFAULT_UPSTREAM_CONFIG, gatewayConfig } from '../gateway/config.js';
import { ConfigFileError, configLayers, layeredConfig } from '../gateway/config-file.js';
import type { GatewayArtefacts } from '../gateway/model-artefacts.js';
import { loadGeneratedArtefacts } from '../gateway/model-artefacts.js';
import type { BuildGatewayOptions } from '../gateway/server.js';
import { UsageError } from './command.js';
import type { Command } from './command.js';
import { EDGE_OPTIONS, EDGE_USAGE, edgeConfig } from './edge-options.js';
import { untilSignal } from './lifecycle.js';
import { integerOption, listening, writeModelWarnings } from './options.js';
import type { TracingConfig } from './tracing-config.js';
import { tracingConfig } from './tracing-config.js';
import { WORKERS_HELP, announceReady, isSupervisor, supervise, workersOption } from './workers.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const DEFAULT_MODEL = `${PACKAGE_ROOT}generated`;

const USAGE = `Usage: timegate gateway --upstream <OData service root URL> [options]

Serves a REST/JSON API described by OpenAPI (at /api/v1, /openapi.json and /docs) in front of
an OData V2 service, translating every call into OData requests upstream.

Options:
  --config <file>         a YAML or JSON configuration file (every setting; see README,
                          "Gateway configuration"); TIMEGATE_* variables override it, flags both
  --upstream <url>        the OData V2 service root, e.g. http://127.0.0.1:4004/V1/Api.svc
                          (default: $UPSTREAM_URL, else upstream.url of the file)
  --port <n>              port (default ${DEFAULT_GATEWAY_CONFIG.port}; 0 picks a free one)
  --host <addr>           address to listen on (default ${DEFAULT_GATEWAY_CONFIG.host})
  --model <dir|edmx>      codegen output folder, or an EDMX file or $metadata URL to generate
                          from (default: the time-tracking model this package ships)
  --lenient               with an EDMX --model: skip or map what is not supported (OData V3/V4
                          elements, SAP quirks) with a warning each at start, as codegen --lenient
  --upstream-format <f>   json or atom: how the gateway speaks to the upstream (default ${DEFAULT_UPSTREAM_CONFIG.format})
  --update-method <m>     merge or patch: the verb of partial updates upstream (default ${DEFAULT_UPSTREAM_CONFIG.updateMethod})
  --upstream-auth <form>  header, basic, bearer or query: how the caller's key is passed on
                          (default ${DEFAULT_UPSTREAM_CONFIG.credential.form})
  --upstream-key-header <name>
                          header name of the header form (default ${DEFAULT_UPSTREAM_CONFIG.credential.headerName})
  --upstream-timeout <ms> deadline of a whole upstream call, retries included, until its answer
                          starts (default ${DEFAULT_UPSTREAM_CONFIG.requestTimeoutMs}); past it, 504
  --upstream-writes-gateway-root
                          the upstream writes the gateway's root into its answers itself (it believes
                          X-Forwarded-Host/-Proto, at the root path /V1/Api.svc): relay bodies untouched
  --body-limit <bytes>    largest request body (default ${DEFAULT_GATEWAY_CONFIG.bodyLimitBytes}); larger ones get 413
  --request-timeout <ms>  deadline of a whole request, body included (default ${DEFAULT_GATEWAY_CONFIG.requestTimeoutMs}); a
                          client still sending then gets 408 and loses the connection
  --cursor-secret <text>  signs list cursors; give replicas the same one (default: $TIMEGATE_CURSOR_SECRET,
                          else a random one per process)
  --no-docs               do not serve the /docs page (/openapi.json is always served)
  --trust-proxy           believe the one proxy in front: X-Forwarded-Proto/-Host, and the last
                          X-Forwarded-For entry as the client's address (rate limits without a key)
${WORKERS_HELP.replace('  --workers <n|auto>  ', '  --workers <n|auto>      ')};
                          more than one needs --redis, where they share cache and limits
  --log-level <level>     fatal, error, warn, info, debug, trace or silent (default ${DEFAULT_GATEWAY_CONFIG.logLevel})
  -h, --help              show this help

${EDGE_USAGE}`;

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, not '${value}'`);
  return value as T;
}

export interface GatewayCommandLine {
  readonly config: GatewayConfig;
  /** A codegen output folder, or an EDMX file or URL. */
  readonly model: string;
  /** An EDMX model is read as `codegen --lenient` reads it. */
  readonly lenient: boolean;
  /** Processes to run (--workers). */
  readonly workers: number;
  /** OpenTelemetry tracing (the OTEL_* variables), or undefined: off. */
  readonly tracing: TracingConfig | undefined;
}

/** The SDK, the request spans and the upstream interceptor: loaded only when tracing is on. */
async function gatewayTracing(config: TracingConfig | undefined): Promise<{ options: BuildGatewayOptions; shutdown: () => Promise<void> } | undefined> {
  if (config === undefined) return undefined;
  const { startTracing } = await import('./tracing.js');
  const { tracingInterceptor } = await import('../gateway/upstream/tracing-interceptor.js');
  const tracing = startTracing(config);
  return {
    options: { requestSpans: tracing.requestSpans, upstreamInterceptors: [tracingInterceptor(tracing.tracer)] },
    shutdown: () => tracing.shutdown(),
  };
}

export function gatewayCommandLine(args: readonly string[], env: NodeJS.ProcessEnv): GatewayCommandLine | undefined {
  const { values } = parseArgs({
    args: [...args],
    options: {
      config: { type: 'string' },
      upstream: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      model: { type: 'string' },
      lenient: { type: 'boolean', default: false },
      'upstream-format': { type: 'string' },
      'update-method': { type: 'string' },
      'upstream-auth': { type: 'string' },
      'upstream-key-header': { type: 'string' },
      'upstream-timeout': { type: 'string' },
      'upstream-writes-gateway-root': { type: 'boolean', default: false },
      'body-limit': { type: 'string' },
      'request-timeout': { type: 'string' },
      'cursor-secret': { type: 'string' },
      'no-docs': { type: 'boolean', default: false },
      'trust-proxy': { type: 'boolean', default: false },
      workers: { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      ...EDGE_OPTIONS,
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  let layers: Record<string, unknown>;
  try {
    layers = configLayers(values.config, env);
  } catch (error) {
    if (error instanceof ConfigFileError) throw new UsageError(error.message);
    throw error;
  }
  const fileUrl = (layers.upstream as { url?: string } | undefined)?.url;
  const url = values.upstream ?? (env.UPSTREAM_URL || undefined) ?? fileUrl;
  if (url === undefined) throw new UsageError('missing --upstream <OData service root URL>');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--upstream must be an http(s) URL, not '${url}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`--upstream must be an http(s) URL, not '${url}'`);
  const logLevel = values['log-level'] ?? DEFAULT_GATEWAY_CONFIG.logLevel;
  if (!LOG_LEVELS.has(logLevel)) throw new UsageError(`--log-level must be one of ${[...LOG_LEVELS].join(', ')}`);
  const config = gatewayConfig({
    port: integerOption('port', values.port, DEFAULT_GATEWAY_CONFIG.port, 0, 65535),
    host: values.host ?? DEFAULT_GATEWAY_CONFIG.host,
    bodyLimitBytes: integerOption('body-limit', values['body-limit'], DEFAULT_GATEWAY_CONFIG.bodyLimitBytes, 1, 1024 * 1024 * 1024),
    requestTimeoutMs: integerOption('request-timeout', values['request-timeout'], DEFAULT_GATEWAY_CONFIG.requestTimeoutMs, 1_000, 3_600_000),
    cursorSecret: values['cursor-secret'] ?? (env.TIMEGATE_CURSOR_SECRET || undefined),
    docs: !values['no-docs'],
    trustProxy: values['trust-proxy'],
    logLevel,
    ...edgeConfig(values),
    upstream: {
      url,
      format: oneOf<UpstreamFormat>('upstream-format', values['upstream-format'], ['json', 'atom'], DEFAULT_UPSTREAM_CONFIG.format),
      updateMethod: oneOf<UpdateMethod>('update-method', values['update-method'], ['merge', 'patch'], DEFAULT_UPSTREAM_CONFIG.updateMethod),
      requestTimeoutMs: integerOption('upstream-timeout', values['upstream-timeout'], DEFAULT_UPSTREAM_CONFIG.requestTimeoutMs, 1, 3_600_000),
      writesGatewayRoot: values['upstream-writes-gateway-root'],
      credential: {
        ...DEFAULT_UPSTREAM_CONFIG.credential,
        form: oneOf<CredentialForm>('upstream-auth', values['upstream-auth'], ['header', 'basic', 'bearer', 'query'], DEFAULT_UPSTREAM_CONFIG.credential.form),
        headerName: values['upstream-key-header'] ?? DEFAULT_UPSTREAM_CONFIG.credential.headerName,
      },
    },
  });
  const layered = layeredConfig(config, layers);
  const workers = workersOption(values.workers);
  // Without Redis each process would keep its own cache and its own counters: a write through
  // one would not outdate the others' entries, and every limit would be multiplied by N.
  if (workers > 1 && layered.redis.url === undefined) throw new UsageError('--workers above 1 needs --redis <url>, where the workers share their cache and rate limits');
  return { config: layered, model: values.model ?? DEFAULT_MODEL, lenient: values.lenient, workers, tracing: tracingConfig(env, 'timegate-gateway') };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** How an EDMX model is read: strict, or lenient with its warnings reported (or not, by a worker). */
export interface ModelReading {
  readonly lenient: boolean;
  readonly warn?: (warnings: readonly string[]) => void;
}

/**
 * The artefacts of a codegen output folder, or of an EDMX generated on the spot: written under
 * the package's data/ folder (so the validators resolve ajv from the package), once per EDMX.
 * The EDMX is read every time, so a strict start refuses a model a lenient one generated.
 */
export async function gatewayArtefacts(source: string, reading: ModelReading = { lenient: false }): Promise<GatewayArtefacts> {
  if (await isDirectory(source)) return loadGeneratedArtefacts(source);
  const { readEdmxWithWarnings } = await import('../codegen/edmx-reader.js');
  const { loadEdmxSource } = await import('../codegen/edmx-source.js');
  const { emitContextFor, generate } = await import('../codegen/generate.js');
  const { writeOutput } = await import('../codegen/write-output.js');
  const edmx = await loadEdmxSource(source);
  const { model, warnings } = readEdmxWithWarnings(edmx, { lenient: reading.lenient });
  reading.warn?.(warnings);
  const out = `${PACKAGE_ROOT}data/gateway-models/${createHash('sha256').update(edmx).digest('hex').slice(0, 16)}`;
  // Generating takes seconds (formatting, ajv compilation): a folder for this very EDMX is reused.
  if (!(await isFile(`${out}/openapi.json`))) await writeOutput(out, await generate(model, emitContextFor(out)));
  return loadGeneratedArtefacts(out);
}

async function run(args: readonly string[]): Promise<number> {
  const commandLine = gatewayCommandLine(args, process.env);
  if (commandLine === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { config, workers } = commandLine;
  // The warnings of a lenient reading are printed once: by the one process, or by the supervisor.
  const reading: ModelReading = { lenient: commandLine.lenient, ...(workers === 1 || isSupervisor(workers) ? { warn: (warnings) => writeModelWarnings('gateway', warnings) } : {}) };
  if (isSupervisor(workers)) {
    // An EDMX is generated once, here, not by every worker at once.
    await gatewayArtefacts(commandLine.model, reading);
    // A cursor one worker signed must be good on every other.
    const env = config.cursorSecret === undefined ? { TIMEGATE_CURSOR_SECRET: randomBytes(32).toString('base64url') } : {};
    const { pino } = await import('pino');
    const logger = pino({ level: config.logLevel });
    return supervise({ count: workers, env, graceMs: config.shutdownGraceMs, log: (level, fields, message) => logger[level](fields, message) });
  }
  // The gateway (Fastify, undici, the edge features) is loaded only to run it, so every other
  // command and every refused command line answer quickly.
  const { startGateway } = await import('../gateway/start.js');
  const tracing = await gatewayTracing(commandLine.tracing);
  const options = new Map([[config.port, '--port'], ...(config.ops.adminPort === undefined ? [] : [[config.ops.adminPort, '--admin-port'] as const])]);
  const gateway = await listening(startGateway(config, await gatewayArtefacts(commandLine.model, reading), tracing?.options), options);
  const addresses = { rest: gateway.restRoot, docs: gateway.docsUrl, ...(gateway.adminOrigin === undefined ? {} : { admin: gateway.adminOrigin }) };
  gateway.app.log.info(addresses, 'timegate gateway listening');
  const stopped = untilSignal(async () => {
    await gateway.close();
    await tracing?.shutdown();
  }, (line) => gateway.app.log.info(line));
  announceReady(addresses);
  return stopped;
}

export const gatewayCommand: Command = {
  name: 'gateway',
  usage: USAGE,
  run,
};
