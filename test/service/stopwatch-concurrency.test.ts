// One stopwatch per user, whatever the load: 200 concurrent StartStopWatch calls of one user,
// spread over two service processes on one database, leave exactly one running entry and every
// other one halted with a start and an end (service-api.md §3.1, §8).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { startTwoServiceProcesses } from '../helpers/service-process.js';
import type { ServiceProcess, TwoServiceProcesses } from '../helpers/service-process.js';

const STARTS = 200;

describe.each(testDatabases)('concurrent StartStopWatch through two service processes on $name', (kind) => {
  let two: TwoServiceProcesses;

  beforeAll(async () => {
    two = await startTwoServiceProcesses(kind);
  }, 60_000);

  afterAll(() => two?.close());

  it(`${STARTS} starts of one user leave one running entry and ${STARTS - 1} halted ones`, async () => {
    const before = Date.now();
    const responses = await Promise.all(Array.from({ length: STARTS }, async (_, i) => {
      const root = (two.processes[i % 2] as ServiceProcess).root;
      const response = await fetch(`${root}/StartStopWatch?ProjectID=${two.projectId}&Comment='start ${i}'&$format=json`, {
        headers: { 'x-serviceapikey': two.jana.apiKey },
      });
      return { status: response.status, body: await response.text() };
    }));
    expect(responses.filter((r) => r.status !== 200)).toEqual([]);

    const started = await two.database.db.selectFrom('time_entries').select(['id', 'start_time', 'end_time', 'comment'])
      .where('user_id', '=', two.jana.userId).where('start_time', '>=', before - 1000).orderBy('id').execute();
    expect(started).toHaveLength(STARTS);
    expect(new Set(started.map((e) => e.comment)).size).toBe(STARTS);
    const running = started.filter((e) => e.end_time === null);
    expect(running).toHaveLength(1);
    // The one still running is the last one started; every other one ended when the next began.
    expect(running[0]?.id).toBe(started[started.length - 1]?.id);
    for (const entry of started.filter((e) => e.end_time !== null)) {
      expect(entry.end_time).toBeGreaterThanOrEqual(entry.start_time);
    }
    const allRunning = await two.database.db.selectFrom('time_entries').select('id').where('end_time', 'is', null)
      .where('user_id', '=', two.jana.userId).execute();
    expect(allRunning).toHaveLength(1);
  }, 60_000);
});
