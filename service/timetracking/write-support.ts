// What every write of the time-tracking service shares: typed values to columns, the row
// statements with their change stamp, lookups inside the caller's account, and the database's own
// constraint violations turned into the client's 409 (the rules check first; the constraints are
// the guarantee that holds even when two requests race).
import { CompiledQuery, sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { EdmRecord } from '../../odata/edm.js';
import { ConflictError, PreconditionFailedError, ValidationError } from '../odata-server/errors.js';
import type { StorageDialect } from '../storage/dialect.js';
import type { Database, TableName } from '../storage/schema.js';
import type { Caller } from './caller.js';
import { LANG, messages } from './messages.js';
import type { EntityTable } from './tables.js';

export interface WriteContext {
  /**
   * Where the write's statements run: its transaction, or the database itself for a write of one
   * change (SetWrites.create), which needs none.
   */
  readonly db: Kysely<Database>;
  readonly caller: Caller;
  /** The instant of this write (UTC ms): LastChangeTime, stopwatch start and end. */
  readonly now: number;
  /** Whether `select ... for update` exists (PostgreSQL); SQLite's immediate transactions
   *  hold the whole database already. */
  readonly locksRows: boolean;
  /**
   * The row versions (by column) the entity must still have for this change to happen: those of
   * the ETag the client's If-Match named. Checked in the statement that writes, so of two writers
   * holding one ETag exactly one gets through; undefined = no condition.
   */
  readonly expectedVersions?: Readonly<Record<string, unknown>>;
}

/** Stored columns for typed values (booleans 0/1, date-times epoch ms, decimals as text). */
export function toColumns(table: EntityTable, values: EdmRecord): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const column = table.columns.get(name);
    if (column === undefined) continue;
    row[column] = typeof value === 'boolean' ? (value ? 1 : 0) : value instanceof Date ? value.getTime() : value;
  }
  return row;
}

function changeStamp(ctx: WriteContext): { last_change_time: number; last_change_author: number } {
  return { last_change_time: ctx.now, last_change_author: ctx.caller.userId };
}

// Kysely's types cannot follow a table chosen at run time; the tables and columns come from the
// set definitions and the model, never from a request.
function untyped(ctx: WriteContext): Kysely<Record<string, Record<string, unknown>>> {
  return ctx.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
}

const compiledTexts = new WeakMap<EntityTable, Map<string, string>>();
/** Most statement texts kept per set. */
const MAX_COMPILED_SHAPES = 500;

/**
 * Runs a statement of a write whose SQL text depends on `shape` only (names from the model,
 * never values): built and compiled on its first run, then sent as that text with
 * `parameters`, which must be the values the build binds, in its order (checked on the first
 * run). Building and compiling a row's insert or update took 10 to 13 µs each time, a twentieth
 * of the CPU of a POST or MERGE. Texts are kept per EntityTable, which is per dialect.
 */
export async function runCompiled<R>(
  ctx: WriteContext, table: EntityTable, shape: string, parameters: readonly unknown[], build: () => CompiledQuery,
): Promise<R[]> {
  let texts = compiledTexts.get(table);
  if (texts === undefined) compiledTexts.set(table, (texts = new Map()));
  let text = texts.get(shape);
  if (text === undefined) {
    const compiled = build();
    if (compiled.parameters.length !== parameters.length || compiled.parameters.some((value, i) => value !== parameters[i])) {
      throw new Error(`the statement ${shape} binds other values than it is given`);
    }
    text = compiled.sql;
    // Oldest out first: which properties a payload gives is the client's choice, and so are the shapes.
    if (texts.size >= MAX_COMPILED_SHAPES) texts.delete(texts.keys().next().value as string);
    texts.set(shape, text);
  }
  return (await ctx.db.executeQuery<R>(CompiledQuery.raw(text, [...parameters]))).rows;
}

/** Inserts a row of the caller's account with the change stamp; the entity as stored (computed properties null). */
export async function insertRow(ctx: WriteContext, table: EntityTable, columns: Record<string, unknown>): Promise<EdmRecord> {
  const row: Record<string, unknown> = { ...columns, account_id: ctx.caller.accountId, ...changeStamp(ctx) };
  const names = Object.keys(row).filter((name) => row[name] !== undefined);
  // The new row comes back whole (defaults and ID included), so the answer to a POST needs no
  // read after it: that read was a fifth of the CPU of creating a time entry.
  const [created] = await runCompiled<Record<string, unknown>>(ctx, table, `insert ${names.join(',')}`, names.map((name) => row[name]), () => {
    const returning = table.stored.map(({ property, column }) => sql`${sql.ref(column)} as ${sql.ref(property.name)}`);
    return sql`insert into ${sql.table(table.table)} (${sql.join(names.map((name) => sql.ref(name)))})
      values (${sql.join(names.map((name) => row[name]))}) returning ${sql.join(returning)}`.compile(ctx.db);
  });
  return table.recordOf('names')(created);
}

