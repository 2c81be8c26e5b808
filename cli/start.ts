// `timegate start` (what `npm start` runs): the service on the embedded SQLite file with a demo
// account created on first run, and the gateway in front of it; prints the URLs, the demo
// employee's web sign-in and the demo keys.
// The service runs as one worker per core (--workers auto; SQLite in WAL serves them all), the
// gateway as one process: without Redis its cache and limits live in one process's memory.
//
// API keys are stored only as hashes, so the demo keys could not be shown again after the first
// run; they are kept in demo-keys.json beside the database file (mode 0600, under the ignored
// data/ folder), so every `npm start` can print them. Keys made with `timegate admin` never are.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import type { DemoSignIn, DemoUser, seedDemoAccount } from '../service/accounts/demo-seed.js';
import type { ServiceConfig } from '../service/config.js';
import { DEFAULT_SERVICE_CONFIG, DEFAULT_SQLITE_FILE, SERVICE_ROOT_PATH } from '../service/config.js';
import type { DatabaseHandle } from '../service/storage/database.js';
import { DEFAULT_GATEWAY_CONFIG, gatewayConfig } from '../gateway/config.js';
import type { RunningGateway } from '../gateway/start.js';
import { gatewayArtefacts } from './gateway.js';
import type { Command } from './command.js';
import { untilSignal } from './lifecycle.js';
import { integerOption, listening } from './options.js';
import { announceReady, startWorkers, workersOption } from './workers.js';

const GENERATED_DIR = fileURLToPath(new URL('../generated', import.meta.url));

const USAGE = `Usage: timegate start [options]

Runs the time-tracking service on an embedded SQLite database (created on first run, with a demo
account) and the gateway in front of it (REST/JSON at /api/v1, OpenAPI, docs page), and prints
the URLs and the demo API keys.

Options:
  --port <n>          service port (default ${DEFAULT_SERVICE_CONFIG.port})
  --gateway-port <n>  gateway port (default ${DEFAULT_GATEWAY_CONFIG.port})
  --db <file>         SQLite file (default ${DEFAULT_SQLITE_FILE})
  --workers <n|auto>  service processes, sharing the database (default auto: one per core)
  --log-level <level> request logs (default warn: only problems)
  -h, --help          show this help`;

async function demoUsers(keysFile: string, seeded: Awaited<ReturnType<typeof seedDemoAccount>>): Promise<readonly DemoUser[] | undefined> {
  if (seeded.created) {
    await writeFile(keysFile, `${JSON.stringify(seeded.users, null, 2)}\n`, { mode: 0o600 });
    return seeded.users;
  }
  try {
    return JSON.parse(await readFile(keysFile, 'utf8')) as DemoUser[];
  } catch {
    return undefined;
  }
}

function banner(root: string, gateway: RunningGateway, users: readonly DemoUser[] | undefined, keysFile: string, demoSignIns: readonly DemoSignIn[]): string {
  const lines = [
    '',
    'timegate is running',
    `  Web interface      ${root.slice(0, -SERVICE_ROOT_PATH.length)}/`,
    ...demoSignIns.map((signIn) => `                     ${signIn.role === 'admin' ? 'or, as administrator,' : 'sign in as'} ${signIn.email}, password ${signIn.password}`),
    `  OData V2 service   ${root}`,
    `  $metadata          ${root}/$metadata`,
    `  REST gateway       ${gateway.restRoot}`,
    `  OpenAPI            ${gateway.openapiUrl}`,
    `  API docs           ${gateway.docsUrl}`,
    '',
  ];
  if (users === undefined) {
    lines.push(`The demo keys were not found in ${keysFile}; issue a new one with`, '  timegate admin new-key --user <id>');
  } else {
    lines.push(`Demo account "Demo GmbH" (keys kept in ${keysFile}):`);
    for (const user of users) lines.push(`  ${`${user.name} (${user.role}, user ${user.userId})`.padEnd(34)} ${user.apiKey}`);
    const key = users[0]?.apiKey ?? '<key>';
    lines.push(
      '',
      'Try:',
      `  curl -H "X-ServiceApiKey: ${key}" "${gateway.restRoot}/projects?limit=5"`,
      `  curl -H "X-ServiceApiKey: ${key}" "${root}/Projects?\\$format=json"`,
    );
  }
  lines.push('', 'Stop with Ctrl+C.', '');
  return lines.join('\n');
}

