// `timegate service|gateway` as a separate, long-running process, as production runs it: spawned
// with `--port 0` and pino logs on stdout, ready once a log line says where it listens. A start
// that exits or takes too long fails with everything the process printed.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface StartedProcess<T> {
  /** What `listening` made of the log line that said the process listens. */
  readonly ready: T;
  readonly child: ChildProcess;
  /** Log lines printed so far (pino JSON). */
  readonly logs: string[];
  /** The exit code, once the process has exited. */
  readonly exited: Promise<number | null>;
}

export interface StartOptions<T> {
  /** Added over this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  /** What a log line's fields say once the process listens; undefined for every other line. */
  readonly listening: (fields: Record<string, unknown>) => T | undefined;
}

/** `timegate <command> --port 0 --log-level info ...args`, once it listens. */
export function startTimegateProcess<T>(command: 'service' | 'gateway', args: readonly string[], options: StartOptions<T>): Promise<StartedProcess<T>> {
  const child = spawn(process.execPath, ['bin/timegate.js', command, '--port', '0', '--log-level', 'info', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  const logs: string[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timegate ${command} did not start in time:\n${stderr}`));
    }, options.timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`timegate ${command} exited with ${code} before listening:\n${stderr}\n${logs.join('\n')}`));
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      logs.push(line);
      const fields = logFields(line);
      const ready = fields === undefined ? undefined : options.listening(fields);
      if (ready === undefined) return;
      clearTimeout(timer);
      resolve({ ready, child, logs, exited });
    });
  });
}

/** A log line's fields; undefined for a line that is no JSON object. */
export function logFields(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
