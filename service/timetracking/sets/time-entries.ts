// TimeEntries (data-model.md): the bookings. Standard users read and write their own entries;
// administrators all of the account's.
//
// Write rules:
//   - standard users book for themselves, on projects assigned to them, not in the closed
//     booking period, and cannot lock, change or delete locked entries; administrators may all;
//   - the project must be active, the task active and allowed on the project;
//   - TypeID 1 (duration) or 2 (start/end); EndTime not before StartTime; an entry without
//     EndTime is a running stopwatch, at most one per user (a database constraint);
//   - Billable defaults to the task's Billable, else true; UserID to the caller;
//   - a deleted entry's ID is logged for GetChangesDigest.
//
// Computed values:
//   DurationSeconds   EndTime - StartTime; for a running stopwatch, the time so far
//   DurationString    hh:mm, rounded down
//   IsEditable        whether the caller may change it now
//   RevenuePerHour    the project's HourlyRate (null when none or rates are off)
//   RevenueTotal      RevenuePerHour x hours when Billable, to the cent; else null
import { sql } from 'kysely';
import type { EdmRecord, EdmValue } from '../../../odata/edm.js';
import { isInEdmCalendar } from '../../../odata/datetime.js';
import { ResourceNotFoundError } from '../../../odata/errors.js';
import type { UpdateMode } from '../../odata-server/data-source.js';
import { ForbiddenError, ValidationError } from '../../odata-server/errors.js';
import type { Caller } from '../caller.js';
import { wallClockOf } from '../caller.js';
import type { Texts } from '../../odata-server/error-texts.js';
import { LANG, entryMessages, messages, timeEntryNoun } from '../messages.js';
import type { EntityTable } from '../tables.js';
import type { WriteContext } from '../write-support.js';
import { deleteRow, existingIds, insertRow, runCompiled, toColumns, updateRow } from '../write-support.js';
import type { CreatedEntity, EntitySetDefinition } from './entity-set.js';
import { projects } from './projects.js';
import { tasks } from './tasks.js';
import { users } from './users.js';

const noun = timeEntryNoun;

/** A time entry as the rules see it (stored form: epoch ms, 0/1 flags). */
interface EntryState {
  readonly [column: string]: unknown;
  readonly type_id: number;
  readonly user_id: number;
  readonly project_id: number;
  readonly task_id: number | null;
  readonly start_time: number;
  readonly end_time: number | null;
  readonly billable: number;
  readonly locked: number;
}

type EntryColumns = { -readonly [K in keyof EntryState]?: EntryState[K] } & Record<string, unknown>;

const MAX_DURATION_MS = 2_147_483_647 * 1000;

const ENTRY_COLUMNS = ['id', 'type_id', 'user_id', 'project_id', 'task_id', 'start_time', 'end_time', 'billable', 'locked'] as const;

/** Inserts a new entry after the rules; omitted columns take the defaults of data-model.md. */
export async function insertEntry(ctx: WriteContext, table: EntityTable, columns: EntryColumns): Promise<CreatedEntity> {
  const entry = { type_id: 2, user_id: ctx.caller.userId, task_id: null, end_time: null, locked: 0, ...columns };
  const facts = await checkEntry(ctx, table, entry as EntryState, undefined);
  const billable = entry.billable ?? facts.taskBillable ?? 1;
  const record = await insertRow(ctx, table, { ...entry, billable });
  // The project's rate, read by the rules already, is what the revenue of a read would join.
  return 'projectRate' in facts ? { record, helperValue: facts.projectRate } : { record };
}

/**
 * Changes an entry whose state before the change is `current`: as read in this transaction,
 * locked (`guarded` false), or as the request read it before (`guarded`), when the change is
 * made only while the row still has that version; undefined when it no longer had it.
 */
