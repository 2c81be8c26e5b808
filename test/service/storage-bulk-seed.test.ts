// `timegate seed`: many realistic time entries, fast, counted right.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../service/accounts/demo-seed.js';
import { seedEntries } from '../../service/storage/bulk-seed.js';
import type { Database } from '../../service/storage/schema.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';

const NOW = Date.UTC(2026, 10, 20, 15, 0, 0);
const ENTRIES = 20_000;

describe.each(testDatabases)('bulk seed on $name', (kind) => {
  let place: TestDatabasePlace;
  let db: Kysely<Database>;
  let accountId: number;
  let demoEntries: number;

  beforeAll(async () => {
    place = await kind.create();
    db = (await place.open()).db;
    const demo = await seedDemoAccount(db, NOW);
    if (!demo.created) throw new Error('no demo account');
    accountId = demo.accountId;
    demoEntries = demo.timeEntries;
  });
  afterAll(() => place.dispose());

  it(`adds ${ENTRIES} entries in batches, reporting progress up to the total`, async () => {
    const progress: number[] = [];
    const started = performance.now();
    const result = await seedEntries(db, { accountId, entries: ENTRIES, now: NOW, onProgress: (inserted) => progress.push(inserted) });
    const elapsedMs = performance.now() - started;

    expect(result.inserted).toBe(ENTRIES);
    expect(progress.at(-1)).toBe(ENTRIES);
    expect(progress).toEqual([...progress].sort((x, y) => x - y));
    expect(progress.length).toBeGreaterThan(1);
    const { n } = await db.selectFrom('time_entries').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId).executeTakeFirstOrThrow();
    expect(Number(n)).toBe(demoEntries + ENTRIES);
    // Generous on purpose (shared CI machines); locally this takes well under a second on SQLite.
    expect(elapsedMs).toBeLessThan(20_000);
  });

  it('books finished entries of active users on projects and tasks they may use, ending before now', async () => {
    const wrong = await db.selectFrom('time_entries as e')
      .innerJoin('projects as p', 'p.id', 'e.project_id')
      .innerJoin('users as u', 'u.id', 'e.user_id')
      .select(['e.id', 'e.user_id', 'e.task_id', 'p.assigned_users', 'p.assigned_tasks', 'p.active', 'u.active as user_active', 'e.end_time'])
      .where('e.account_id', '=', accountId)
      .where('e.comment', 'is distinct from', 'Stoppuhr läuft')
      .where((eb) => eb.or([eb('e.end_time', 'is', null), eb('e.end_time', '>', NOW), eb('u.active', '=', 0)]))
      .execute();
    expect(wrong).toEqual([]);
    const rows = await db.selectFrom('time_entries as e').innerJoin('projects as p', 'p.id', 'e.project_id')
      .select(['e.user_id', 'e.task_id', 'p.assigned_users', 'p.assigned_tasks', 'p.active'])
      .where('e.account_id', '=', accountId).where('e.start_time', '<', NOW - 60 * 86_400_000).execute();
    expect(rows.length).toBeGreaterThan(ENTRIES / 2);
    for (const row of rows) {
      expect(row.active).toBe(1);
      if (row.assigned_users !== null) expect(row.assigned_users.split(',').map(Number)).toContain(row.user_id);
      if (row.assigned_tasks !== null && row.task_id !== null) expect(row.assigned_tasks.split(',').map(Number)).toContain(row.task_id);
    }
  });

  it('gives the same data for the same seed and instant', async () => {
    const seedTwice = [await kind.create(), await kind.create()];
    try {
      const samples = await Promise.all(seedTwice.map(async (other) => {
        const otherDb = (await other.open()).db;
        const demo = await seedDemoAccount(otherDb, NOW);
        if (!demo.created) throw new Error('no demo account');
        await seedEntries(otherDb, { accountId: demo.accountId, entries: 2_000, now: NOW });
        return otherDb.selectFrom('time_entries')
          .select(['user_id', 'project_id', 'task_id', 'start_time', 'end_time', 'billable', 'comment'])
          .orderBy('id').execute();
      }));
      expect(samples[0]).toHaveLength(demoEntries + 2_000);
      expect(samples[1]).toEqual(samples[0]);
    } finally {
      await Promise.all(seedTwice.map((other) => other.dispose()));
    }
  });
});
