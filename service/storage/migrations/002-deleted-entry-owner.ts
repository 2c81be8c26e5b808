// The deletion log remembers whose entry was deleted, so GetChangesDigest can tell each user
// about their own deletions only (a standard user must not learn the IDs of others' entries).
// Rows logged before this migration have no owner and are reported to administrators only.
import type { Kysely, Migration } from 'kysely';

export function deletedEntryOwner(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('deleted_time_entries').addColumn('user_id', 'integer').execute();
      await db.schema.createIndex('deleted_time_entries_account_user_time').on('deleted_time_entries')
        .columns(['account_id', 'user_id', 'deleted_at']).execute();
    },
  };
}
