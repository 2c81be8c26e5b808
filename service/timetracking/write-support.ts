// What every write of the time-tracking service shares: typed values to columns, the change
// stamp, lookups inside the caller's account, and the database's own constraint violations
// turned into the client's 409 (the rules check first; the constraints are the guarantee that
// holds even when two requests race).
import { sql } from 'kysely';
import type { Transaction } from 'kysely';
import type { EdmRecord } from '../../odata/edm.js';
import { ConflictError, ValidationError } from '../odata-server/errors.js';
import type { StorageDialect } from '../storage/dialect.js';
import type { Database } from '../storage/schema.js';
import type { Caller } from './caller.js';
import { LANG, cannotSave, messages } from './messages.js';
import type { EntityTable } from './tables.js';

export type Trx = Transaction<Database>;

export interface WriteContext {
  readonly trx: Trx;
  readonly caller: Caller;
  /** The instant of this write (UTC ms): LastChangeTime, stopwatch start and end. */
  readonly now: number;
  /** Whether `select ... for update` exists (PostgreSQL); SQLite's immediate transactions
   *  hold the whole database already. */
  readonly locksRows: boolean;
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

export function changeStamp(ctx: WriteContext): { last_change_time: number; last_change_author: number } {
  return { last_change_time: ctx.now, last_change_author: ctx.caller.userId };
}

type AccountTable = 'clients' | 'projects' | 'tasks' | 'users';

/** The ids of `ids` that exist in the caller's account. */
export async function existingIds(ctx: WriteContext, table: AccountTable, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await ctx.trx.selectFrom(table).select('id').where('account_id', '=', ctx.caller.accountId).where('id', 'in', [...ids]).execute();
  return new Set(rows.map((row) => row.id));
}

/** Rows of `table` in the caller's account whose `column` is `id` (dependants of a delete). */
export async function countReferences(ctx: WriteContext, table: AccountTable | 'time_entries', column: string, id: number): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}
    where account_id = ${ctx.caller.accountId} and ${sql.ref(column)} = ${id}`.execute(ctx.trx);
  return Number(rows[0]?.n ?? 0);
}

/** Refuses a delete while others refer to the entity (ON DELETE RESTRICT would, less clearly). */
export async function refuseIfReferenced(ctx: WriteContext, typeName: string, id: number, dependants: readonly [table: AccountTable | 'time_entries', column: string, typeName: string][]): Promise<void> {
  for (const [table, column, dependantType] of dependants) {
    const count = await countReferences(ctx, table, column, id);
    if (count > 0) throw new ConflictError(messages.hasDependants(typeName, count, dependantType), LANG);
  }
}

/** A database constraint violation as the client's 409; anything else unchanged. */
export function asClientError(error: unknown, dialect: StorageDialect, typeName: string): unknown {
  const violation = dialect.constraintViolation(error);
  if (violation === undefined) return error;
  if (violation.constraint === 'time_entries_one_running_per_user' || (violation.kind === 'unique' && violation.table === 'time_entries')) {
    return new ValidationError(messages.stopwatchRunning(), LANG);
  }
  if (violation.constraint === 'time_entries_end_not_before_start') return new ValidationError(messages.endBeforeStart(), LANG);
  if (violation.kind === 'foreign-key') {
    return new ConflictError(cannotSave(typeName, 'Ein Verweis auf einen anderen Eintrag ist ungültig, oder andere Einträge verweisen noch hierauf.'), LANG);
  }
  return new ValidationError(cannotSave(typeName, 'Die Daten verletzen eine Regel der Datenbank.'), LANG);
}
