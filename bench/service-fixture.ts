// The data the service load benchmark runs on: a fresh place (a SQLite file in a temporary
// folder, or a PostgreSQL schema of its own), one account seeded with the service's own code
// (account admin, the demo catalogue, the bulk seed), API keys issued the way operators issue
// them, and the values the scenarios aim at (entry ids, a project, a time, page 500's token).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { createAccount, newKey } from '../service/accounts/account-admin.js';
import { insertCatalogue } from '../service/accounts/demo-seed.js';
import { seedEntries } from '../service/storage/bulk-seed.js';
import { openDatabase } from '../service/storage/database.js';
import { ACCESS_RIGHTS } from '../service/storage/schema.js';

export interface BenchPlace {
  readonly name: 'SQLite' | 'PostgreSQL';
  /** What `--db` takes. */
  readonly url: string;
  /** Removes the file or the schema. */
  dispose(): Promise<void>;
}

export async function sqlitePlace(): Promise<BenchPlace> {
  const folder = await mkdtemp(join(tmpdir(), 'timegate-bench-'));
  return { name: 'SQLite', url: join(folder, 'bench.sqlite'), dispose: () => rm(folder, { recursive: true, force: true }) };
}

/** A schema `tg_bench_<random>` in the database of `baseUrl`, reached by search_path. */
export async function postgresPlace(baseUrl: string): Promise<BenchPlace> {
  const schema = `tg_bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(baseUrl, `create schema ${schema}`);
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { name: 'PostgreSQL', url: url.toString(), dispose: () => adminQuery(baseUrl, `drop schema if exists ${schema} cascade`) };
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

export interface SeedPlan {
  readonly entries: number;
  /** Standard users who get an API key each (one per connection of the stopwatch scenario). */
  readonly keyedUsers: number;
  /** How many entry ids the single-entity scenario rotates over. */
  readonly sampleIds: number;
  /** The page whose `$skiptoken` to compute (1-based), and the page size. */
  readonly deepPage: number;
  readonly pageSize: number;
}

export interface SeededAccount {
  readonly accountId: number;
  readonly adminKey: string;
  readonly userKeys: readonly string[];
  readonly entries: number;
  readonly seconds: number;
  /** An active project every user may book on. */
  readonly projectId: number;
  /** Entry ids spread over the whole table. */
  readonly entryIds: readonly number[];
  /** Half-way between the first and the last seeded StartTime. */
  readonly middleStartTime: Date;
  /** The ID of the first entry of page `deepPage` and of page 2, in the default order (by key). */
  readonly deepPageFirstId: number;
  readonly secondPageFirstId: number;
}

export async function seedAccount(url: string, plan: SeedPlan): Promise<SeededAccount> {
  const database = await openDatabase(url);
  const { db } = database;
  try {
    const started = Date.now();
    const account = await createAccount(db, { name: 'Lastprofil GmbH', adminEmail: 'admin@lastprofil.example' });
    await insertCatalogue(db, account.accountId, account.userId, account.userId, started);
    const seeded = await seedEntries(db, { accountId: account.accountId, entries: plan.entries });
    const seconds = (Date.now() - started) / 1000;

    const users = await db.selectFrom('users').select('id').where('account_id', '=', account.accountId)
      .where('access_rights', '=', ACCESS_RIGHTS.standardUser).where('active', '=', 1).orderBy('id').limit(plan.keyedUsers).execute();
    if (users.length < plan.keyedUsers) throw new Error(`only ${users.length} standard users to key, ${plan.keyedUsers} wanted`);
    const userKeys: string[] = [];
    for (const user of users) userKeys.push((await newKey(db, user.id)).apiKey);

    const project = await db.selectFrom('projects').select('id').where('account_id', '=', account.accountId)
      .where('active', '=', 1).where('assigned_users', 'is', null).orderBy('id').executeTakeFirstOrThrow();
    const entryIdAt = async (offset: number) => (await db.selectFrom('time_entries').select('id')
      .where('account_id', '=', account.accountId).orderBy('id').limit(1).offset(offset).executeTakeFirstOrThrow()).id;
    const stride = Math.max(1, Math.floor(seeded.inserted / plan.sampleIds));
    const entryIds = await db.selectFrom('time_entries').select('id').where('account_id', '=', account.accountId)
      .where(sql<boolean>`id % ${stride} = 0`).orderBy('id').limit(plan.sampleIds).execute();
    // Fresh planner statistics, as a database that has been running a while has them.
    if (database.dialect.name === 'postgres') await sql`analyze`.execute(db);
    else await sql`pragma optimize`.execute(db);
    return {
      accountId: account.accountId,
      adminKey: account.apiKey,
      userKeys,
      entries: seeded.inserted,
      seconds,
      projectId: project.id,
      entryIds: entryIds.map((row) => row.id),
      middleStartTime: new Date(Math.round((seeded.firstStartTime + seeded.lastStartTime) / 2 / 60_000) * 60_000),
      deepPageFirstId: await entryIdAt((plan.deepPage - 1) * plan.pageSize),
      secondPageFirstId: await entryIdAt(plan.pageSize),
    };
  } finally {
    await database.close();
  }
}
