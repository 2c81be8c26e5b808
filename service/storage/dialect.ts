// What differs between the two databases at run time, behind one small interface; one file per
// implementation (dialect-sqlite.ts, dialect-postgres.ts), chosen once by openDatabase().
//
// Deliberately NOT here, because both databases already agree:
//   - INSERT ... RETURNING (SQLite >= 3.35 and PostgreSQL; Kysely's `.returning()` works on both);
//   - partial and expression indexes, ON CONFLICT, LIMIT, lower(), row values in WHERE;
//   - booleans and timestamps: stored as 0/1 and UTC epoch milliseconds on both (see schema.ts),
//     so compiled filters and row readers need no switch.
// Schema DDL differences live in the migrations themselves (they are frozen once released).
import type { Dialect, RawBuilder } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

export type ConstraintKind = 'unique' | 'foreign-key' | 'check' | 'not-null';

/** A statement failed because it would have broken a declared constraint. */
export interface ConstraintViolation {
  readonly kind: ConstraintKind;
  /** Constraint or index name, when the database names it (PostgreSQL always; SQLite for
   *  named CHECKs and expression indexes). */
  readonly constraint: string | undefined;
  /** The table the constraint belongs to, when known. */
  readonly table: string | undefined;
  /** The constrained columns, when the database says which. */
  readonly columns: readonly string[];
}

/** SQL types a bound parameter is cast to, so PostgreSQL never has to guess one. */
export type ParameterType = 'text' | 'integer' | 'bigint' | 'numeric' | 'double';

export type DatePart = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second';

type Sql = RawBuilder<unknown>;

/** The SQL spellings that differ, for compiled `$filter` and `$orderby` expressions. */
export interface SqlFunctions {
  /** A bound parameter; typed where the database cannot infer it (`$1 = $2`). */
  param(value: unknown, type: ParameterType): Sql;
  /** 1-based position of `needle` in `text`, 0 when absent. */
  position(text: Sql, needle: Sql): Sql;
  /** Length of a text in characters. */
  length(text: Sql): Sql;
  /** A calendar field of an epoch-milliseconds value on the wall clock of an IANA zone, as an integer. */
  datePart(part: DatePart, epochMs: Sql, timeZone: string): Sql;
  /** Null-safe inequality: true when exactly one side is null or both differ. */
  isDistinct(left: Sql, right: Sql): Sql;
  /** Text compared and sorted by code point, as on the other database. */
  binaryCollation(text: Sql): Sql;
  /** Text in lower / upper case, non-ASCII letters included (`tolower`, `toupper`). */
  lowerCase(text: Sql): Sql;
  upperCase(text: Sql): Sql;
}

export interface StorageDialect {
  readonly name: DialectName;
  /** Most bind parameters one statement may carry (multi-row inserts size their batches by it). */
  readonly maxBindParameters: number;
  /** Classifies an error thrown by a statement; undefined when it is not a constraint violation. */
  constraintViolation(error: unknown): ConstraintViolation | undefined;
  /** A NUMERIC column value as canonical decimal text with exactly `scale` fraction digits. */
  readDecimal(value: unknown, scale: number): string | null;
  /**
   * The values of one row (`a, b, c`) as one text, a JSON array, for readers of many rows: where
   * the driver makes each column value through the engine's API one at a time, one string per
   * row and `JSON.parse` cost less. Every value must read back as its own column would. Undefined
   * where separate columns are the better deal.
   */
  readonly packRow: ((values: Sql) => Sql) | undefined;
  readonly sql: SqlFunctions;
}

/** What a dialect file hands to openDatabase(). */
export interface DialectSetup {
  readonly storage: StorageDialect;
  readonly kyselyDialect: Dialect;
  /** A description of where the data lives, safe to log (no password). */
  readonly location: string;
  /** The connection pool's state, where there is a pool (PostgreSQL). */
  readonly poolStats?: () => PoolStats;
}

export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  /** Queries waiting for a connection. */
  readonly waiting: number;
}
