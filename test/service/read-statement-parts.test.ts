// The entity reader compiles the parts of a read that hold no values (the select list and FROM,
// the ORDER BY and LIMIT) once per shape and reuses them. A reader that has served every other
// query first must answer each query exactly as a reader that never saw another: other callers
// (visibility), other orders, other `$top`, other keys, `$skip`, paging on.
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

const index = indexModel(model);

function queryOf(setName: string, options: Partial<EntityQuery> = {}): EntityQuery {
  const set = index.model.entitySets.find((candidate) => candidate.name === setName);
  if (set === undefined) throw new Error(setName);
  const type = index.typeOfSet(set);
  return { set, type, constraints: [], orderBy: keyOrder(index, type), ...options };
}

describe.each(testDatabases)('reused statement parts on $name', (kind) => {
  let place: TestDatabasePlace;
  let database: DatabaseHandle;
  let tables: EntityTables;
  let callers: Caller[];
  let entryIds: number[];

  beforeAll(async () => {
    place = await kind.create();
    database = await place.open();
    const seeded = await seedDemoAccount(database.db, DEMO_NOW);
    if (!seeded.created) throw new Error('the test database already had an account');
    tables = new EntityTables(index, database.dialect);
    const [alex, jana, tom] = seeded.users;
    const caller = (userId: number, isAdmin: boolean): Caller => ({ accountId: seeded.accountId, userId, isAdmin, bookingCloseDate: null, hourlyRatesEnabled: true, timeZone: 'UTC' });
    callers = [caller(alex?.userId as number, true), caller(jana?.userId as number, false), caller(tom?.userId as number, false)];
    const rows = await database.db.selectFrom('time_entries').select('id').where('account_id', '=', seeded.accountId).orderBy('id').execute();
    entryIds = rows.map((row) => row.id);
  });

  afterAll(async () => {
    await place?.dispose();
  });

  it('answers every query of a shape it has compiled as a fresh reader does', async () => {
    const byStart = (direction: 'asc' | 'desc') => [
      { path: ['StartTime'], type: 'Edm.DateTime', direction },
      { path: ['ID'], type: 'Edm.Int32', direction: 'asc' as const },
    ];
    const queries: EntityQuery[] = [
      queryOf('TimeEntries', { limit: 5 }),
      queryOf('TimeEntries', { limit: 7 }),
      queryOf('TimeEntries', { limit: 5, skip: 3 }),
      queryOf('TimeEntries', { limit: 5, orderBy: byStart('asc') }),
      queryOf('TimeEntries', { limit: 5, orderBy: byStart('desc') }),
      queryOf('TimeEntries', { constraints: [{ property: 'ID', values: [entryIds[0] as number] }], orderBy: [], limit: 1 }),
      queryOf('TimeEntries', { constraints: [{ property: 'ID', values: [entryIds.at(-1) as number] }], orderBy: [], limit: 1 }),
      queryOf('Projects', { limit: 3 }),
      queryOf('Projects', { orderBy: [{ path: ['Name'], type: 'Edm.String', direction: 'desc' }, { path: ['ID'], type: 'Edm.Int32', direction: 'asc' }] }),
      queryOf('Clients', { limit: 2 }),
    ];
    const kept = new EntityReader(database.db, tables, database.dialect);
    let compared = 0;
    for (let round = 0; round < 2; round++) {
      for (const caller of callers) {
        for (const query of queries) {
          const fresh = await new EntityReader(database.db, tables, database.dialect).query(caller, query, DEMO_NOW);
          const reused = await kept.query(caller, query, DEMO_NOW);
          expect(reused).toEqual(fresh);
          compared++;
        }
      }
    }
    expect(compared).toBe(2 * callers.length * queries.length);
    // The callers see different entries: a part that carried one caller's rows would show here.
    const own = await Promise.all(callers.map((caller) => kept.query(caller, queryOf('TimeEntries'), DEMO_NOW)));
    expect(new Set(own.map((page) => page.records.length)).size).toBeGreaterThan(1);
  });

  it('reads by key what the key names, after reading other keys', async () => {
    const reader = new EntityReader(database.db, tables, database.dialect);
    const admin = callers[0] as Caller;
    for (const id of [entryIds[0], entryIds[1], entryIds.at(-1)] as number[]) {
      const page = await reader.query(admin, queryOf('TimeEntries', { constraints: [{ property: 'ID', values: [id] }], orderBy: [], limit: 1 }), DEMO_NOW);
      expect(page.records.map((record) => record.ID)).toEqual([id]);
    }
  });
});
