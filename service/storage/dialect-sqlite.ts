// SQLite through better-sqlite3: the embedded default. One connection per process (Kysely
// serialises access to it), so a transaction is never interleaved with another statement of this
// process. Open one handle per process: better-sqlite3 waits for locks synchronously, so two
// handles on one file in one process would wait on each other with the event loop blocked.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { wallClockZone } from '../../odata/wall-clock.js';
import { CompiledQuery, SqliteAdapter, SqliteDialect, SqliteDriver, sql } from 'kysely';
import type { DatabaseConnection, DialectAdapter, Driver, RawBuilder, SqliteDialectConfig } from 'kysely';
import type { ConstraintKind, ConstraintViolation, DatePart, DialectSetup, ParameterType, SqlFunctions, StorageDialect } from './dialect.js';
import { withStatementCache } from './sqlite-statement-cache.js';

export interface SqliteOptions {
  /** How long a writer waits for another process's lock before failing (ms). */
  readonly busyTimeoutMs?: number;
  /**
   * For a process that reads its rows once, in order (an export): no memory map and a small page
   * cache, whose pages would only count against the process's memory (a mapped page a query
   * touched stays in its resident set), and the process's memory must not grow with the file.
   */
  readonly readsOnce?: boolean;
}

export const MEMORY = ':memory:';

export function createSqliteSetup(file: string, options: SqliteOptions = {}): DialectSetup {
  const isMemory = file === MEMORY;
  const path = isMemory ? MEMORY : resolve(file);
  if (!isMemory) mkdirSync(dirname(path), { recursive: true });
  const database = new BetterSqlite3(path);
  // First, so that switching to WAL below also waits for another process instead of failing.
  database.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
  // WAL: readers never block the writer; NORMAL is durable across application crashes and
  // only risks the last commits on power loss, the usual pairing with WAL.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  // SQLite leaves foreign keys off per connection unless asked; RESTRICT relies on them.
  database.pragma('foreign_keys = ON');
  // Reads map the file instead of copying its pages through read() calls, and the page cache
  // holds 64 MiB instead of SQLite's 2 MiB: a page of 100 time entries costs about 7% less CPU
  // on 200k entries (bench service, server CPU per request, alternating runs).
  database.pragma(options.readsOnce === true ? 'mmap_size = 0' : 'mmap_size = 268435456');
  database.pragma(options.readsOnce === true ? 'cache_size = -8192' : 'cache_size = -65536');
  // SQLite's own lower() and upper() change ASCII letters only ('Ä' stays 'Ä'); filters get
  // these, and lower() stays the built-in one that the e-mail index was built with.
  database.function('tg_lower', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text));
  database.function('tg_upper', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toUpperCase() : text));
  database.function('tg_wall_clock_ms', { deterministic: true }, (epochMs: unknown, timeZone: unknown) =>
    (epochMs === null || typeof timeZone !== 'string' ? null : wallClockZone(timeZone).toWallClock(Number(epochMs))));
  return {
    storage: sqliteStorage,
    kyselyDialect: new ImmediateSqliteDialect({ database: withStatementCache(database) }),
    location: isMemory ? 'sqlite::memory:' : `sqlite:${path}`,
  };
}

// Transactions take the write lock when they begin (BEGIN IMMEDIATE), waiting up to busy_timeout
// for another process's writer. A deferred BEGIN that reads first and writes later fails outright
// (SQLITE_BUSY_SNAPSHOT) when another process committed in between: e.g. two processes migrating
// one new file, or a `timegate admin` command beside a running service.
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

// SQLite's DDL is transactional, which Kysely's adapter does not claim; claiming it makes each
// migration run in one (immediate) transaction: all of it or none, and one process at a time.
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly config: SqliteDialectConfig) {
    super(config);
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.config);
  }
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

const CONSTRAINT_CODES: Record<string, ConstraintKind> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign-key',
  SQLITE_CONSTRAINT_CHECK: 'check',
  SQLITE_CONSTRAINT_NOTNULL: 'not-null',
};

