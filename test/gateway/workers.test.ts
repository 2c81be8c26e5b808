// `timegate gateway --workers 2 --redis`: two processes behind one port hold the edge's
// invariants together, through Redis: a write through one worker outdates the entry the other
// serves, a rate limit is one budget over both, and a list cursor signed by one worker is good
// on the other. Without --redis, more than one worker is refused.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import type { WorkersProcess } from '../helpers/workers-process.js';
import { connectionsToTwoWorkers, startWorkersProcess } from '../helpers/workers-process.js';
import { REDIS_URL, uniqueKeyPrefix } from './cache-fixture.js';

const sqlite = testDatabases.filter((kind) => kind.name === 'sqlite');

describe.each(sqlite)('timegate gateway --workers 2 on Redis ($name)', (kind) => {
  let service: TestService;
  let gateway: WorkersProcess;
  const admin = (): Record<string, string> => ({ 'x-serviceapikey': service.admin.apiKey });

  beforeAll(async () => {
    service = await startTestService(kind);
    gateway = await startWorkersProcess('gateway', ['--upstream', service.root, '--workers', '2', '--redis', REDIS_URL, '--redis-prefix', uniqueKeyPrefix(),
      '--cache-ttl', '1m', '--rate-limit-class', 'stopwatch=30/1m']);
  }, 90_000);
  afterAll(async () => {
    await gateway?.stop();
    await service?.close();
  });

  test('a write through one worker outdates the cached read on the other at once', async () => {
    expect(gateway.workerPids()).toHaveLength(2);
    const [a, b] = await connectionsToTwoWorkers(gateway);
    try {
      const path = '/api/v1/projects/1';
      expect((await b.get(path, admin())).status).toBe(200);
      const hit = await b.get(path, admin());
      expect([hit.status, hit.headers['x-cache']]).toEqual([200, 'HIT']);

      const comment = `via worker a ${Date.now()}`;
      const patch = await a.send('PATCH', path, { ...admin(), 'content-type': 'application/merge-patch+json' }, JSON.stringify({ comment }));
      expect(patch.status).toBe(200);

      const after = await b.get(path, admin());
      expect(after.headers['x-cache']).toBe('MISS');
      expect((JSON.parse(after.body) as { comment: string }).comment).toBe(comment);
    } finally {
      a.close();
      b.close();
    }
  }, 60_000);

  test('a limit of 30 stopwatch calls a minute lets exactly 30 of 90 concurrent ones through both workers', async () => {
    const headers = { 'x-serviceapikey': service.jana.apiKey };
    const statuses = await Promise.all(Array.from({ length: 90 }, async (_, i) => {
      const response = await fetch(`${gateway.origin}/V1/Api.svc/StartStopWatch?ProjectID=1&Comment='limit ${i}'&$format=json`, { headers });
      await response.arrayBuffer();
      return response.status;
    }));
    const byStatus: Record<number, number> = {};
    for (const status of statuses) byStatus[status] = (byStatus[status] ?? 0) + 1;
    expect(byStatus).toEqual({ 200: 30, 429: 60 });
    const pids = new Set(gateway.logs.filter((l) => l.includes('StartStopWatch')).map((l) => (JSON.parse(l) as { pid: number }).pid));
    expect(pids.size).toBe(2);
  }, 60_000);

  test('a list cursor one worker signed is followed by the other', async () => {
    const [a, b] = await connectionsToTwoWorkers(gateway);
    try {
      const first = JSON.parse((await a.get('/api/v1/time-entries?limit=2', admin())).body) as { next: string | null };
      expect(first.next).toEqual(expect.any(String));
      const next = new URL(first.next as string, gateway.origin);
      const second = await b.get(`${next.pathname}${next.search}`, admin());
      expect(second.status).toBe(200);
      expect((JSON.parse(second.body) as { items: unknown[] }).items).toHaveLength(2);
    } finally {
      a.close();
      b.close();
    }
  }, 60_000);
});

test('more than one gateway worker without Redis is refused: each would keep its own cache and counters', () => {
  const refused = spawnSync(process.execPath, ['bin/timegate.js', 'gateway', '--upstream', 'http://127.0.0.1:1/V1/Api.svc', '--workers', '2'], { encoding: 'utf8' });
  expect([refused.status, refused.stderr.trim()]).toEqual([2, 'timegate gateway: --workers above 1 needs --redis <url>, where the workers share their cache and rate limits (see timegate gateway --help)']);
}, 30_000);
