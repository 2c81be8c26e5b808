// The shape every `timegate` subcommand has; main.ts only dispatches.

export interface Command {
  readonly name: string;
  /** Full `timegate <name> --help` text. */
  readonly usage: string;
  /** Runs with the arguments after the subcommand name; resolves to the exit code. */
  run(args: readonly string[]): Promise<number>;
}

/** Wrong command line: reported on one line, exit code 2 (as getopt-style tools do). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `node:util` parseArgs errors carry a code; their messages are already one readable line. */
export function isParseArgsError(error: unknown): error is Error {
  return error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS_');
}
