// How the primary of `--workers` answers its workers' exits. One that dies by a signal before it
// listens (a native crash at start, as better-sqlite3 12 aborting on Node 24, or the OOM killer)
// fails the start: it is not retried, the primary stops the other worker and exits 1 with the
// reason. Workers stopped cleanly (each sent SIGTERM itself) are not replaced, and once none is
// left the primary ends too, with 0, instead of lingering with nothing to serve.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function serviceWithTwoWorkers(db: string) {
  const child = spawn(process.execPath, ['bin/timegate.js', 'service', '--workers', '2', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  let output = '';
  const listening = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('all 2 workers listening')) resolve();
    });
  });
  const exited = new Promise<number | string | null>((resolve) => {
    child.once('exit', resolve);
    setTimeout(() => resolve('still running after 40 s'), 40_000).unref();
  });
  return { pid: child.pid as number, listening, exited, errors: () => errors, kill: () => child.kill('SIGKILL') };
}

async function workersOf(pid: number): Promise<number[]> {
  let workers: number[] = [];
  while (workers.length < 2) {
    workers = childrenOf(pid);
    await new Promise((wait) => setTimeout(wait, 2));
  }
  return workers;
}

describe('timegate service --workers 2, its workers exiting', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'timegate-workers-fail-'));
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('a worker killed while it starts: exits 1 with a message, and no worker is left', async () => {
    const service = serviceWithTwoWorkers(join(folder, 'killed.sqlite'));
    const workers = await workersOf(service.pid);
    process.kill(workers[0] as number, 'SIGKILL');
    const code = await service.exited;
    if (typeof code === 'string') service.kill();
    expect(code).toBe(1);
    expect(service.errors()).toMatch(/a worker failed to start \(exit code SIGKILL\)/);
    expect(workers.filter((worker) => existsSync(`/proc/${worker}`))).toEqual([]);
  }, 60_000);

  it('every worker stopped by SIGTERM of its own: none restarted, the primary exits 0', async () => {
    const service = serviceWithTwoWorkers(join(folder, 'stopped.sqlite'));
    const workers = await workersOf(service.pid);
    // Once both listen, the start is over: a worker's exit is no failed start.
    await service.listening;
    for (const worker of workers) process.kill(worker, 'SIGTERM');
    const code = await service.exited;
    if (typeof code === 'string') service.kill();
    expect(code).toBe(0);
    expect(childrenOf(service.pid)).toEqual([]);
  }, 60_000);
});
