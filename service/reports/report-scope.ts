// What every report and export reads before it touches a time entry: whose rows it may see
// (the scope), which of them the caller asked for (the filter, checked here once for the CLI and
// the web pages alike) and the account's settings (zone, rates, custom-field labels).
//
// The scope is the one rule of visibility for reports and exports, as data-model.md states it
// for the API: an administrator sees the whole account, a standard user only their own entries,
// and nobody another account's rows. The query builders (entry-query.ts, report-query.ts) apply it
// to every statement; nothing else decides it.
import type { Kysely } from 'kysely';
import { isInEdmCalendar } from '../../odata/datetime.js';
import { isTimeZone, wallClockZone } from '../../odata/wall-clock.js';
import type { WallClockZone } from '../../odata/wall-clock.js';
import type { DatabaseHandle } from '../storage/database.js';
import type { Database } from '../storage/schema.js';

/** The formats an export is written in (export-entries.ts), as a caller may ask for them. */
export type ExportFormat = 'csv' | 'xlsx';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'xlsx'];

/** What the report and export functions need of an open database. */
export type ReportDatabase = Pick<DatabaseHandle, 'db' | 'dialect'>;

export type ReportErrorCode = 'invalid-input' | 'account-not-found';

/** A report or export that cannot run as asked; `code` is stable for the CLI, pages and tests. */
export class ReportError extends Error {
  override readonly name = 'ReportError';
  constructor(readonly code: ReportErrorCode, message: string) {
    super(message);
  }
}

/** Whose rows a report or export may read. */
export interface ReportScope {
  readonly accountId: number;
  /** Only this user's entries (a standard user); null = the whole account (an administrator, the operator's CLI). */
  readonly onlyUserId: number | null;
}

/** The scope of a signed-in caller (a `Caller` of the time-tracking rules fits). */
export function scopeOf(caller: { readonly accountId: number; readonly userId: number; readonly isAdmin: boolean }): ReportScope {
  return { accountId: caller.accountId, onlyUserId: caller.isAdmin ? null : caller.userId };
}

/** The whole account, for the operator's `timegate export`. */
export function wholeAccount(accountId: number): ReportScope {
  return { accountId, onlyUserId: null };
}

/** Which entries, within the scope. Every field is optional; dates are the account's calendar days. */
export interface EntryFilter {
  /** First day, `YYYY-MM-DD` on the account's wall clock (inclusive). */
  readonly from?: string;
  /** Last day, `YYYY-MM-DD` (inclusive). */
  readonly to?: string;
  readonly userId?: number;
  readonly projectId?: number;
  readonly clientId?: number;
  readonly taskId?: number;
  readonly billable?: boolean;
}

/** A filter as text (form fields, command-line flags); empty strings count as absent. */
export type EntryFilterText = Partial<Record<'from' | 'to' | 'userId' | 'projectId' | 'clientId' | 'taskId' | 'billable', string | undefined>>;

const MAX_ID = 2_147_483_647;

/** Checks a filter given as text; a ReportError('invalid-input') names the first bad field. */
export function parseEntryFilter(text: EntryFilterText): EntryFilter {
  const present = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());
  const filter: { -readonly [K in keyof EntryFilter]: EntryFilter[K] } = {};
  const from = present(text.from);
  const to = present(text.to);
  if (from !== undefined) filter.from = checkDay('from', from);
  if (to !== undefined) filter.to = checkDay('to', to);
  if (filter.from !== undefined && filter.to !== undefined && filter.from > filter.to) {
    throw new ReportError('invalid-input', `from (${filter.from}) is after to (${filter.to})`);
  }
  for (const field of ['userId', 'projectId', 'clientId', 'taskId'] as const) {
    const value = present(text[field]);
    if (value === undefined) continue;
    if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > MAX_ID) {
      throw new ReportError('invalid-input', `${field} must be a positive whole number, not '${value}'`);
    }
    filter[field] = Number(value);
  }
  const billable = present(text.billable);
  if (billable !== undefined) {
    if (!/^(true|false|yes|no|1|0)$/i.test(billable)) throw new ReportError('invalid-input', `billable must be true or false, not '${billable}'`);
    filter.billable = /^(true|yes|1)$/i.test(billable);
  }
  return filter;
}

/** A calendar day `YYYY-MM-DD` that exists (2026-02-30 does not). */
export function checkDay(field: string, value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  // Not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  if (match !== null) date.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (match === null || !isInEdmCalendar(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw new ReportError('invalid-input', `${field} must be a date YYYY-MM-DD, not '${value}'`);
  }
  return value;
}

/** The five labels of one entity type's Custom1..Custom5; null where the account set none. */
export type CustomLabels = readonly [string | null, string | null, string | null, string | null, string | null];

export type CustomEntity = 'timeEntry' | 'project' | 'client' | 'task' | 'user';

/** The account settings a report or export uses. */
export interface ReportAccount {
  readonly accountId: number;
  readonly companyName: string;
  /** IANA zone: days, weeks, months and the times in exports are on its wall clock. */
  readonly timeZone: string;
  readonly currency: string;
  /** Revenue is shown only when the account has hourly rates on (as RevenueTotal in the API). */
  readonly hourlyRatesEnabled: boolean;
  readonly customLabels: Readonly<Record<CustomEntity, CustomLabels>>;
}

const LABEL_PREFIX: Readonly<Record<CustomEntity, string>> = {
  timeEntry: 'time_entry', project: 'project', client: 'client', task: 'task', user: 'user',
};

/** The account's settings; ReportError('account-not-found') when there is no such account. */
export async function loadReportAccount(db: Kysely<Database>, accountId: number): Promise<ReportAccount> {
  if (!Number.isSafeInteger(accountId) || accountId < 1) throw new ReportError('invalid-input', `account must be a positive whole number, not '${accountId}'`);
  const row = await db.selectFrom('account_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  if (row === undefined) throw new ReportError('account-not-found', `no account ${accountId}`);
  const labels = (entity: CustomEntity): CustomLabels => {
    const record = row as unknown as Record<string, string | null>;
    const label = (n: number) => record[`${LABEL_PREFIX[entity]}_custom${n}_label`]?.trim() || null;
    return [label(1), label(2), label(3), label(4), label(5)];
  };
  return {
    accountId,
    companyName: row.company_name,
    // A zone set outside the admin commands that the runtime does not know reads as UTC, as in the API.
    timeZone: isTimeZone(row.time_zone) ? row.time_zone : 'UTC',
    currency: row.currency,
    hourlyRatesEnabled: row.hourly_rates_enabled === 1,
    customLabels: { timeEntry: labels('timeEntry'), project: labels('project'), client: labels('client'), task: labels('task'), user: labels('user') },
  };
}

const DAY_MS = 86_400_000;

/** The instants [start, end) of the filter's days on the account's wall clock; undefined ends are open. */
export function instantRange(filter: EntryFilter, zone: WallClockZone): { readonly startMs?: number; readonly endMs?: number } {
  const midnight = (day: string) => zone.toInstant(Date.parse(`${day}T00:00:00Z`));
  return {
    ...(filter.from === undefined ? {} : { startMs: midnight(filter.from) }),
    // The day after, as milliseconds: after 9999-12-31 there is no `YYYY-MM-DD` to write.
    ...(filter.to === undefined ? {} : { endMs: zone.toInstant(Date.parse(`${filter.to}T00:00:00Z`) + DAY_MS) }),
  };
}

export function zoneOf(account: ReportAccount): WallClockZone {
  return wallClockZone(account.timeZone);
}
