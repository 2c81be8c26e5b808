// Writes of TimeEntries (data-model.md): who may book what, and what a valid entry is.
//   - standard users book for themselves, on projects assigned to them, not in the closed
//     booking period, and cannot lock, change or delete locked entries; administrators may all;
//   - the project must be active, the task active and allowed on the project;
//   - TypeID 1 (duration) or 2 (start/end); EndTime not before StartTime; an entry without
//     EndTime is a running stopwatch, at most one per user (a database constraint);
//   - Billable defaults to the task's Billable, else true; UserID to the caller.
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { UpdateMode } from '../odata-server/data-source.js';
import { ForbiddenError, ValidationError } from '../odata-server/errors.js';
import type { Caller } from './caller.js';
import { LANG, messages } from './messages.js';
import type { EntityTable } from './tables.js';
import type { WriteContext } from './write-support.js';
import { changeStamp, existingIds, toColumns } from './write-support.js';

/** A time entry as the rules see it (stored form: epoch ms, 0/1 flags). */
interface EntryState {
  readonly type_id: number;
  readonly user_id: number;
  readonly project_id: number;
  readonly task_id: number | null;
  readonly start_time: number;
  readonly end_time: number | null;
  readonly billable: number;
  readonly locked: number;
}

const MAX_DURATION_MS = 2_147_483_647 * 1000;

const ENTRY_COLUMNS = ['id', 'type_id', 'user_id', 'project_id', 'task_id', 'start_time', 'end_time', 'billable', 'locked'] as const;

type EntryColumns = { -readonly [K in keyof EntryState]?: EntryState[K] } & Record<string, unknown>;

export async function createTimeEntry(ctx: WriteContext, table: EntityTable, values: EdmRecord): Promise<number> {
  return insertEntry(ctx, toColumns(table, values));
}

/** Inserts a new entry after the rules; omitted columns take the defaults of data-model.md. */
export async function insertEntry(ctx: WriteContext, columns: EntryColumns): Promise<number> {
  const entry = { type_id: 2, user_id: ctx.caller.userId, task_id: null, end_time: null, locked: 0, ...columns };
  const task = await checkEntry(ctx, entry as EntryState, undefined);
  const billable = entry.billable ?? task?.billable ?? 1;
  const created = await ctx.trx.insertInto('time_entries')
    .values({ ...entry, billable, account_id: ctx.caller.accountId, ...changeStamp(ctx) } as never)
    .returning('id').executeTakeFirstOrThrow();
  return created.id;
}

export async function updateTimeEntry(ctx: WriteContext, table: EntityTable, id: number, values: EdmRecord, mode: UpdateMode): Promise<void> {
  const current = await lockedEntry(ctx, id);
  mayChange(ctx.caller, current);
  const given = toColumns(table, values);
  // UserID names the owner: a replace that omits it keeps the owner rather than moving the
  // entry to whoever sent the request.
  if (mode === 'replace' && given.user_id === undefined) given.user_id = current.user_id;
  const next = { ...current, ...given } as EntryState;
  await checkEntry(ctx, next, current);
  await ctx.trx.updateTable('time_entries').set({ ...given, ...changeStamp(ctx) } as never)
    .where('account_id', '=', ctx.caller.accountId).where('id', '=', id).execute();
}

export async function deleteTimeEntry(ctx: WriteContext, id: number): Promise<void> {
  const current = await lockedEntry(ctx, id);
  mayChange(ctx.caller, current);
  await ctx.trx.deleteFrom('time_entries').where('account_id', '=', ctx.caller.accountId).where('id', '=', id).execute();
  await ctx.trx.insertInto('deleted_time_entries')
    .values({ id, account_id: ctx.caller.accountId, deleted_at: ctx.now, user_id: current.user_id }).execute();
}

/** The stored entry, locked for this transaction where the database locks rows. */
export async function lockedEntry(ctx: WriteContext, id: number): Promise<EntryState> {
  const row = await ctx.trx.selectFrom('time_entries').select(ENTRY_COLUMNS)
    .where('account_id', '=', ctx.caller.accountId).where('id', '=', id)
    .$if(ctx.locksRows, (query) => query.forUpdate())
    .executeTakeFirstOrThrow();
  return row;
}

