// PostgreSQL through a pg Pool: for running several service processes on one database.
// A schema other than public is chosen in the URL, as libpq does:
//   postgres://host/db?options=-c%20search_path%3Dmyschema
import pg from 'pg';
import { sql } from 'kysely';
import { CurrentSchemaPostgresDialect } from './postgres-introspector.js';
import { withNamedStatements } from './postgres-named-statements.js';
import type { ConstraintKind, ConstraintViolation, DialectSetup, ParameterType, SqlFunctions, StorageDialect } from './dialect.js';

export interface PostgresOptions {
  /** Most connections the pool opens. */
  readonly poolMax?: number;
}

const INT8_OID = 20;

// Timestamps are bigint; pg hands bigint back as text because it may exceed 2^53. Epoch
// milliseconds and row counts never do, so read them as numbers. Set per pool, not globally,
// so no other pg user in the process is affected. NUMERIC stays text (exact).
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return parseSafeInteger;
    return format === undefined ? pg.types.getTypeParser(oid) : pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

function parseSafeInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`bigint ${text} exceeds the safe integer range`);
  return value;
}

export function createPostgresSetup(url: string, options: PostgresOptions = {}): DialectSetup {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? 10,
    types: typeParsers,
  });
  // A connection that dies while idle in the pool (PostgreSQL restarted, a proxy between cut it)
  // is an 'error' event on the pool; without a listener it would end the process. The pool drops
  // that connection by itself and the next query opens a new one, so there is nothing else to do.
  pool.on('error', () => {});
  return {
    storage: postgresStorage,
    kyselyDialect: new CurrentSchemaPostgresDialect({ pool: withNamedStatements(pool) }),
    location: redact(url),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable url)';
  }
}

// SQLSTATE classes: https://www.postgresql.org/docs/current/errcodes-appendix.html
const SQLSTATE: Record<string, ConstraintKind> = {
  '23505': 'unique',
  '23503': 'foreign-key',
  '23001': 'foreign-key', // restrict_violation
  '23514': 'check',
  '23502': 'not-null',
};

interface PgErrorFields {
  code?: unknown;
  constraint?: unknown;
  table?: unknown;
  column?: unknown;
  detail?: unknown;
}

const CASTS: Record<ParameterType, string> = { text: 'text', integer: 'integer', bigint: 'bigint', numeric: 'numeric', double: 'double precision' };

// Parameters carry a cast: PostgreSQL infers a parameter's type from its context and fails
// where there is none (`$1 = $2`, `length($1)`). Text compares with the "C" collation, so order
// and ranges are by code point as on SQLite, whatever collation the database was created with.
const postgresFunctions: SqlFunctions = {
  param: (value, type) => sql`cast(${value} as ${sql.raw(CASTS[type])})`,
  position: (text, needle) => sql`strpos(${text}, ${needle})`,
  length: (text) => sql`char_length(${text})`,
  datePart: (part, epochMs, timeZone) =>
    sql`cast(floor(extract(${sql.raw(part)} from to_timestamp(${epochMs} / 1000.0) at time zone cast(${timeZone} as text))) as integer)`,
  isDistinct: (left, right) => sql`(${left} is distinct from ${right})`,
  binaryCollation: (text) => sql`(${text} collate "C")`,
  lowerCase: (text) => sql`lower(${text})`,
  upperCase: (text) => sql`upper(${text})`,
};

const postgresStorage: StorageDialect = {
  name: 'postgres',
  // The wire protocol counts parameters in an Int16.
  maxBindParameters: 65535,
  constraintViolation(error: unknown): ConstraintViolation | undefined {
    if (!(error instanceof Error)) return undefined;
    const fields = error as Error & PgErrorFields;
    const kind = typeof fields.code === 'string' ? SQLSTATE[fields.code] : undefined;
    if (kind === undefined) return undefined;
    return {
      kind,
      constraint: typeof fields.constraint === 'string' ? fields.constraint : undefined,
      table: typeof fields.table === 'string' ? fields.table : undefined,
      columns: columnsOf(fields),
    };
  },
  readDecimal(value: unknown, scale: number): string | null {
    if (value === null || value === undefined) return null;
    return typeof value === 'string' ? fixScale(value, scale) : Number(value).toFixed(scale);
  },
  // Packed rows take less of the service's time here too (pg makes a string per column value),
  // but PostgreSQL builds them: json_build_array nearly doubled its CPU per page of 101 entries
  // (340 to 620 µs), a text concatenation cost 30% more. The database is what several service
  // processes share, so it keeps the cheaper work.
  packRow: undefined,
  sql: postgresFunctions,
};

// "Key (user_id)=(5) already exists." -> ["user_id"]; NOT NULL names its column directly.
function columnsOf(fields: PgErrorFields): string[] {
  if (typeof fields.column === 'string') return [fields.column];
  if (typeof fields.detail !== 'string') return [];
  const list = /^Key \((.+?)\)=/.exec(fields.detail)?.[1];
  return list === undefined ? [] : list.split(',').map((name) => name.trim());
}

function fixScale(text: string, scale: number): string {
  const [whole = '0', fraction = ''] = text.split('.');
  if (scale === 0) return whole;
  return `${whole}.${fraction.padEnd(scale, '0').slice(0, scale)}`;
}