async function changeEntry(
  ctx: WriteContext, table: EntityTable, id: number, given: EntryColumns, mode: UpdateMode, current: EntryState, guarded: boolean,
): Promise<EdmRecord | undefined> {
  mayChange(ctx.caller, current);
  const changes = { ...given };
  // UserID names the owner: a replace that omits it keeps the owner rather than moving the
  // entry to whoever sent the request.
  if (mode === 'replace' && changes.user_id === undefined) changes.user_id = current.user_id;
  await checkEntry(ctx, table, { ...current, ...changes } as EntryState, current);
  const guard = guarded ? Object.fromEntries(table.versions.map(({ column }) => [column, current[column]])) : undefined;
  return updateRow(ctx, table, id, changes, guard);
}

/** The stored entry, locked for this transaction where the database locks rows. */
async function lockedEntry(ctx: WriteContext, id: number): Promise<EntryState> {
  const entry = await ctx.db.selectFrom('time_entries').select(ENTRY_COLUMNS)
    .where('account_id', '=', ctx.caller.accountId).where('id', '=', id)
    .$if(ctx.locksRows, (query) => query.forUpdate())
    .executeTakeFirst();
  // Deleted by another request since this one read it.
  if (entry === undefined) throw new ResourceNotFoundError(`TimeEntries(${id}) does not exist`);
  return entry;
}

/** Whether the caller may change (or delete) this entry as it is now. */
function mayChange(caller: Caller, current: EntryState): void {
  if (caller.isAdmin) return;
  if (current.user_id !== caller.userId) throw new ForbiddenError(entryMessages.otherUser(), LANG);
  if (current.locked === 1) throw new ForbiddenError(entryMessages.locked(), LANG);
  closedPeriod(caller, current.start_time);
}

function closedPeriod(caller: Caller, startTime: number): void {
  if (!caller.isAdmin && caller.bookingCloseDate !== null && startTime < caller.bookingCloseDate) {
    throw new ForbiddenError(entryMessages.bookingClosed(new Date(wallClockOf(caller)?.toWallClock(caller.bookingCloseDate) ?? caller.bookingCloseDate)), LANG);
  }
}

interface ProjectFacts {
  readonly active: number;
  readonly assigned_users: string | null;
  readonly assigned_tasks: string | null;
  readonly hourly_rate: unknown;
}

/** What the rules read on the way that the write can use. */
interface EntryFacts {
  /** The task's Billable (0/1), when the entry has a task that was looked up. */
  readonly taskBillable?: number;
  /** The project's HourlyRate as stored, when the project was looked up. */
  readonly projectRate?: unknown;
}

