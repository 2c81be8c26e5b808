// The remote-controlled stopwatch (service-api.md §3.1): a running stopwatch is the caller's time
// entry without EndTime. Start halts a running one and starts anew; halt ends it; current shows
// it. Each runs in one transaction holding the user's row lock (PostgreSQL) or the database's
// write lock (SQLite), so concurrent starts of one user take turns, and the partial unique index
// on running entries guarantees one stopwatch per user whatever reaches the database.
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { FunctionImport } from '../../odata/model.js';
import { ServiceError, ValidationError } from '../odata-server/errors.js';
import type { Caller } from './caller.js';
import { LANG, entryMessages } from './messages.js';
import { checkCalendar, insertEntry, stopwatchColumns } from './sets/time-entries.js';
import type { EntityTable } from './tables.js';
import type { WriteContext } from './write-support.js';
import { updateRow } from './write-support.js';

export interface StopwatchStore {
  /** Where time entries are stored. */
  readonly entries: EntityTable;
  /** Runs `work` in a write transaction with the caller's stopwatch locked. */
  write<T>(caller: Caller, work: (ctx: WriteContext) => Promise<T>): Promise<T>;
  /** The entry as a read returns it. */
  read(caller: Caller, id: number): Promise<EdmRecord | undefined>;
  /** The caller's running entry, if any. */
  running(caller: Caller): Promise<EdmRecord | undefined>;
}

function noStopwatch(): ServiceError {
  return new ServiceError(404, 'NOT_FOUND', entryMessages.noStopwatch(), LANG);
}

export async function currentStopwatch(store: StopwatchStore, caller: Caller): Promise<EdmRecord> {
  const entry = await store.running(caller);
  if (entry === undefined) throw noStopwatch();
  return entry;
}

export async function startStopwatch(store: StopwatchStore, caller: Caller, fn: FunctionImport, parameters: Readonly<Record<string, EdmValue>>): Promise<EdmRecord> {
  checkLengths(fn, parameters);
  const id = await store.write(caller, async (ctx) => {
    await haltRunning(ctx, store.entries);
    return (await insertEntry(ctx, store.entries, stopwatchColumns(ctx.now, parameters))).record.ID as number;
  });
  return (await store.read(caller, id)) as EdmRecord;
}

export async function haltStopwatch(store: StopwatchStore, caller: Caller): Promise<EdmRecord> {
  const id = await store.write(caller, (ctx) => haltRunning(ctx, store.entries));
  if (id === undefined) throw noStopwatch();
  return (await store.read(caller, id)) as EdmRecord;
}

/** Ends the caller's running entry now (never before its start); its id, if one ran. */
async function haltRunning(ctx: WriteContext, entries: EntityTable): Promise<number | undefined> {
  const running = await ctx.db.selectFrom('time_entries').select(['id', 'start_time'])
    .where('account_id', '=', ctx.caller.accountId).where('user_id', '=', ctx.caller.userId).where('end_time', 'is', null)
    .executeTakeFirst();
  if (running === undefined) return undefined;
  const end = Math.max(ctx.now, running.start_time);
  checkCalendar(ctx.caller, 'EndTime', end);
  await updateRow(ctx, entries, running.id, { end_time: end });
  return running.id;
}

function checkLengths(fn: FunctionImport, parameters: Readonly<Record<string, EdmValue>>): void {
  for (const parameter of fn.parameters) {
    const value = parameters[parameter.name];
    if (typeof value === 'string' && typeof parameter.maxLength === 'number' && [...value].length > parameter.maxLength) {
      throw new ValidationError(entryMessages.tooLong(parameter.name, parameter.maxLength), LANG, parameter.name);
    }
  }
}