/** Whether the caller may change (or delete) this entry as it is now. */
function mayChange(caller: Caller, current: EntryState): void {
  if (caller.isAdmin) return;
  if (current.user_id !== caller.userId) throw new ForbiddenError(messages.otherUser(), LANG);
  if (current.locked === 1) throw new ForbiddenError(messages.locked(), LANG);
  closedPeriod(caller, current.start_time);
}

function closedPeriod(caller: Caller, startTime: number): void {
  if (!caller.isAdmin && caller.bookingCloseDate !== null && startTime < caller.bookingCloseDate) {
    throw new ForbiddenError(messages.bookingClosed(new Date(caller.bookingCloseDate)), LANG);
  }
}

interface TaskFacts {
  readonly billable: number;
}

/**
 * Checks the entry as it would be stored (`current` is the stored one, undefined on create);
 * returns the task's facts when the entry has a task.
 */
export async function checkEntry(ctx: WriteContext, entry: EntryState, current: EntryState | undefined): Promise<TaskFacts | undefined> {
  const { caller } = ctx;
  const changed = (column: keyof EntryState) => current === undefined || entry[column] !== current[column];
  if (!caller.isAdmin) {
    if (entry.user_id !== caller.userId) throw new ForbiddenError(messages.otherUser(), LANG);
    if (changed('locked') && (current !== undefined || entry.locked === 1)) throw new ForbiddenError(messages.lockByAdminsOnly(), LANG);
    closedPeriod(caller, entry.start_time);
  } else if (changed('user_id') && !(await existingIds(ctx, 'users', [entry.user_id])).has(entry.user_id)) {
    throw invalid(messages.unknownReference('TimeEntry', 'UserID', entry.user_id, 'User'), 'UserID');
  }
  if (entry.type_id !== 1 && entry.type_id !== 2) throw invalid(messages.unknownTypeId(), 'TypeID');
  if (entry.type_id === 1 && entry.end_time === null) throw invalid(messages.durationNeedsEnd(), 'EndTime');
  if (entry.end_time !== null && entry.end_time < entry.start_time) throw invalid(messages.endBeforeStart(), 'EndTime');
  // DurationSeconds is an Edm.Int32: a longer entry would break every typed client reading it.
  if ((entry.end_time ?? ctx.now) - entry.start_time > MAX_DURATION_MS) throw invalid(messages.durationTooLong(), 'EndTime');

  const projectChanged = changed('project_id');
  if (!projectChanged && !changed('task_id')) return undefined;
  const project = await ctx.trx.selectFrom('projects').select(['active', 'assigned_users', 'assigned_tasks'])
    .where('account_id', '=', caller.accountId).where('id', '=', entry.project_id).executeTakeFirst();
  if (project === undefined) throw invalid(messages.unknownReference('TimeEntry', 'ProjectID', entry.project_id, 'Project'), 'ProjectID');
  if (projectChanged) {
    const assigned = project.assigned_users === null || project.assigned_users.split(',').includes(String(entry.user_id));
    if (project.active !== 1 || (!caller.isAdmin && !assigned)) throw invalid(messages.projectNotBookable(entry.project_id), 'ProjectID');
  }
  if (entry.task_id === null) return undefined;
  const task = await ctx.trx.selectFrom('tasks').select(['active', 'billable'])
    .where('account_id', '=', caller.accountId).where('id', '=', entry.task_id).executeTakeFirst();
  if (task === undefined) throw invalid(messages.unknownReference('TimeEntry', 'TaskID', entry.task_id, 'Task'), 'TaskID');
  const allowed = project.assigned_tasks === null || project.assigned_tasks.split(',').includes(String(entry.task_id));
  if (task.active !== 1 || !allowed) throw invalid(messages.taskNotAllowed(entry.task_id, entry.project_id), 'TaskID');
  return { billable: task.billable };
}

function invalid(message: string, property: string): ValidationError {
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