/** Checks the entry as it would be stored (`current` is the stored one, undefined on create). */
async function checkEntry(ctx: WriteContext, table: EntityTable, entry: EntryState, current: EntryState | undefined): Promise<EntryFacts> {
  const { caller } = ctx;
  const changed = (column: keyof EntryState) => current === undefined || entry[column] !== current[column];
  // The caller is a user of the account (the API key said so): only another user is looked up.
  if (!caller.isAdmin) {
    if (entry.user_id !== caller.userId) throw new ForbiddenError(entryMessages.otherUser(), LANG);
    if (changed('locked') && (current !== undefined || entry.locked === 1)) throw new ForbiddenError(entryMessages.lockByAdminsOnly(), LANG);
    closedPeriod(caller, entry.start_time);
  } else if (changed('user_id') && entry.user_id !== caller.userId && !(await existingIds(ctx, users.table, [entry.user_id])).has(entry.user_id)) {
    throw invalid(messages.unknownReference(noun, 'UserID', entry.user_id, users.noun), 'UserID');
  }
  if (entry.type_id !== 1 && entry.type_id !== 2) throw invalid(entryMessages.unknownTypeId(), 'TypeID');
  if (entry.type_id === 1 && entry.end_time === null) throw invalid(entryMessages.durationNeedsEnd(), 'EndTime');
  checkCalendar(caller, 'StartTime', entry.start_time);
  if (entry.end_time !== null) checkCalendar(caller, 'EndTime', entry.end_time);
  if (entry.end_time !== null && entry.end_time < entry.start_time) throw invalid(entryMessages.endBeforeStart(), 'EndTime');
  // DurationSeconds is an Edm.Int32: a longer entry would break every typed client reading it.
  if ((entry.end_time ?? ctx.now) - entry.start_time > MAX_DURATION_MS) throw invalid(entryMessages.durationTooLong(), 'EndTime');

  const projectChanged = changed('project_id');
  if (!projectChanged && !changed('task_id')) return {};
  const [project] = await runCompiled<ProjectFacts>(ctx, table, 'project', [caller.accountId, entry.project_id], () =>
    ctx.db.selectFrom('projects').select(['active', 'assigned_users', 'assigned_tasks', 'hourly_rate'])
      .where('account_id', '=', caller.accountId).where('id', '=', entry.project_id).compile());
  if (project === undefined) throw invalid(messages.unknownReference(noun, 'ProjectID', entry.project_id, projects.noun), 'ProjectID');
  if (projectChanged) {
    const assigned = project.assigned_users === null || project.assigned_users.split(',').includes(String(entry.user_id));
    if (project.active !== 1 || (!caller.isAdmin && !assigned)) throw invalid(entryMessages.projectNotBookable(entry.project_id), 'ProjectID');
  }
  const projectRate = project.hourly_rate;
  if (entry.task_id === null) return { projectRate };
  const [task] = await runCompiled<{ active: number; billable: number }>(ctx, table, 'task', [caller.accountId, entry.task_id], () =>
    ctx.db.selectFrom('tasks').select(['active', 'billable'])
      .where('account_id', '=', caller.accountId).where('id', '=', entry.task_id).compile());
  if (task === undefined) throw invalid(messages.unknownReference(noun, 'TaskID', entry.task_id, tasks.noun), 'TaskID');
  const allowed = project.assigned_tasks === null || project.assigned_tasks.split(',').includes(String(entry.task_id));
  if (task.active !== 1 || !allowed) throw invalid(entryMessages.taskNotAllowed(entry.task_id, entry.project_id), 'TaskID');
  return { taskBillable: task.billable, projectRate };
}

/**
 * Refuses a start or end the account's clock shows outside Edm.DateTime's calendar: no reader
 * could be given it (Atom would write `10000-01-01T...`, a timesheet week would run past it).
 */
export function checkCalendar(caller: Caller, property: 'StartTime' | 'EndTime', instant: number): void {
  const wallClock = wallClockOf(caller)?.toWallClock(instant) ?? instant;
  if (!isInEdmCalendar(wallClock)) throw invalid(entryMessages.outOfCalendar(property), property);
}

function invalid(message: Texts, property: string): ValidationError {
  return new ValidationError(message, LANG, property);
}

/** Stored columns of a new stopwatch entry from StartStopWatch's parameters. */
export function stopwatchColumns(now: number, parameters: Readonly<Record<string, EdmValue>>): EntryColumns {
  const columns: EntryColumns = {
    type_id: 2,
    project_id: parameters.ProjectID as number,
    task_id: (parameters.TaskID as number | null) ?? null,
    start_time: now,
    end_time: null,
    comment: parameters.Comment ?? null,
  };
  for (const n of [1, 2, 3, 4, 5]) columns[`custom${n}`] = parameters[`Custom${n}`] ?? null;
  if (typeof parameters.Billable === 'boolean') columns.billable = parameters.Billable ? 1 : 0;
  return columns;
}

function completeTimeEntry(record: EdmRecord, caller: Caller, now: number, projectRate: unknown): void {
  const start = (record.StartTime as Date).getTime();
  const rate = caller.hourlyRatesEnabled && typeof projectRate === 'string' ? projectRate : null;
  const end = record.EndTime instanceof Date ? record.EndTime.getTime() : Math.max(now, start);
  const seconds = Math.max(0, Math.floor((end - start) / 1000));
  record.DurationSeconds = seconds;
  record.DurationString = durationString(seconds);
  record.IsEditable = caller.isAdmin || (
    record.UserID === caller.userId
    && record.Locked !== true
    && (caller.bookingCloseDate === null || start >= caller.bookingCloseDate)
  );
  record.RevenuePerHour = rate;
  record.RevenueTotal = rate !== null && record.Billable === true ? revenue(rate, seconds) : null;
}

