// The hours-and-revenue report: the filtered entries (entry-query.ts) summed by project, client,
// employee or task, per week, per month or over the whole range, billable against non-billable.
//
// Exact by construction: the database sums whole seconds and whole cents per entry (each entry's
// revenue rounded to the cent as RevenueTotal is, so the report equals the sum of the exported
// entries), and totals are sums of those integers, never of rounded hours. The database groups
// by the calendar day on the account's wall clock; days are folded into weeks (Monday to
// Sunday) and months here, a few hundred groups at most, whatever the number of entries.
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import { entrySecondsSql, revenueCentsSql, scopedEntries } from './entry-query.js';
import type { EntryFilter, ReportAccount, ReportDatabase, ReportScope } from './report-scope.js';

export type ReportGroup = 'project' | 'client' | 'employee' | 'task';
export type ReportPeriod = 'week' | 'month' | 'total';

export const REPORT_GROUPS: readonly ReportGroup[] = ['project', 'client', 'employee', 'task'];
export const REPORT_PERIODS: readonly ReportPeriod[] = ['week', 'month', 'total'];

export interface ReportOptions {
  readonly groupBy: ReportGroup;
  readonly period: ReportPeriod;
}

/** Sums of some entries. */
export interface ReportSums {
  readonly entries: number;
  readonly seconds: number;
  readonly billableSeconds: number;
  readonly nonBillableSeconds: number;
  /** Revenue of the billable entries, `1234.50` in the account's currency; null when rates are off. */
  readonly revenue: string | null;
}

export interface ReportLine extends ReportSums {
  /** The project, client, user or task ID; null for entries without a client or task. */
  readonly key: number | null;
  /** Its name; '' for entries without a client or task (the page or file says so in its language). */
  readonly label: string;
  /** Week: its Monday `YYYY-MM-DD`; month: `YYYY-MM`; null for the whole range. */
  readonly period: string | null;
}

export interface Report extends ReportOptions {
  readonly currency: string;
  readonly hourlyRatesEnabled: boolean;
  /** By period, then label, then key. */
  readonly lines: readonly ReportLine[];
  readonly total: ReportSums;
}

interface GroupSql {
  readonly key: RawBuilder<number | null>;
  readonly label: RawBuilder<string | null>;
}

const GROUP_SQL: Readonly<Record<ReportGroup, GroupSql>> = {
  project: { key: sql`e.project_id`, label: sql`p.name` },
  client: { key: sql`p.client_id`, label: sql`c.name` },
  employee: { key: sql`e.user_id`, label: sql`u.first_name || ' ' || u.last_name` },
  task: { key: sql`e.task_id`, label: sql`t.description` },
};

interface GroupRow {
  key: number | null;
  label: string | null;
  year: number | null;
  month: number | null;
  day: number | null;
  billable: number;
  entries: number | string;
  seconds: number | string;
  revenue_cents: number | string;
}

export async function buildReport(database: ReportDatabase, scope: ReportScope, filter: EntryFilter, account: ReportAccount,
  options: ReportOptions): Promise<Report> {
  const group = GROUP_SQL[options.groupBy];
  const byDay = options.period !== 'total';
  const part = (name: 'year' | 'month' | 'day') => (byDay
    ? database.dialect.sql.datePart(name, sql`e.start_time`, account.timeZone)
    : sql`null`);
  // Computed in a subquery and grouped by name outside: PostgreSQL would not match a grouped
  // expression holding a parameter (the zone) with the same expression in the select list.
  const perEntry = scopedEntries(database, scope, filter, account).select('e.billable').select([
    group.key.as('key'), group.label.as('label'), part('year').as('year'), part('month').as('month'), part('day').as('day'),
    entrySecondsSql().as('seconds'), revenueCentsSql().as('revenue_cents'),
  ]);
  const rows = await database.db.selectFrom(perEntry.as('x'))
    .select((eb) => ['x.key', 'x.label', 'x.year', 'x.month', 'x.day', 'x.billable',
      eb.fn.countAll().as('entries'), eb.fn.sum('x.seconds').as('seconds'), eb.fn.sum('x.revenue_cents').as('revenue_cents')])
    .groupBy(['x.key', 'x.label', 'x.year', 'x.month', 'x.day', 'x.billable'])
    .execute() as GroupRow[];

  const lines = new Map<string, MutableSums & { key: number | null; label: string; period: string | null }>();
  const total = emptySums();
  for (const row of rows) {
    const period = options.period === 'total' ? null : periodOf(options.period, Number(row.year), Number(row.month), Number(row.day));
    const id = `${period ?? ''}\u0000${row.key ?? ''}\u0000${row.label ?? ''}`;
    let line = lines.get(id);
    if (line === undefined) {
      line = { key: row.key === null ? null : Number(row.key), label: row.label ?? '', period, ...emptySums() };
      lines.set(id, line);
    }
    add(line, row);
    add(total, row);
  }
  const rates = account.hourlyRatesEnabled;
  return {
    groupBy: options.groupBy,
    period: options.period,
    currency: account.currency,
    hourlyRatesEnabled: rates,
    lines: [...lines.values()]
      .sort((a, b) => (a.period ?? '').localeCompare(b.period ?? '') || a.label.localeCompare(b.label) || (a.key ?? 0) - (b.key ?? 0))
      .map(({ key, label, period, ...sums }) => ({ key, label, period, ...finish(sums, rates) })),
    total: finish(total, rates),
  };
}

interface MutableSums {
  entries: number;
  seconds: number;
  billableSeconds: number;
  revenueCents: number;
}

function emptySums(): MutableSums {
  return { entries: 0, seconds: 0, billableSeconds: 0, revenueCents: 0 };
}

function add(sums: MutableSums, row: GroupRow): void {
  const seconds = Number(row.seconds);
  sums.entries += Number(row.entries);
  sums.seconds += seconds;
  if (row.billable === 1 || Number(row.billable) === 1) sums.billableSeconds += seconds;
  sums.revenueCents += Number(row.revenue_cents);
}

function finish(sums: MutableSums, rates: boolean): ReportSums {
  return {
    entries: sums.entries,
    seconds: sums.seconds,
    billableSeconds: sums.billableSeconds,
    nonBillableSeconds: sums.seconds - sums.billableSeconds,
    revenue: rates ? centsText(sums.revenueCents) : null,
  };
}

/** Whole cents as a decimal text with two places (`123456` -> `1234.56`). */
export function centsText(cents: number): string {
  const digits = String(Math.abs(cents)).padStart(3, '0');
  return `${cents < 0 ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

const DAY_MS = 86_400_000;

/** The week (its Monday) or month of a calendar day. */
export function periodOf(period: 'week' | 'month', year: number, month: number, day: number): string {
  if (period === 'month') return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
  // Not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  const date = new Date(0).setUTCFullYear(year, month - 1, day);
  const sinceMonday = (new Date(date).getUTCDay() + 6) % 7;
  return new Date(date - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

/** Decimal hours of whole seconds, for display (`5400` -> `1.50`); the sums stay in seconds. */
export function hoursText(seconds: number, places = 2): string {
  return (seconds / 3600).toFixed(places);
}
