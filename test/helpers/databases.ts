// The databases every storage-touching suite runs on: SQLite always, PostgreSQL too when
// DATABASE_URL is set. Each create() gives a fresh, private place: a SQLite file in a temp folder,
// or a PostgreSQL schema tg_<random> (search_path set in the URL), so test files can run in
// parallel on one `test` database. dispose() closes what was opened and removes the place.
//
//   describe.each(testDatabases)('... on $name', (kind) => {
//     let place: TestDatabasePlace; let handle: DatabaseHandle;
//     beforeAll(async () => { place = await kind.create(); handle = await place.open(); });
//     afterAll(() => place.dispose());
//   });
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../service/storage/database.js';
import type { DatabaseHandle, OpenDatabaseOptions } from '../../service/storage/database.js';

export interface TestDatabasePlace {
  /** What `--db` / openDatabase() take to reach this place (also from a child process). */
  readonly url: string;
  /** Opens (and by default migrates) the place; every handle is closed by dispose(). */
  open(options?: OpenDatabaseOptions): Promise<DatabaseHandle>;
  dispose(): Promise<void>;
}

export interface TestDatabaseKind {
  readonly name: 'sqlite' | 'postgres';
  create(): Promise<TestDatabasePlace>;
}

function place(url: string, remove: () => Promise<void>): TestDatabasePlace {
  const handles: DatabaseHandle[] = [];
  return {
    url,
    async open(options) {
      const handle = await openDatabase(url, options);
      handles.push(handle);
      return handle;
    },
    async dispose() {
      await Promise.all(handles.splice(0).map((handle) => handle.close()));
      await remove();
    },
  };
}

export const sqlite: TestDatabaseKind = {
  name: 'sqlite',
  async create() {
    const folder = await mkdtemp(join(tmpdir(), 'timegate-test-'));
    return place(join(folder, 'test.sqlite'), () => rm(folder, { recursive: true, force: true }));
  },
};

function postgres(baseUrl: string): TestDatabaseKind {
  return {
    name: 'postgres',
    async create() {
      const schema = `tg_${randomBytes(6).toString('hex')}`;
      await adminQuery(baseUrl, `create schema ${schema}`);
      const url = new URL(baseUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return place(url.toString(), () => adminQuery(baseUrl, `drop schema if exists ${schema} cascade`));
    },
  };
}

async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const databaseUrl = process.env['DATABASE_URL'];

export const testDatabases: readonly TestDatabaseKind[] =
  databaseUrl !== undefined && /^postgres(ql)?:\/\//.test(databaseUrl) ? [sqlite, postgres(databaseUrl)] : [sqlite];
