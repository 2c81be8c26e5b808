// Runs the `timegate` command as users do (bin/timegate.js in a fresh Node process).
import { spawn } from 'node:child_process';
import { expect } from 'vitest';

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function timegate(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/timegate.js', ...args], { env: { ...process.env, DEBUG: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `timegate admin <args> --db <url>` that succeeds: exit 0, nothing on stderr, one JSON line on stdout (parsed). */
export async function adminJson(dbUrl: string, ...args: string[]): Promise<Record<string, unknown>> {
  const run = await timegate(['admin', ...args, '--db', dbUrl]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string) as Record<string, unknown>;
}

/** One diagnostic line prefixed with the command, and nothing that looks like a stack trace. */
export function expectOneLineError(run: Run, exitCode: number, command = ''): string {
  expect(run.code).toBe(exitCode);
  const lines = run.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(lines[0]).toMatch(new RegExp(`^timegate( ${command || '\\w+'})?: `));
  return lines[0] ?? '';
}
