// GetChangesDigest (data-model.md): what changed since a sync client's last synchronisation, so
// it knows which sets to fetch again. Counts follow the caller's visibility, like every read;
// deleted entries are the caller's own (all of the account's for administrators).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { EdmRecord } from '../../odata/edm.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { Database } from '../storage/schema.js';
import type { Caller } from './caller.js';
import type { EntityTables } from './tables.js';
import { visibleRows } from './visibility.js';

/** The sets counted; the ChangeSet names its fields Total<Set> and Changed<Set>. */
const COUNTED = ['Clients', 'Projects', 'Tasks', 'Users', 'TimeEntries'] as const;

export async function changesDigest(db: Kysely<Database>, index: ModelIndex, tables: EntityTables, caller: Caller, since: Date, now: number): Promise<EdmRecord> {
  const digest: EdmRecord = {};
  const sinceMs = since.getTime();
  for (const setName of COUNTED) {
    const set = index.entitySet(setName);
    if (set === undefined) throw new Error(`the model has no entity set ${setName}`);
    const { rows } = await sql<{ total: number | string; changed: number | string | null }>`
      select count(*) as total, sum(case when t.last_change_time > ${sinceMs} then 1 else 0 end) as changed
      from ${sql.table(tables.of(set).table)} as t where ${visibleRows(set, caller, 't')}`.execute(db);
    digest[`Total${setName}`] = Number(rows[0]?.total ?? 0);
    digest[`Changed${setName}`] = Number(rows[0]?.changed ?? 0);
  }
  const deleted = await db.selectFrom('deleted_time_entries').select('id')
    .where('account_id', '=', caller.accountId).where('deleted_at', '>', sinceMs)
    .$if(!caller.isAdmin, (query) => query.where('user_id', '=', caller.userId))
    .orderBy('id').execute();
  digest.DeletedTimeEntryIDs = deleted.map((row) => row.id).join(',');
  digest.CurrentServerTime = new Date(now);
  return digest;
}