/**
 * Changes a row of the caller's account, stamps the change and counts its versions up, in one
 * statement that also holds the expected versions (412 when the row no longer has them) and the
 * `guard`'s (column values the row must still have; no row is changed when it has others). The
 * row's new versions by property name, or undefined when no row was changed.
 */
export async function updateRow(
  ctx: WriteContext, table: EntityTable, id: number, columns: Record<string, unknown>, guard?: Readonly<Record<string, unknown>>,
): Promise<EdmRecord | undefined> {
  const values = Object.fromEntries(Object.entries({ ...columns, ...changeStamp(ctx) }).filter(([, value]) => value !== undefined));
  const expected = ctx.expectedVersions ?? {};
  const conditions = guard ?? {};
  const shape = `update ${Object.keys(values).join(',')} if ${Object.keys(expected).join(',')} guard ${Object.keys(conditions).join(',')}`;
  const parameters = [...Object.values(values), ctx.caller.accountId, id, ...Object.values(expected), ...Object.values(conditions)];
  const [changed] = await runCompiled<Record<string, unknown>>(ctx, table, shape, parameters, () => {
    const bumped: Record<string, unknown> = {};
    for (const { column } of table.versions) bumped[column] = sql`${sql.ref(column)} + 1`;
    return untyped(ctx).updateTable(table.table).set({ ...values, ...bumped })
      .where('account_id', '=', ctx.caller.accountId).where('id', '=', id)
      .$call((query) => whereValues(query, expected))
      .$call((query) => whereValues(query, conditions))
      .returning(['id', ...table.versions.map(({ column }) => column)])
      .compile();
  });
  if (changed === undefined) {
    if (ctx.expectedVersions !== undefined) throw new PreconditionFailedError();
    return undefined;
  }
  return Object.fromEntries(table.versions.map(({ property, column }) => [property.name, table.readValue(property.name, changed[column])]));
}

/** Deletes a row of the caller's account, if it still has the expected versions (else 412). */
export async function deleteRow(ctx: WriteContext, table: EntityTable, id: number): Promise<void> {
  const result = await untyped(ctx).deleteFrom(table.table).where('account_id', '=', ctx.caller.accountId).where('id', '=', id)
    .$call((query) => whereValues(query, ctx.expectedVersions))
    .executeTakeFirst();
  if (ctx.expectedVersions !== undefined && result.numDeletedRows === 0n) throw new PreconditionFailedError();
}

interface Filterable<Q> {
  where(column: string, operator: '=', value: unknown): Q;
}

function whereValues<Q extends Filterable<Q>>(query: Q, values: Readonly<Record<string, unknown>> | undefined): Q {
  let conditioned = query;
  for (const [column, value] of Object.entries(values ?? {})) conditioned = conditioned.where(column, '=', value);
  return conditioned;
}

/** The ids of `ids` that exist in the caller's account. */
export async function existingIds(ctx: WriteContext, table: TableName, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await untyped(ctx).selectFrom(table).select('id').where('account_id', '=', ctx.caller.accountId).where('id', 'in', [...ids]).execute();
  return new Set(rows.map((row) => Number(row.id)));
}

/** Refuses a delete while rows of other sets refer to the entity (ON DELETE RESTRICT would, less clearly). */
export async function refuseIfReferenced(ctx: WriteContext, table: EntityTable, id: number): Promise<void> {
  for (const dependant of table.dependants) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(dependant.table.table)}
      where account_id = ${ctx.caller.accountId} and ${sql.ref(dependant.column)} = ${id}`.execute(ctx.db);
    const count = Number(rows[0]?.n ?? 0);
    if (count > 0) throw new ConflictError(messages.hasDependants(table.definition.noun, count, dependant.table.definition.noun), LANG);
  }
}

/** A database constraint violation as the client's 409; anything else unchanged. */
export function asClientError(error: unknown, dialect: StorageDialect, table: EntityTable): unknown {
  const violation = dialect.constraintViolation(error);
  if (violation === undefined) return error;
  const explained = table.definition.explainViolation?.(violation);
  if (explained !== undefined) return explained;
  const noun = table.definition.noun;
  if (violation.kind === 'foreign-key') {
    return new ConflictError(messages.invalidReference(noun), LANG);
  }
  return new ValidationError(messages.databaseRule(noun), LANG);
}