/** In a worker of `timegate start`: the service alone, until the primary stops it. */
async function serveAsWorker(config: ServiceConfig, portOption: ReadonlyMap<number, string>): Promise<number> {
  const { startService } = await import('../service/start.js');
  const service = await listening(startService(config), portOption);
  const stopped = untilSignal(() => service.close(), (line) => service.app.log.info(line));
  announceReady({ root: service.root });
  return stopped;
}

/** The service as `count` workers; what the rest of start() needs of it. */
async function serviceWorkers(config: ServiceConfig, count: number, database: DatabaseHandle): Promise<{ root: string; close(): Promise<void> }> {
  // Seeded and migrated above; each worker opens the file itself.
  await database.close();
  const workers = startWorkers({
    count,
    graceMs: config.shutdownGraceMs,
    log: (level, fields, message) => {
      if (level === 'error') process.stderr.write(`${message} ${JSON.stringify(fields)}\n`);
    },
  });
  let fields: Record<string, unknown>;
  try {
    fields = await workers.listening;
  } catch (error) {
    await workers.exited;
    throw error;
  }
  return {
    root: String(fields.root),
    close: async () => {
      workers.stop();
      await workers.exited;
    },
  };
}

async function run(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string' },
      'gateway-port': { type: 'string' },
      db: { type: 'string' },
      workers: { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const file = resolve(values.db ?? DEFAULT_SQLITE_FILE);
  const keysFile = join(dirname(file), 'demo-keys.json');
  const servicePort = integerOption('port', values.port, DEFAULT_SERVICE_CONFIG.port, 0, 65535);
  const gatewayPort = integerOption('gateway-port', values['gateway-port'], DEFAULT_GATEWAY_CONFIG.port, 0, 65535);
  const workers = workersOption(values.workers ?? 'auto');
  const serviceConfig: ServiceConfig = {
    ...DEFAULT_SERVICE_CONFIG,
    port: servicePort,
    databaseUrl: file,
    logLevel: values['log-level'] ?? 'warn',
    // Behind the embedded gateway: the service writes the gateway's root into its answers (from
    // the X-Forwarded-Host/-Proto the gateway sends), so the passthrough has nothing to rewrite.
    // It listens on loopback, so the only peers it believes are local ones.
    trustProxy: true,
  };
  const portOption = new Map([[servicePort, '--port']]);
  if (cluster.isWorker) return serveAsWorker(serviceConfig, portOption);
  // The servers and the database layer are loaded only once the command line is good.
  const { openDatabase } = await import('../service/storage/database.js');
  const { startService } = await import('../service/start.js');
  const demo = await import('../service/accounts/demo-seed.js');
  const database = await openDatabase(file);
  const users = await demoUsers(keysFile, await demo.seedDemoAccount(database.db));
  const demoSignIns = await demo.ensureDemoSignIn(database.db);
  const service = await listening(workers > 1 ? serviceWorkers(serviceConfig, workers, database) : startService(serviceConfig, { database }), portOption);
  let gateway: RunningGateway;
  try {
    const { startGateway } = await import('../gateway/start.js');
    gateway = await listening(startGateway(
      gatewayConfig({
        port: gatewayPort,
        logLevel: values['log-level'] ?? 'warn',
        // The service writes the gateway's root itself (trustProxy above): nothing to rewrite.
        upstream: { url: service.root, writesGatewayRoot: true },
      }),
      await gatewayArtefacts(GENERATED_DIR),
    ), new Map([[gatewayPort, '--gateway-port']]));
  } catch (error) {
    await service.close();
    throw error;
  }
  // The gateway first, so no request it still forwards meets a stopped service. The signal
  // handlers are in place before the banner tells anyone that Ctrl+C would stop us.
  const stopped = untilSignal(async () => {
    await gateway.close();
    await service.close();
  }, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(banner(service.root, gateway, users, keysFile, demoSignIns));
  return stopped;
}

export const startCommand: Command = {
  name: 'start',
  usage: USAGE,
  run,
};
