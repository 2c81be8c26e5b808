// The `timegate` command: picks the subcommand and turns every failure into one line on stderr.
// Exit codes: 0 ok, 1 the command failed, 2 the command line was wrong.
import { adminCommand } from './admin.js';
import { codegenCommand } from './codegen.js';
import { gatewayCommand } from './gateway.js';
import { isParseArgsError, UsageError, type Command } from './command.js';
import { seedCommand } from './seed.js';
import { serviceCommand } from './service.js';
import { startCommand } from './start.js';

const COMMANDS: readonly Command[] = [startCommand, serviceCommand, gatewayCommand, codegenCommand, adminCommand, seedCommand];

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
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const what = name.startsWith('-') ? `unknown option '${name}'` : `unknown command '${name}'`;
    process.stderr.write(`timegate: ${what} (see timegate --help)\n`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    return report(`timegate ${command.name}`, error);
  }
}

process.exitCode = await main(process.argv.slice(2));