const STRFTIME: Record<DatePart, string> = { year: '%Y', month: '%m', day: '%d', hour: '%H', minute: '%M', second: '%S' };

// SQLite compares values of any type without casts; text compares by code point (BINARY
// collation) already. But better-sqlite3 binds every JS number as REAL, which makes `ProjectID
// div 2` a fractional division, and a decimal arrives as text, which an expression without
// column affinity (`round(HourlyRate) eq 86M`) never equals: integers go as BigInt (bound as
// INTEGER), decimals through a cast to NUMERIC.
function sqliteParam(value: unknown, type: ParameterType): RawBuilder<unknown> {
  if ((type === 'integer' || type === 'bigint') && typeof value === 'number' && Number.isSafeInteger(value)) return sql`${BigInt(value)}`;
  if (type === 'numeric') return sql`cast(${value} as numeric)`;
  return sql`${value}`;
}

const sqliteFunctions: SqlFunctions = {
  param: sqliteParam,
  position: (text, needle) => sql`instr(${text}, ${needle})`,
  length: (text) => sql`length(${text})`,
  // Division by 1000.0: integer division would round times before 1970 the wrong way.
  // SQLite knows no zones but the host's: the wall clock comes from odata/wall-clock.ts.
  datePart: (part, epochMs, timeZone) =>
    sql`cast(strftime(${sql.lit(STRFTIME[part])}, tg_wall_clock_ms(${epochMs}, ${timeZone}) / 1000.0, 'unixepoch') as integer)`,
  isDistinct: (left, right) => sql`(${left} is not ${right})`,
  binaryCollation: (text) => text,
  lowerCase: (text) => sql`tg_lower(${text})`,
  upperCase: (text) => sql`tg_upper(${text})`,
};

const sqliteStorage: StorageDialect = {
  name: 'sqlite',
  // SQLITE_MAX_VARIABLE_NUMBER is 32766 since 3.32.
  maxBindParameters: 32766,
  constraintViolation(error: unknown): ConstraintViolation | undefined {
    if (!(error instanceof BetterSqlite3.SqliteError)) return undefined;
    // ON DELETE RESTRICT is enforced by an internal trigger, hence its own code.
    const isRestrict = error.code === 'SQLITE_CONSTRAINT_TRIGGER' && error.message.startsWith('FOREIGN KEY');
    const kind = isRestrict ? 'foreign-key' : CONSTRAINT_CODES[error.code];
    return kind === undefined ? undefined : describe(kind, error.message);
  },
  readDecimal(value: unknown, scale: number): string | null {
    if (value === null || value === undefined) return null;
    // NUMERIC affinity keeps the value as REAL: exact to 2 places well beyond any hourly rate.
    return Number(value).toFixed(scale);
  },
  // better-sqlite3 on Node 20 sets each value of a row into its array through V8's API, one
  // call each: 101 rows of 18 columns took 355 µs, against 240 µs as JSON texts parsed in
  // JavaScript. SQLite writes a REAL with 17 significant digits, so it reads back the same double.
  packRow: (values) => sql`json_array(${values})`,
  sql: sqliteFunctions,
};

// Messages look like "UNIQUE constraint failed: time_entries.user_id",
// "UNIQUE constraint failed: index 'users_account_email_unique'", "CHECK constraint failed: name",
// "FOREIGN KEY constraint failed".
function describe(kind: ConstraintKind, message: string): ConstraintViolation {
  const detail = message.split('constraint failed: ')[1]?.trim() ?? '';
  const indexName = /^index '([^']+)'$/.exec(detail)?.[1];
  if (indexName !== undefined) return { kind, constraint: indexName, table: undefined, columns: [] };
  if (kind === 'check') return { kind, constraint: detail || undefined, table: undefined, columns: [] };
  const qualified = detail === '' ? [] : detail.split(',').map((part) => part.trim());
  const table = qualified[0]?.split('.')[0];
  const columns = qualified.map((part) => part.split('.')[1] ?? part);
  return { kind, constraint: undefined, table, columns };
}