/** `hh:mm`, hours not limited to two digits. */
export function durationString(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return `${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
}

/**
 * Below this, cents x seconds is an exact double and so is the floor of its quotient by 3600
 * (the quotient's rounding error stays far below the 1/3600 between candidate results).
 */
const EXACT_PRODUCT_LIMIT = 2 ** 45;

/** rate (a decimal with two places) x seconds / 3600, rounded half away from zero to the cent. */
export function revenue(rate: string, seconds: number): string {
  // Plain numbers are exact while the product stays below EXACT_PRODUCT_LIMIT (any real rate and
  // duration); BigInt only beyond it, because it cost more than all other computed values of an
  // entry together, on every entry of every page.
  const centsNumber = Number(rate.replace('.', ''));
  const scaledNumber = centsNumber * seconds;
  if (Number.isInteger(centsNumber) && Math.abs(scaledNumber) < EXACT_PRODUCT_LIMIT) {
    const roundedNumber = Math.floor((Math.abs(scaledNumber) + 1800) / 3600);
    const digits = String(roundedNumber).padStart(3, '0');
    return `${scaledNumber < 0 && roundedNumber !== 0 ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
  }
  const cents = BigInt(rate.replace('.', ''));
  const scaled = cents * BigInt(seconds);
  const negative = scaled < 0n;
  const magnitude = negative ? -scaled : scaled;
  const rounded = (magnitude + 1800n) / 3600n;
  const text = rounded.toString().padStart(3, '0');
  return `${negative && rounded !== 0n ? '-' : ''}${text.slice(0, -2)}.${text.slice(-2)}`;
}

export const timeEntries: EntitySetDefinition = {
  name: 'TimeEntries',
  table: 'time_entries',
  noun,
  visibleToStandardUser: (caller, alias) => sql`${sql.ref(`${alias}.user_id`)} = ${caller.userId}`,
  computed: {
    properties: ['DurationSeconds', 'DurationString', 'IsEditable', 'RevenuePerHour', 'RevenueTotal'],
    helper: {
      // The project's rate, for the revenue of each entry.
      join: (alias) => sql`left join projects as rate_of on rate_of.id = ${sql.ref(`${alias}.project_id`)}`,
      value: { fixed: () => sql.ref('rate_of.hourly_rate') },
      decimalScale: 2,
    },
    complete: completeTimeEntry,
  },
  writes: {
    create: (ctx, table, values) => insertEntry(ctx, table, toColumns(table, values)),
    async update(ctx, table, id, values, mode) {
      return changeEntry(ctx, table, id, toColumns(table, values), mode, await lockedEntry(ctx, id), false);
    },
    // The entry as the request read it saves reading it again (a MERGE read it twice); when
    // another write changed it in between, update() reads it again, locked, and checks anew.
    async updateSeen(ctx, table, id, values, mode, seen) {
      if (table.versions.length === 0) return undefined;
      return changeEntry(ctx, table, id, toColumns(table, values), mode, toColumns(table, seen) as EntryState, true);
    },
    async remove(ctx, table, id) {
      const current = await lockedEntry(ctx, id);
      mayChange(ctx.caller, current);
      await deleteRow(ctx, table, id);
      await ctx.db.insertInto('deleted_time_entries')
        .values({ id, account_id: ctx.caller.accountId, deleted_at: ctx.now, user_id: current.user_id }).execute();
    },
  },
  explainViolation(violation) {
    if (violation.constraint === 'time_entries_one_running_per_user' || (violation.kind === 'unique' && violation.table === 'time_entries')) {
      return new ValidationError(entryMessages.stopwatchRunning(), LANG);
    }
    if (violation.constraint === 'time_entries_end_not_before_start') return new ValidationError(entryMessages.endBeforeStart(), LANG);
    return undefined;
  },
};
