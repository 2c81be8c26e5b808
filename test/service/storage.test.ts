// The schema as a specification: what the database itself guarantees, on SQLite and PostgreSQL.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../service/accounts/account-admin.js';
import { openDatabase } from '../../service/storage/database.js';
import type { DatabaseHandle } from '../../service/storage/database.js';
import type { Database } from '../../service/storage/schema.js';
import { StorageConfigError } from '../../service/storage/storage-errors.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';

const T0 = 1_700_000_000_123;
const execFileAsync = promisify(execFile);

/** Opens (and so migrates) the database in a separate Node process; prints the migrations it applied. */
async function openInChildProcess(url: string): Promise<string> {
  const script = 'const { openDatabase } = await import(process.argv[1]); const h = await openDatabase(process.argv[2]);'
    + ' console.log(JSON.stringify(h.appliedMigrations)); await h.close();';
  const databaseModule = fileURLToPath(new URL('../../service/storage/database.ts', import.meta.url));
  const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, databaseModule, url]);
  return stdout;
}

interface Company {
  accountId: number;
  userId: number;
  clientId: number;
  projectId: number;
  taskId: number;
}

async function company(db: Kysely<Database>, name: string): Promise<Company> {
  const { accountId, userId } = await createAccount(db, { name, adminEmail: `admin@${name.toLowerCase()}.example` });
  const stamp = { account_id: accountId, last_change_time: T0, last_change_author: userId };
  const client = await db.insertInto('clients').values({ ...stamp, name: `${name} client`, active: 1 }).returning('id').executeTakeFirstOrThrow();
  const project = await db.insertInto('projects').values({ ...stamp, name: `${name} project`, active: 1, client_id: client.id, hourly_rate: '95.50' })
    .returning('id').executeTakeFirstOrThrow();
  const task = await db.insertInto('tasks').values({ ...stamp, description: 'Design', billable: 1, active: 1 }).returning('id').executeTakeFirstOrThrow();
  return { accountId, userId, clientId: client.id, projectId: project.id, taskId: task.id };
}

function entry(c: Company, overrides: Partial<{ user_id: number; project_id: number; task_id: number | null; start_time: number; end_time: number | null }> = {}) {
  return {
    account_id: c.accountId, type_id: 2, user_id: c.userId, project_id: c.projectId, task_id: c.taskId,
    start_time: T0, end_time: T0 + 3_600_000, comment: null, billable: 1 as const, locked: 0 as const,
    last_change_time: T0, last_change_author: c.userId, ...overrides,
  };
}

