// A row version on every table clients write (the EDMX's `Version`, ConcurrencyMode="Fixed"):
// 1 when a row is created, one more on every change, so it is the entity's ETag and an update or
// delete under If-Match can compare it in the same statement that writes (`... where id = ? and
// version = ?`). A timestamp would not do: two changes within one millisecond share it.
// Existing rows start at 1, like new ones.
import type { Kysely, Migration } from 'kysely';

const VERSIONED_TABLES = ['projects', 'clients', 'tasks', 'time_entries'] as const;

export function rowVersions(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of VERSIONED_TABLES) {
        await db.schema.alterTable(table).addColumn('version', 'integer', (c) => c.notNull().defaultTo(1)).execute();
      }
    },
  };
}
