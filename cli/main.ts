// The `timegate` command: picks the subcommand and turns every failure into one line on stderr.
// Exit codes: 0 ok, 1 the command failed, 2 the command line was wrong.
import { isParseArgsError, UsageError, type Command } from './command.js';
import { exitWorker, failToPrimary } from './workers.js';

interface CommandEntry {
  readonly name: string;
  /** One line for `timegate --help`. */
  readonly summary: string;
  load(): Promise<Command>;
}

// Each command's module (and Fastify, ajv, the database drivers behind it) is loaded only when that
// command runs, so `timegate --help` and a mistyped command answer at once.
const COMMANDS: readonly CommandEntry[] = [
  { name: 'start', summary: 'run the service on embedded SQLite with a demo account, and the gateway in front (npm start)', load: async () => (await import('./start.js')).startCommand },
  { name: 'service', summary: 'run the time-tracking OData V2 service', load: async () => (await import('./service.js')).serviceCommand },
  { name: 'gateway', summary: 'run the REST/JSON gateway (OpenAPI, docs) in front of an OData V2 service', load: async () => (await import('./gateway.js')).gatewayCommand },
  { name: 'codegen', summary: 'generate types, validators, OpenAPI and a client from an OData V2 EDMX', load: async () => (await import('./codegen.js')).codegenCommand },
  { name: 'admin', summary: 'accounts, users, roles and settings; invitations to the web interface; API keys', load: async () => (await import('./admin.js')).adminCommand },
  { name: 'export', summary: 'write an account\'s time entries as CSV or XLSX (streamed, any size)', load: async () => (await import('./export.js')).exportCommand },
  { name: 'seed', summary: 'load a large realistic data set (benchmarks)', load: async () => (await import('./seed.js')).seedCommand },
];

const HELP = `Usage: timegate <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Run timegate <command> --help for the options of a command.`;

/**
 * Known failures are one line. Any other message is printed whole, since its later lines may hold
 * the remedy (better-sqlite3 built for another Node says to rebuild it there); the stack only with
 * DEBUG set.
 */
function report(prefix: string, error: unknown): number {
  if (error instanceof UsageError || isParseArgsError(error)) {
    process.stderr.write(`${prefix}: ${error.message} (see ${prefix} --help)\n`);
    return 2;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${prefix}: ${message.trimEnd()}\n`);
  if (process.env.DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return 1;
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(`${HELP}\n`);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    const what = name.startsWith('-') ? `unknown option '${name}'` : `unknown command '${name}'`;
    process.stderr.write(`timegate: ${what} (see timegate --help)\n`);
    return 2;
  }
  try {
    return await (await entry.load()).run(rest);
  } catch (error) {
    if (!(error instanceof UsageError) && await failToPrimary(error instanceof Error ? error.message : String(error))) return 1;
    return report(`timegate ${entry.name}`, error);
  }
}

process.exitCode = await main(process.argv.slice(2));
// A `--workers` worker is done once its command is: its IPC channel would keep it alive.
exitWorker(process.exitCode);