async function count(db: Kysely<Database>, table: keyof Database): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(testDatabases)('storage on $name', (kind) => {
  let place: TestDatabasePlace;
  let handle: DatabaseHandle;
  let db: Kysely<Database>;
  let a: Company;
  let b: Company;

  beforeAll(async () => {
    place = await kind.create();
    handle = await place.open();
    db = handle.db;
    a = await company(db, 'Alpha');
    b = await company(db, 'Beta');
  });
  afterAll(() => place.dispose());

  it('migrates a new database once and a current one not again', async () => {
    expect(handle.appliedMigrations).toEqual(['001-initial', '002-deleted-entry-owner', '003-web-sign-in', '004-row-versions', '005-internal-row-versions']);
    const again = await place.open();
    expect(again.appliedMigrations).toEqual([]);
    for (const table of ['accounts', 'users', 'api_keys', 'account_settings', 'clients', 'projects', 'tasks',
      'time_entries', 'deleted_time_entries'] as const) {
      await expect(count(again.db, table)).resolves.toBeGreaterThanOrEqual(0);
    }
    const recorded = await sql<{ name: string }>`select name from kysely_migration`.execute(again.db);
    expect(recorded.rows.map((row) => row.name)).toEqual(['001-initial', '002-deleted-entry-owner', '003-web-sign-in', '004-row-versions', '005-internal-row-versions']);
    expect(await count(db, 'accounts')).toBe(2);
  });

  it('migrates once when several processes open a new database at the same time', async () => {
    const fresh = await kind.create();
    try {
      const outputs = await Promise.all(Array.from({ length: 3 }, () => openInChildProcess(fresh.url)));
      expect(outputs.flatMap((output) => JSON.parse(output) as string[])).toEqual(['001-initial', '002-deleted-entry-owner', '003-web-sign-in', '004-row-versions', '005-internal-row-versions']);
    } finally {
      await fresh.dispose();
    }
  });

  it('migrates while other schemas of the same database are created and dropped', async () => {
    // Several deployments or test suites share one PostgreSQL database, a schema each; one
    // dropping its schema must not fail another's start.
    let churning = true;
    const churn = (async () => {
      while (churning) {
        const other = await kind.create();
        await other.open();
        await other.dispose();
      }
    })();
    try {
      for (let i = 0; i < 4; i++) {
        const fresh = await kind.create();
        try {
          const opened = await fresh.open();
          expect(opened.appliedMigrations).toEqual(['001-initial', '002-deleted-entry-owner', '003-web-sign-in', '004-row-versions', '005-internal-row-versions']);
          if (opened.dialect.name === 'postgres') {
            const tables = await opened.db.introspection.getTables({ withInternalKyselyTables: true });
            const own = (await sql<{ schema: string }>`select current_schema() as schema`.execute(opened.db)).rows[0]?.schema;
            expect(tables.map((table) => table.name)).toContain('time_entries');
            expect(tables.every((table) => table.schema === own)).toBe(true);
          }
        } finally {
          await fresh.dispose();
        }
      }
    } finally {
      churning = false;
      await churn;
    }
  });

  it('keeps timestamps exact, decimals canonical and counts numeric', async () => {
    const { id } = await db.insertInto('time_entries').values(entry(a, { start_time: T0, end_time: T0 + 1 })).returning('id').executeTakeFirstOrThrow();
    const row = await db.selectFrom('time_entries').select(['start_time', 'end_time']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ start_time: T0, end_time: T0 + 1 });
    const project = await db.selectFrom('projects').select('hourly_rate').where('id', '=', a.projectId).executeTakeFirstOrThrow();
    expect(handle.dialect.readDecimal(project.hourly_rate, 2)).toBe('95.50');
    expect(typeof (await db.selectFrom('time_entries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n).toBe('number');
    await db.deleteFrom('time_entries').where('id', '=', id).execute();
  });

  describe('account isolation at the data level', () => {
    it('refuses a time entry of one account on a project, user or task of another', async () => {
      for (const foreign of [{ project_id: b.projectId }, { user_id: b.userId }, { task_id: b.taskId }]) {
        const error = await db.insertInto('time_entries').values(entry(a, foreign)).execute().catch((e: unknown) => e);
        expect(handle.dialect.constraintViolation(error)?.kind).toBe('foreign-key');
      }
      expect(await count(db, 'time_entries')).toBe(0);
    });

    it('refuses a project of one account with a client of another', async () => {
      const error = await db.insertInto('projects').values({ account_id: a.accountId, name: 'x', active: 1, client_id: b.clientId,
        last_change_time: T0, last_change_author: a.userId }).execute().catch((e: unknown) => e);
      expect(handle.dialect.constraintViolation(error)?.kind).toBe('foreign-key');
    });
  });

  describe('one running stopwatch per user', () => {
    it('refuses a second running entry for the same user, allows one per user and a new one after halting', async () => {
      const running = await db.insertInto('time_entries').values(entry(a, { end_time: null })).returning('id').executeTakeFirstOrThrow();
      const error = await db.insertInto('time_entries').values(entry(a, { end_time: null, start_time: T0 + 5 })).execute().catch((e: unknown) => e);
      const violation = handle.dialect.constraintViolation(error);
      expect(violation?.kind).toBe('unique');
      expect(violation?.constraint === 'time_entries_one_running_per_user' || violation?.columns.join() === 'user_id').toBe(true);

      await db.insertInto('time_entries').values(entry(b, { end_time: null })).execute();
      await db.insertInto('time_entries').values(entry(a)).execute();
      await db.updateTable('time_entries').set({ end_time: T0 + 60_000 }).where('id', '=', running.id).execute();
      await db.insertInto('time_entries').values(entry(a, { end_time: null, start_time: T0 + 60_000 })).execute();

      const open = await db.selectFrom('time_entries').select(['user_id']).where('end_time', 'is', null).orderBy('user_id').execute();
      expect(open.map((row) => row.user_id)).toEqual([a.userId, b.userId].sort((x, y) => x - y));
      await db.deleteFrom('time_entries').execute();
    });

    it('holds under concurrent starts', async () => {
      const attempts = await Promise.allSettled(Array.from({ length: 20 }, (_, i) =>
        db.insertInto('time_entries').values(entry(a, { end_time: null, start_time: T0 + i })).execute()));
      expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
      await db.deleteFrom('time_entries').execute();
    });
  });

  it('refuses an entry that ends before it starts, and flags other than 0 and 1', async () => {
    const backwards = await db.insertInto('time_entries').values(entry(a, { end_time: T0 - 1 })).execute().catch((e: unknown) => e);
    expect(handle.dialect.constraintViolation(backwards)?.kind).toBe('check');
    const notAFlag = await db.updateTable('projects').set({ active: 2 as 1 }).where('id', '=', a.projectId).execute().catch((e: unknown) => e);
    expect(handle.dialect.constraintViolation(notAFlag)?.kind).toBe('check');
  });

  describe('deleting what others depend on (RESTRICT)', () => {
    it('fails for a project with entries and leaves the whole transaction undone', async () => {
      await db.insertInto('time_entries').values([entry(a), entry(a, { start_time: T0 + 7_200_000, end_time: T0 + 7_300_000 })]).execute();
      const error = await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('time_entries').where('account_id', '=', a.accountId).where('start_time', '=', T0).execute();
        await trx.deleteFrom('projects').where('id', '=', a.projectId).execute();
      }).catch((e: unknown) => e);
      expect(handle.dialect.constraintViolation(error)?.kind).toBe('foreign-key');
      expect(await count(db, 'time_entries')).toBe(2);
      expect(await db.selectFrom('projects').select('id').where('id', '=', a.projectId).executeTakeFirst()).toEqual({ id: a.projectId });
    });

    it('fails for a client with projects and for a task with entries', async () => {
      for (const attempt of [db.deleteFrom('clients').where('id', '=', a.clientId), db.deleteFrom('tasks').where('id', '=', a.taskId)]) {
        const error = await attempt.execute().catch((e: unknown) => e);
        expect(handle.dialect.constraintViolation(error)?.kind).toBe('foreign-key');
      }
      expect(await count(db, 'clients')).toBe(2);
      expect(await count(db, 'tasks')).toBe(2);
    });

    it('succeeds once the dependants are gone', async () => {
      await db.deleteFrom('time_entries').where('project_id', '=', a.projectId).execute();
      await db.deleteFrom('projects').where('id', '=', a.projectId).execute();
      await db.deleteFrom('clients').where('id', '=', a.clientId).execute();
      expect(await db.selectFrom('clients').select('account_id').execute()).toEqual([{ account_id: b.accountId }]);
    });
  });

  it('finds the plan of a keyset page on the (account, project, start) index', async () => {
    const query = sql`select id from time_entries where account_id = ${b.accountId} and project_id = ${b.projectId}
      and start_time > ${T0} order by start_time, id limit 100`;
    const explain = kind.name === 'sqlite' ? sql`explain query plan ${query}` : sql`explain ${query}`;
    // PostgreSQL may rightly prefer a seq scan on an almost empty table; forbid it for the check.
    const plan = await db.transaction().execute(async (trx) => {
      if (kind.name === 'postgres') await sql`set local enable_seqscan = off`.execute(trx);
      return JSON.stringify((await explain.execute(trx)).rows);
    });
    expect(plan).toContain('time_entries_project_start');
  });
});

describe('openDatabase', () => {
  let folder: string;
  beforeAll(async () => { folder = await mkdtemp(join(tmpdir(), 'timegate-open-')); });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('creates the folders of a SQLite file and uses WAL with foreign keys on', async () => {
    const file = join(folder, 'nested', 'deeper', 'db.sqlite');
    const handle = await openDatabase(file);
    const journal = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(handle.db);
    const keys = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(handle.db);
    await handle.close();
    expect((await stat(file)).isFile()).toBe(true);
    expect(journal.rows[0]?.journal_mode).toBe('wal');
    expect(keys.rows[0]?.foreign_keys).toBe(1);
    expect(handle.location).toBe(`sqlite:${file}`);
  });

  it('refuses a URL scheme it does not support', async () => {
    await expect(openDatabase('mysql://localhost/x')).rejects.toBeInstanceOf(StorageConfigError);
  });

  it('never shows a PostgreSQL password in its location', async () => {
    const handle = await openDatabase('postgres://tg:s3cret@127.0.0.1:1/none', { migrate: false });
    await handle.close();
    expect(handle.location).not.toContain('s3cret');
    expect(handle.dialect.name).toBe('postgres');
  });
});
