// Versioned migrations, run on start. The list is static (no directory globbing), so it works the
// same from source under tsx, from a bundle, and in tests. Kysely records what ran in
// kysely_migration and holds a lock while migrating (an advisory lock on PostgreSQL), so several
// service processes starting together migrate once.
import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { DialectName } from './dialect.js';
import { initialSchema } from './migrations/001-initial.js';
import { deletedEntryOwner } from './migrations/002-deleted-entry-owner.js';
import { webSignIn } from './migrations/003-web-sign-in.js';
import { rowVersions } from './migrations/004-row-versions.js';
import { internalRowVersions } from './migrations/005-internal-row-versions.js';
import { MigrationFailedError } from './storage-errors.js';
import type { Database } from './schema.js';

/** In order; names sort in the order they must run. Append only. */
const MIGRATIONS: ReadonlyArray<readonly [name: string, create: (dialect: DialectName) => Migration]> = [
  ['001-initial', initialSchema],
  ['002-deleted-entry-owner', deletedEntryOwner],
  ['003-web-sign-in', webSignIn],
  ['004-row-versions', rowVersions],
  ['005-internal-row-versions', internalRowVersions],
];

export function migrationProvider(dialect: DialectName): MigrationProvider {
  return {
    getMigrations: async () => Object.fromEntries(MIGRATIONS.map(([name, create]) => [name, create(dialect)])),
  };
}

/** Brings the schema to the newest version; returns the names of the migrations it applied. */
export async function migrateToLatest(db: Kysely<Database>, dialect: DialectName): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one; with several
  // schemas in one PostgreSQL database (one per deployment or test suite) it would find another's.
  const migrationTableSchema = dialect === 'postgres' ? await currentSchema(db) : undefined;
  const migrator = new Migrator({ db, provider: migrationProvider(dialect), ...(migrationTableSchema === undefined ? {} : { migrationTableSchema }) });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationFailedError(failed, error);
  }
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

async function currentSchema(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (schema == null) throw new MigrationFailedError('(none)', new Error('no schema on the search_path exists'));
  return schema;
}
