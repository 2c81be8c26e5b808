// The list of time entries behind reports and exports: one query builder that applies the scope
// and the filter (report-scope.ts), read three ways: a page for the web pages, a count for a
// progress bar, and an iterator over all of them in keyset batches for exports, which holds one
// batch at a time however many entries match (never OFFSET: each batch starts where the last
// ended, on the index (account_id, start_time, id), on SQLite and PostgreSQL alike).
//
// Only finished entries count: a running stopwatch is not booked time yet, and its duration would
// change between the report and the export read a moment later.
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import { revenue } from '../timetracking/sets/time-entries.js';
import type { CustomEntity, EntryFilter, ReportAccount, ReportDatabase, ReportScope } from './report-scope.js';
import { instantRange, zoneOf } from './report-scope.js';

/** One finished time entry with the names a person reads it by. Times are instants (UTC epoch ms). */
export interface EntryRow {
  readonly id: number;
  /** 1 = duration entry, 2 = start/end entry. */
  readonly typeId: number;
  readonly startTime: number;
  readonly endTime: number;
  /** Whole seconds from start to end, as DurationSeconds in the API. */
  readonly seconds: number;
  readonly userId: number;
  readonly userName: string;
  readonly userEmail: string;
  readonly projectId: number;
  readonly projectName: string;
  readonly clientId: number | null;
  readonly clientName: string | null;
  readonly taskId: number | null;
  readonly taskName: string | null;
  readonly comment: string | null;
  readonly billable: boolean;
  readonly locked: boolean;
  /** The project's hourly rate (`95.00`) when the account has rates on; else null (RevenuePerHour). */
  readonly ratePerHour: string | null;
  /** Rate x hours to the cent when billable and rated; else null (RevenueTotal). */
  readonly revenue: string | null;
  /** Custom1..Custom5 of the entry and of its project, client, task and user; for entities other
   *  than the entry, only the slots the account labelled are read (the others are null). */
  readonly custom: Readonly<Record<CustomEntity, readonly (string | null)[]>>;
}

/** Where a page or batch ends: the next one starts after this entry. */
export interface EntryCursor {
  readonly startTime: number;
  readonly id: number;
}

export type EntryOrder = 'asc' | 'desc';

type EntryQuery = ReturnType<typeof scopedEntries>;

const SLOTS = [1, 2, 3, 4, 5] as const;
const CUSTOM_ALIASES: ReadonlyArray<[CustomEntity, 'e' | 'p' | 'c' | 't' | 'u']> = [
  ['timeEntry', 'e'], ['project', 'p'], ['client', 'c'], ['task', 't'], ['user', 'u'],
];

/** Whole seconds of a finished entry (`e`), as an integer on both databases. */
export function entrySecondsSql(): RawBuilder<number> {
  return sql<number>`((e.end_time - e.start_time) / 1000)`;
}

/** The project's (`p`) hourly rate in cents, an integer; null without a rate. */
export function rateCentsSql(): RawBuilder<number | null> {
  return sql<number | null>`cast(round(p.hourly_rate * 100) as bigint)`;
}

/**
 * An entry's revenue in cents, rounded half up per entry as `revenue()` rounds RevenueTotal,
 * so that a report's sum equals the sum of the exported entries; 0 when not billable or unrated.
 */
export function revenueCentsSql(): RawBuilder<number> {
  return sql<number>`(case when e.billable = 1 and p.hourly_rate is not null
    then (${rateCentsSql()} * ${entrySecondsSql()} + 1800) / 3600 else 0 end)`;
}

/**
 * time_entries `e` joined to its user `u`, project `p`, client `c` and task `t` (every join
 * within the account too), restricted to the scope and the filter. Selects nothing yet.
 */
