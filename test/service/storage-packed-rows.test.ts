// On SQLite the entity reader asks for each row as one JSON array text (StorageDialect.packRow),
// which reads a page faster than better-sqlite3's column values. The records must be the very
// ones the separate columns give: every entity set, the computed columns (a client's assignment,
// the order values of navigation paths, the next page's key), and text of any character.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { model } from '../../generated/model.js';
import { indexModel } from '../../odata/model-index.js';
import type { EntityQuery } from '../../service/odata-server/data-source.js';
import { keyOrder } from '../../service/odata-server/operation.js';
import { seedDemoAccount } from '../../service/accounts/demo-seed.js';
import type { DatabaseHandle } from '../../service/storage/database.js';
import type { Caller } from '../../service/timetracking/caller.js';
import { EntityReader } from '../../service/timetracking/entity-reader.js';
import { EntityTables } from '../../service/timetracking/tables.js';
import type { TestDatabasePlace } from '../helpers/databases.js';
import { testDatabases } from '../helpers/databases.js';
import { DEMO_NOW } from '../helpers/service.js';

const sqlite = testDatabases.find((kind) => kind.name === 'sqlite');
if (sqlite === undefined) throw new Error('no SQLite test database');

// Quotes, backslashes, every control character, NUL, U+2028/2029, non-BMP, markup.
const AWKWARD_TEXT = `"zitiert" \\ \\u0041 ${Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('')} \u2028\u2029 ÄÖÜß € 😀 </d:x> ]]>`;

describe('packed rows on SQLite', () => {
  let place: TestDatabasePlace;
  let database: DatabaseHandle;
  let packed: EntityReader;
  let plain: EntityReader;
  let tables: EntityTables;
  let admin: Caller;
  let jana: Caller;
  const index = indexModel(model);

  beforeAll(async () => {
    place = await (sqlite as NonNullable<typeof sqlite>).create();
    database = await place.open();
    const seeded = await seedDemoAccount(database.db, DEMO_NOW);
    if (!seeded.created) throw new Error('the test database already had an account');
    const [alex, janaUser] = seeded.users;
    const entry = await database.db.selectFrom('time_entries').select('id').where('user_id', '=', janaUser?.userId as number).orderBy('id').limit(1).executeTakeFirstOrThrow();
    await database.db.updateTable('time_entries').set({ comment: AWKWARD_TEXT, custom1: '9007199254740993', custom2: '' }).where('id', '=', entry.id).execute();
    // A rate SQLite keeps as a REAL that is not a whole number.
    await sql`update projects set hourly_rate = 87.35 where id = (select min(id) from projects where hourly_rate is not null)`.execute(database.db);
    tables = new EntityTables(index, database.dialect);
    expect(database.dialect.packRow).toBeDefined();
    packed = new EntityReader(database.db, tables, database.dialect);
    plain = new EntityReader(database.db, tables, { ...database.dialect, packRow: undefined });
    const caller = (userId: number, isAdmin: boolean): Caller => ({ accountId: seeded.accountId, userId, isAdmin, bookingCloseDate: null, hourlyRatesEnabled: true, timeZone: 'UTC' });
    admin = caller(alex?.userId as number, true);
    jana = caller(janaUser?.userId as number, false);
  });

  afterAll(async () => {
    await place?.dispose();
  });

  function queryOf(setName: string, options: Partial<EntityQuery> = {}): EntityQuery {
    const set = index.model.entitySets.find((candidate) => candidate.name === setName);
    if (set === undefined) throw new Error(setName);
    const type = index.typeOfSet(set);
    return { set, type, constraints: [], orderBy: keyOrder(index, type), ...options };
  }

  async function expectSameReads(caller: Caller, query: EntityQuery): Promise<void> {
    const fromPacked = await packed.query(caller, query, DEMO_NOW);
    const fromColumns = await plain.query(caller, query, DEMO_NOW);
    expect(fromPacked.records.length).toBeGreaterThan(0);
    expect(fromPacked).toEqual(fromColumns);
    expect(fromPacked.records.map((record) => Object.keys(record))).toEqual(fromColumns.records.map((record) => Object.keys(record)));
  }

  it.each(['Projects', 'Clients', 'Tasks', 'TimeEntries', 'Users', 'AccountSettings'])('reads every %s as separate columns do', async (setName) => {
    await expectSameReads(admin, queryOf(setName));
    await expectSameReads(jana, queryOf(setName));
  });

  it('gives text of any character back exactly, and a number-like text stays text', async () => {
    const page = await packed.query(jana, queryOf('TimeEntries', { constraints: [{ property: 'Comment', values: [AWKWARD_TEXT] }] }), DEMO_NOW);
    expect(page.records).toHaveLength(1);
    expect(page.records[0]).toMatchObject({ Comment: AWKWARD_TEXT, Custom1: '9007199254740993', Custom2: '' });
  });

  it('reads order values of navigation paths and the next page\'s key as separate columns do', async () => {
    const byNames = queryOf('TimeEntries', {
      orderBy: [
        { path: ['Project', 'Name'], type: 'Edm.String', direction: 'desc' },
        { path: ['StartTime'], type: 'Edm.DateTime', direction: 'asc' },
        { path: ['Task', 'Description'], type: 'Edm.String', direction: 'asc' },
        { path: ['ID'], type: 'Edm.Int32', direction: 'asc' },
      ],
      limit: 7,
    });
    const first = await packed.query(admin, byNames, DEMO_NOW);
    expect(first.next).toHaveLength(4);
    expect(typeof first.next?.[0]).toBe('string');
    expect(first.next?.[1]).toBeInstanceOf(Date);
    await expectSameReads(admin, byNames);
    await expectSameReads(admin, { ...byNames, from: first.next });
    // The next page starts where a longer first page goes on.
    const longer = await packed.query(admin, { ...byNames, limit: 9 }, DEMO_NOW);
    const second = await packed.query(admin, { ...byNames, from: first.next }, DEMO_NOW);
    expect(second.records.slice(0, 2)).toEqual(longer.records.slice(7, 9));
  });
});
