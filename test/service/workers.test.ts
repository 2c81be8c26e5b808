// `timegate service --workers 2`: two processes on one database keep the service's invariants.
// 200 concurrent StartStopWatch calls of one user, which the primary hands to both workers,
// leave exactly one running entry; a worker killed outright is replaced; SIGTERM stops every
// worker and the command exits 0; a database the workers cannot share is refused.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../service/accounts/demo-seed.js';
import type { DemoUser } from '../../service/accounts/demo-seed.js';
import type { DatabaseHandle } from '../../service/storage/database.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';
import { connectionsToTwoWorkers, startWorkersProcess } from '../helpers/workers-process.js';
import type { WorkersProcess } from '../helpers/workers-process.js';

const STARTS = 200;

async function until(check: () => boolean, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(testDatabases)('timegate service --workers 2 on $name', (kind) => {
  let place: TestDatabasePlace;
  let database: DatabaseHandle;
  let jana: DemoUser;
  let projectId: number;
  let server: WorkersProcess;

  beforeAll(async () => {
    place = await kind.create();
    database = await place.open();
    const seeded = await seedDemoAccount(database.db);
    if (!seeded.created) throw new Error('not seeded');
    jana = seeded.users[1] as DemoUser;
    projectId = (await database.db.selectFrom('projects').select('id').where('name', '=', 'Website-Relaunch').executeTakeFirstOrThrow()).id;
    server = await startWorkersProcess('service', ['--workers', '2', '--db', place.url]);
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await place?.dispose();
  });

  it('runs two workers, and a request on each connection reaches one of them', async () => {
    expect(server.workerPids()).toHaveLength(2);
    const [a, b] = await connectionsToTwoWorkers(server);
    const headers = { 'x-serviceapikey': jana.apiKey };
    const [fromA, fromB] = await Promise.all([a.get('/V1/Api.svc/Projects?$format=json', headers), b.get('/V1/Api.svc/Projects?$format=json', headers)]);
    a.close();
    b.close();
    expect([fromA.status, fromB.status]).toEqual([200, 200]);
    expect(fromA.body).toBe(fromB.body);
  }, 60_000);

  it(`${STARTS} concurrent starts of one user over both workers leave one running entry`, async () => {
    const before = Date.now();
    const responses = await Promise.all(Array.from({ length: STARTS }, async (_, i) => {
      const response = await fetch(`${server.origin}/V1/Api.svc/StartStopWatch?ProjectID=${projectId}&Comment='start ${i}'&$format=json`, {
        headers: { 'x-serviceapikey': jana.apiKey },
      });
      return { status: response.status, body: await response.text() };
    }));
    expect(responses.filter((r) => r.status !== 200)).toEqual([]);
    // Both workers took part: each logged some of the starts.
    const pids = new Set(server.logs.filter((l) => l.includes('StartStopWatch')).map((l) => (JSON.parse(l) as { pid: number }).pid));
    expect(pids.size).toBe(2);

    const started = await database.db.selectFrom('time_entries').select(['id', 'start_time', 'end_time', 'comment'])
      .where('user_id', '=', jana.userId).where('start_time', '>=', before - 1000).orderBy('id').execute();
    expect(started).toHaveLength(STARTS);
    const running = started.filter((e) => e.end_time === null);
    expect(running).toHaveLength(1);
    expect(running[0]?.id).toBe(started[started.length - 1]?.id);
    const allRunning = await database.db.selectFrom('time_entries').select('id').where('end_time', 'is', null)
      .where('user_id', '=', jana.userId).execute();
    expect(allRunning).toHaveLength(1);
  }, 120_000);

  it('replaces a worker that is killed outright, and keeps answering', async () => {
    const [victim, survivor] = server.workerPids() as [number, number];
    process.kill(victim, 'SIGKILL');
    await until(() => server.logs.some((l) => l.includes('a worker died; starting another')), 'the primary logged the death');
    const listeningPids = () => server.logs.filter((l) => l.includes('timegate service listening')).map((l) => (JSON.parse(l) as { pid: number }).pid);
    await until(() => server.workerPids().some((pid) => pid !== survivor && listeningPids().includes(pid)), 'a new worker listens');
    expect(server.workerPids()).toHaveLength(2);
    expect(server.workerPids()).toContain(survivor);
    expect(server.workerPids()).not.toContain(victim);
    const responses = await Promise.all(Array.from({ length: 6 }, () => fetch(`${server.origin}/V1/Api.svc/Projects?$format=json`, { headers: { 'x-serviceapikey': jana.apiKey } })));
    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(200));
  }, 120_000);

  it('stops every worker on SIGTERM and exits 0', async () => {
    const workers = server.workerPids();
    expect(workers).toHaveLength(2);
    const started = Date.now();
    expect(await server.stop()).toBe(0);
    // Gracefully, not by the primary's kill after the 10 s grace period.
    expect(Date.now() - started).toBeLessThan(9_000);
    expect(workers.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
  }, 60_000);
});

describe('timegate service --workers refusals', () => {
  it('refuses workers that could not share an in-memory database, and a bad count', () => {
    const memory = spawnSync(process.execPath, ['bin/timegate.js', 'service', '--workers', '2', '--db', ':memory:'], { encoding: 'utf8' });
    expect([memory.status, memory.stderr.trim()]).toEqual([2, 'timegate service: --workers needs a database they can share: a SQLite file or PostgreSQL, not :memory: (see timegate service --help)']);
    const zero = spawnSync(process.execPath, ['bin/timegate.js', 'service', '--workers', '0'], { encoding: 'utf8' });
    expect([zero.status, zero.stderr.trim()]).toEqual([2, "timegate service: --workers must be auto or a whole number from 1 to 256, not '0' (see timegate service --help)"]);
  }, 90_000);
});