export function scopedEntries(database: ReportDatabase, scope: ReportScope, filter: EntryFilter, account: ReportAccount) {
  if (account.accountId !== scope.accountId) throw new Error(`report account ${account.accountId} is not the scope's ${scope.accountId}`);
  const { startMs, endMs } = instantRange(filter, zoneOf(account));
  return database.db.selectFrom('time_entries as e')
    .innerJoin('users as u', (join) => join.onRef('u.id', '=', 'e.user_id').onRef('u.account_id', '=', 'e.account_id'))
    .innerJoin('projects as p', (join) => join.onRef('p.id', '=', 'e.project_id').onRef('p.account_id', '=', 'e.account_id'))
    .leftJoin('clients as c', (join) => join.onRef('c.id', '=', 'p.client_id').onRef('c.account_id', '=', 'e.account_id'))
    .leftJoin('tasks as t', (join) => join.onRef('t.id', '=', 'e.task_id').onRef('t.account_id', '=', 'e.account_id'))
    .where('e.account_id', '=', scope.accountId)
    .$if(scope.onlyUserId !== null, (q) => q.where('e.user_id', '=', scope.onlyUserId as number))
    .where('e.end_time', 'is not', null)
    .$if(startMs !== undefined, (q) => q.where('e.start_time', '>=', startMs as number))
    .$if(endMs !== undefined, (q) => q.where('e.start_time', '<', endMs as number))
    .$if(filter.userId !== undefined, (q) => q.where('e.user_id', '=', filter.userId as number))
    .$if(filter.projectId !== undefined, (q) => q.where('e.project_id', '=', filter.projectId as number))
    .$if(filter.clientId !== undefined, (q) => q.where('p.client_id', '=', filter.clientId as number))
    .$if(filter.taskId !== undefined, (q) => q.where('e.task_id', '=', filter.taskId as number))
    .$if(filter.billable !== undefined, (q) => q.where('e.billable', '=', filter.billable ? 1 : 0));
}

function selectRow(query: EntryQuery, account: ReportAccount) {
  const customs = CUSTOM_ALIASES.flatMap(([entity, alias]) => SLOTS
    .filter((n) => entity === 'timeEntry' || account.customLabels[entity][n - 1] !== null)
    .map((n) => sql<string | null>`${sql.ref(`${alias}.custom${n}`)}`.as(`${alias}_custom${n}`)));
  return query.select([
    'e.id', 'e.type_id', 'e.start_time', 'e.end_time', 'e.user_id', 'e.project_id', 'e.task_id', 'e.comment', 'e.billable', 'e.locked',
    'u.first_name', 'u.last_name', 'u.email', 'p.name as project_name', 'p.client_id', 'c.name as client_name', 't.description as task_name',
    rateCentsSql().as('rate_cents'),
  ]).select(customs);
}

type SelectedRow = Record<string, unknown> & {
  id: number; type_id: number; start_time: number; end_time: number | null; user_id: number; project_id: number; task_id: number | null;
  comment: string | null; billable: number; locked: number; first_name: string; last_name: string; email: string;
  project_name: string; client_id: number | null; client_name: string | null; task_name: string | null; rate_cents: number | string | null;
};

const NO_CUSTOM_VALUES: readonly (string | null)[] = Object.freeze([null, null, null, null, null]);

