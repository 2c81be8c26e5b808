// The demo account of `npm start`: created on an empty database only, complete, and usable.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../service/accounts/account-admin.js';
import { authenticate } from '../../service/accounts/authenticate.js';
import { seedDemoAccount } from '../../service/accounts/demo-seed.js';
import type { DemoSeedResult } from '../../service/accounts/demo-seed.js';
import type { Database } from '../../service/storage/schema.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';

const NOW = Date.UTC(2026, 10, 20, 15, 0, 0);

describe.each(testDatabases)('demo seed on $name', (kind) => {
  let place: TestDatabasePlace;
  let db: Kysely<Database>;
  let seeded: Extract<DemoSeedResult, { created: true }>;

  beforeAll(async () => {
    place = await kind.create();
    db = (await place.open()).db;
    const result = await seedDemoAccount(db, NOW);
    if (!result.created) throw new Error('the demo account was not created on an empty database');
    seeded = result;
  });
  afterAll(() => place.dispose());

  it('gives an administrator and two employees whose printed keys work', async () => {
    expect(seeded.users.map((user) => user.role)).toEqual(['admin', 'user', 'user']);
    for (const user of seeded.users) {
      expect(await authenticate(db, user.apiKey)).toEqual({
        ok: true, accountId: seeded.accountId, userId: user.userId, accessRights: user.role === 'admin' ? 20 : 10,
      });
    }
  });

  it('has clients, tasks and projects with the interesting cases', async () => {
    const clients = await db.selectFrom('clients').selectAll().where('account_id', '=', seeded.accountId).execute();
    const tasks = await db.selectFrom('tasks').selectAll().where('account_id', '=', seeded.accountId).execute();
    const projects = await db.selectFrom('projects').selectAll().where('account_id', '=', seeded.accountId).execute();
    expect(clients).toHaveLength(3);
    expect(tasks).toHaveLength(5);
    expect(tasks.some((task) => task.billable === 0)).toBe(true);
    expect(projects).toHaveLength(6);
    expect(projects.filter((project) => project.active === 0)).toHaveLength(1);
    expect(projects.filter((project) => project.assigned_users !== null)).toHaveLength(1);
    expect(projects.filter((project) => project.hourly_rate !== null).length).toBeGreaterThanOrEqual(2);
    expect(projects.some((project) => project.client_id === null)).toBe(true);
  });

  it('has a few hundred bookings of the last weeks, following the projects\' assignments', async () => {
    const entries = await db.selectFrom('time_entries as e').innerJoin('projects as p', 'p.id', 'e.project_id')
      .select(['e.user_id', 'e.start_time', 'e.end_time', 'e.task_id', 'p.assigned_users', 'p.assigned_tasks'])
      .where('e.account_id', '=', seeded.accountId).execute();
    expect(entries).toHaveLength(seeded.timeEntries);
    expect(entries.length).toBeGreaterThanOrEqual(200);
    expect(entries.length).toBeLessThanOrEqual(600);
    for (const entry of entries) {
      expect(entry.start_time).toBeGreaterThan(NOW - 60 * 86_400_000);
      expect(entry.start_time).toBeLessThanOrEqual(NOW);
      if (entry.end_time !== null) expect(entry.end_time).toBeGreaterThan(entry.start_time);
      if (entry.assigned_users !== null) expect(entry.assigned_users.split(',').map(Number)).toContain(entry.user_id);
      if (entry.assigned_tasks !== null) expect(entry.assigned_tasks.split(',').map(Number)).toContain(entry.task_id);
    }
    const running = entries.filter((entry) => entry.end_time === null);
    expect(running.map((entry) => entry.user_id)).toEqual([seeded.users[2]?.userId]);
  });

  it('does nothing when run again, or when any account exists', async () => {
    const before = await db.selectFrom('time_entries').select('id').execute();
    expect(await seedDemoAccount(db, NOW)).toEqual({ created: false });
    expect(await db.selectFrom('time_entries').select('id').execute()).toEqual(before);
    expect(await db.selectFrom('accounts').select('id').execute()).toHaveLength(1);

    const other = await kind.create();
    try {
      const otherDb = (await other.open()).db;
      await createAccount(otherDb, { name: 'Echte Firma', adminEmail: 'a@echt.example' });
      expect(await seedDemoAccount(otherDb, NOW)).toEqual({ created: false });
      expect(await otherDb.selectFrom('projects').select('id').execute()).toEqual([]);
    } finally {
      await other.dispose();
    }
  });
});
