// Opens the database the configuration names, once, at start-up:
//   undefined / ''             -> SQLite file ./data/timegate.sqlite (the folder is created)
//   ':memory:'                 -> SQLite in memory (tests)
//   postgres:// postgresql://  -> PostgreSQL pool
//   anything else without a scheme -> a SQLite file path
import { Kysely } from 'kysely';
import type { Dialect } from 'kysely';
import type { DialectName, DialectSetup, PoolStats, StorageDialect } from './dialect.js';
import { createPostgresSetup } from './dialect-postgres.js';
import type { PostgresOptions } from './dialect-postgres.js';
import { createSqliteSetup } from './dialect-sqlite.js';
import type { SqliteOptions } from './dialect-sqlite.js';
import { migrateToLatest } from './migrator.js';
import type { Database } from './schema.js';
import { StorageConfigError } from './storage-errors.js';
import { DEFAULT_SQLITE_FILE } from '../config.js';

export interface OpenDatabaseOptions {
  readonly sqlite?: SqliteOptions;
  readonly postgres?: PostgresOptions;
  /** Run pending migrations before returning (default true). */
  readonly migrate?: boolean;
  /** Wraps the Kysely dialect (statement-spans.ts when tracing), given the storage's name. */
  readonly wrapDialect?: (dialect: Dialect, name: DialectName) => Dialect;
}

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: StorageDialect;
  /** Where the data lives, safe to log (passwords masked). */
  readonly location: string;
  /** Migrations applied by this open (empty when the schema was current). */
  readonly appliedMigrations: readonly string[];
  /** The connection pool's state, where there is a pool (PostgreSQL). */
  readonly poolStats?: () => PoolStats;
  /** Closes the connection(s); waits for running queries. */
  close(): Promise<void>;
}

export async function openDatabase(url: string | undefined, options: OpenDatabaseOptions = {}): Promise<DatabaseHandle> {
  const setup = chooseSetup(url?.trim() || DEFAULT_SQLITE_FILE, options);
  const dialect = options.wrapDialect === undefined ? setup.kyselyDialect : options.wrapDialect(setup.kyselyDialect, setup.storage.name);
  const db = new Kysely<Database>({ dialect });
  try {
    const appliedMigrations = options.migrate === false ? [] : await migrateToLatest(db, setup.storage.name);
    return {
      db,
      dialect: setup.storage,
      location: setup.location,
      appliedMigrations,
      ...(setup.poolStats === undefined ? {} : { poolStats: setup.poolStats }),
      close: () => db.destroy(),
    };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

function chooseSetup(url: string, options: OpenDatabaseOptions): DialectSetup {
  if (/^postgres(ql)?:\/\//i.test(url)) return createPostgresSetup(url, options.postgres);
  // A Windows drive letter (C:\...) is a path, any other scheme is a mistake worth stopping for.
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(url)) {
    throw new StorageConfigError(`unsupported database URL scheme: ${url.slice(0, url.indexOf(':'))} (use a file path or postgres://)`);
  }
  return createSqliteSetup(url.replace(/^sqlite:/i, ''), options.sqlite);
}
