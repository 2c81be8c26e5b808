// GetChangesDigest (data-model.md): what changed since a sync client's last synchronisation, so
// it knows which sets to fetch again. The ChangeSet type names the sets it counts
// (Total<Set>, Changed<Set>); counts follow the caller's visibility, like every read; deleted
// entries are the caller's own (all of the account's for administrators).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { EdmRecord } from '../../odata/edm.js';
import type { ComplexType } from '../../odata/model.js';
import type { Database } from '../storage/schema.js';
import type { Caller } from './caller.js';
import type { EntityTable, EntityTables } from './tables.js';

/** The sets a ChangeSet counts: those its `Total<Set>` properties name. */
export function countedSets(changeSet: ComplexType, tables: EntityTables): EntityTable[] {
  return changeSet.properties.flatMap((property) => {
    const setName = /^Total(\w+)$/.exec(property.name)?.[1];
    const set = setName === undefined ? undefined : tables.index.entitySet(setName);
    return set === undefined ? [] : [tables.of(set)];
  });
}

export async function changesDigest(db: Kysely<Database>, counted: readonly EntityTable[], caller: Caller, since: Date, now: number): Promise<EdmRecord> {
  const digest: EdmRecord = {};
  const sinceMs = since.getTime();
  for (const table of counted) {
    const { rows } = await sql<{ total: number | string; changed: number | string | null }>`
      select count(*) as total, sum(case when t.last_change_time > ${sinceMs} then 1 else 0 end) as changed
      from ${sql.table(table.table)} as t where ${table.visibleRows(caller, 't')}`.execute(db);
    digest[`Total${table.set.name}`] = Number(rows[0]?.total ?? 0);
    digest[`Changed${table.set.name}`] = Number(rows[0]?.changed ?? 0);
  }
  const deleted = await db.selectFrom('deleted_time_entries').select('id')
    .where('account_id', '=', caller.accountId).where('deleted_at', '>', sinceMs)
    .$if(!caller.isAdmin, (query) => query.where('user_id', '=', caller.userId))
    .orderBy('id').execute();
  digest.DeletedTimeEntryIDs = deleted.map((row) => row.id).join(',');
  digest.CurrentServerTime = new Date(now);
  return digest;
}