/** Turns selected rows into EntryRows; the custom columns read are fixed per account, so their keys are made once. */
function rowReader(account: ReportAccount): (row: SelectedRow) => EntryRow {
  const customKeys = CUSTOM_ALIASES.map(([entity, alias]) => [entity,
    entity === 'timeEntry' || account.customLabels[entity].some((label) => label !== null) ? SLOTS.map((n) => `${alias}_custom${n}`) : null] as const);
  const rates = new Map<number, string>();
  return (row) => {
    const endTime = Number(row.end_time);
    const startTime = Number(row.start_time);
    const seconds = Math.floor((endTime - startTime) / 1000);
    let ratePerHour: string | null = null;
    if (row.rate_cents !== null && account.hourlyRatesEnabled) {
      const cents = Number(row.rate_cents);
      ratePerHour = rates.get(cents) ?? `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
      rates.set(cents, ratePerHour);
    }
    const billable = row.billable === 1;
    const custom = {} as Record<CustomEntity, readonly (string | null)[]>;
    for (const [entity, keys] of customKeys) {
      custom[entity] = keys === null ? NO_CUSTOM_VALUES : keys.map((key) => (row[key] as string | null | undefined) ?? null);
    }
    return {
      id: row.id, typeId: row.type_id, startTime, endTime, seconds,
      userId: row.user_id, userName: `${row.first_name} ${row.last_name}`, userEmail: row.email,
      projectId: row.project_id, projectName: row.project_name, clientId: row.client_id, clientName: row.client_name,
      taskId: row.task_id, taskName: row.task_name, comment: row.comment, billable, locked: row.locked === 1,
      ratePerHour, revenue: ratePerHour !== null && billable ? revenue(ratePerHour, seconds) : null, custom,
    };
  };
}

function afterCursor(query: EntryQuery, cursor: EntryCursor | undefined, order: EntryOrder): EntryQuery {
  if (cursor === undefined) return query;
  const comparison = order === 'asc' ? sql`>` : sql`<`;
  return query.where(sql<boolean>`(e.start_time, e.id) ${comparison} (${cursor.startTime}, ${cursor.id})`);
}

export interface EntryPageOptions {
  /** At most this many rows (1..1000). */
  readonly limit: number;
  /** Continue after this entry (the `next` of the page before). */
  readonly after?: EntryCursor;
  /** By StartTime, then ID (default asc). */
  readonly order?: EntryOrder;
}

export interface EntryPage {
  readonly rows: readonly EntryRow[];
  /** Where the next page starts; null when this was the last. */
  readonly next: EntryCursor | null;
}

/** One page of entries, for a list in the web interface. */
export async function listEntries(database: ReportDatabase, scope: ReportScope, filter: EntryFilter, account: ReportAccount,
  options: EntryPageOptions): Promise<EntryPage> {
  return readPage(database, scope, filter, account, { ...options, limit: Math.min(1000, Math.max(1, Math.trunc(options.limit))) });
}

async function readPage(database: ReportDatabase, scope: ReportScope, filter: EntryFilter, account: ReportAccount,
  options: EntryPageOptions & { readonly reader?: (row: SelectedRow) => EntryRow }): Promise<EntryPage> {
  const { limit } = options;
  const order = options.order ?? 'asc';
  const query = afterCursor(scopedEntries(database, scope, filter, account), options.after, order);
  const rows = await selectRow(query, account).orderBy('e.start_time', order).orderBy('e.id', order).limit(limit + 1).execute();
  const read = options.reader ?? rowReader(account);
  const page = rows.slice(0, limit).map((row) => read(row as SelectedRow));
  const last = page.at(-1);
  return { rows: page, next: rows.length > limit && last !== undefined ? { startTime: last.startTime, id: last.id } : null };
}

/** How many entries the filter matches (for a progress bar or a page count). */
export async function countEntries(database: ReportDatabase, scope: ReportScope, filter: EntryFilter, account: ReportAccount): Promise<number> {
  const row = await scopedEntries(database, scope, filter, account)
    .select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Every matching entry, oldest first, read in keyset batches of `batchSize`: memory holds one
 * batch, and other statements (another request on the same SQLite connection) run between them.
 * 500 rather than 2000: a batch lives through several young-generation collections, and with
 * 2000 V8 grew its heap so that `timegate export` peaked 35 to 40 MB higher (100,000 entries),
 * in no less time.
 */
export async function* iterateEntries(database: ReportDatabase, scope: ReportScope, filter: EntryFilter, account: ReportAccount,
  batchSize = 500): AsyncGenerator<EntryRow> {
  let after: EntryCursor | undefined;
  const reader = rowReader(account);
  for (;;) {
    const page = await readPage(database, scope, filter, account, { reader, limit: Math.max(1, Math.trunc(batchSize)), order: 'asc', ...(after === undefined ? {} : { after }) });
    yield* page.rows;
    if (page.next === null) return;
    after = page.next;
  }
}

/** A cursor as text for a URL (`<startTime>.<id>`), and back; undefined for text that is not one. */
export function cursorText(cursor: EntryCursor): string {
  return `${cursor.startTime}.${cursor.id}`;
}

export function parseCursor(text: string | undefined): EntryCursor | undefined {
  const match = text === undefined ? null : /^(-?\d{1,16})\.(\d{1,10})$/.exec(text);
  return match === null ? undefined : { startTime: Number(match[1]), id: Number(match[2]) };
}
