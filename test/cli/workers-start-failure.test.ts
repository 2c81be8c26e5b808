// A worker of `--workers` that dies by a signal before it listens (a native crash at start, as
// better-sqlite3 12 aborting on Node 24, or the OOM killer) fails the start: it is not retried,
// the primary stops the other worker and exits 1 with the reason, and no worker is left behind.
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

describe('timegate service --workers 2, a worker killed while it starts', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'timegate-workers-fail-'));
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('exits 1 with a message, and no worker is left', async () => {
    const child = spawn(process.execPath, ['bin/timegate.js', 'service', '--workers', '2', '--db', join(folder, 'db.sqlite'), '--port', '0', '--log-level', 'silent'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const pid = child.pid as number;
    let workers: number[] = [];
    while (workers.length < 2) {
      workers = childrenOf(pid);
      await new Promise((wait) => setTimeout(wait, 2));
    }
    process.kill(workers[0] as number, 'SIGKILL');
    const code = await Promise.race([exited, new Promise((wait) => setTimeout(() => wait('still running after 20 s'), 20_000))]);
    if (code === 'still running after 20 s') child.kill('SIGKILL');
    expect(code).toBe(1);
    expect(errors).toMatch(/a worker failed to start \(exit code SIGKILL\)/);
    expect(workers.filter((worker) => existsSync(`/proc/${worker}`))).toEqual([]);
  }, 60_000);
});
