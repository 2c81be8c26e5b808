// A row version on every table clients write (the EDMX's `Version`, ConcurrencyMode="Fixed"):
// 1 when a row is created, one more on every change, so it is the entity's ETag and an update or
// delete under If-Match can compare it in the same statement that writes (`... where id = ? and
// version = ?`). A timestamp would not do: two changes within one millisecond share it.
// Existing rows start at 1, like new ones.
import type { Kysely, Migration } from 'kysely';

const VERSIONED_TABLES = ['projects', 'clients', 'tasks', 'time_entries'] as const;

/** Adds the `version` column (1 for existing and new rows) to each table; 005 uses it too. */
export async function addRowVersion(db: Kysely<unknown>, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    await db.schema.alterTable(table).addColumn('version', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  }
}

export function rowVersions(): Migration {
  return { up: (db: Kysely<unknown>) => addRowVersion(db, VERSIONED_TABLES) };
}
