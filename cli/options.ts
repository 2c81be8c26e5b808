// Option values shared by the subcommands, checked once at the edge with a one-line complaint.
import { UsageError } from './command.js';

export function integerOption(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not '${text}'`);
  }
  return Number(text);
}

export function requiredOption(name: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError(`missing --${name}`);
  return value;
}

/** `--db`, else DATABASE_URL, else undefined (the embedded SQLite file). */
export function databaseOption(value: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return value ?? (env.DATABASE_URL || undefined);
}

/** The `--db` option as every database-using subcommand documents it. */
export const DB_HELP = '  --db <file|url>     SQLite file or postgres:// URL (default: $DATABASE_URL, else ./data/timegate.sqlite)';

/** What `--lenient` skipped or mapped of a model: one warning a line on stderr, then the count. */
export function writeModelWarnings(command: string, warnings: readonly string[]): void {
  for (const warning of warnings) process.stderr.write(`timegate ${command}: warning: ${warning}\n`);
  if (warnings.length > 0) process.stderr.write(`timegate ${command}: ${warnings.length} construct(s) skipped or mapped (--lenient)\n`);
}

/** Awaits a program's start; a port another process holds is named by the option that moves it. */
export async function listening<T>(start: Promise<T>, optionOfPort: ReadonlyMap<number, string>): Promise<T> {
  try {
    return await start;
  } catch (error) {
    const { code, port } = error as { code?: unknown; port?: unknown };
    if (code !== 'EADDRINUSE' || typeof port !== 'number') throw error;
    const option = optionOfPort.get(port);
    throw new Error(`port ${port} is already in use${option === undefined ? '' : `: choose another with ${option}`}`, { cause: error });
  }
}
