// What the report suites (reports-totals, reports-export, web-reports, web-report-table) share:
// reading a CSV as a spreadsheet user's tools read it, the total a report page states, the
// database's own sums of the finished entries with revenue by the API's rule (RevenueTotal of
// each entry, in cents), and the seeded accounts (the demo account with a year of entries, a
// second account beside it whose rows no report may show).
import { parse } from 'csv-parse/sync';
import type { Kysely } from 'kysely';
import { createAccount } from '../../service/accounts/account-admin.js';
import { insertCatalogue, seedDemoAccount } from '../../service/accounts/demo-seed.js';
import { seedEntries } from '../../service/storage/bulk-seed.js';
import type { Database } from '../../service/storage/schema.js';
import { revenue } from '../../service/timetracking/sets/time-entries.js';
import { instantOf } from '../../service/web/clock.js';
import type { TestService } from './service.js';

/** A CSV file's rows (the header first), the BOM dropped, every row as wide as the header. */
export function parseCsv(bytes: Buffer, delimiter: string): string[][] {
  return parse(bytes.toString('utf8'), { delimiter, bom: true, relax_column_count: false }) as string[][];
}

/** The report's total seconds as the page states them (`data-total="seconds"`). */
export function pageTotalSeconds(page: string): number {
  return Number(/data-total="seconds" data-seconds="(\d+)"/.exec(page)?.[1]);
}

/** An entry's revenue in cents by RevenueTotal's rule: none unless billable on a project with a rate. */
export function revenueCents(entry: { billable: number; hourly_rate: number | string | null }, seconds: number): number {
  if (entry.billable !== 1 || entry.hourly_rate === null) return 0;
  return Math.round(Number(revenue(Number(entry.hourly_rate).toFixed(2), seconds)) * 100);
}

export interface EntrySums {
  readonly entries: number;
  readonly seconds: number;
  readonly billable: number;
  readonly cents: number;
}

/**
 * The database's own sums of the test service's finished entries starting in [from, until)
 * (dates at midnight UTC, the suites' zone), of one user or all: whole seconds per entry, as
 * DurationSeconds counts them.
 */
export async function finishedEntrySums(t: TestService, from: string, until: string, userId?: number): Promise<EntrySums> {
  const rows = await t.database.db.selectFrom('time_entries as e').innerJoin('projects as p', 'p.id', 'e.project_id')
    .select(['e.start_time', 'e.end_time', 'e.billable', 'p.hourly_rate'])
    .where('e.account_id', '=', t.accountId).where('e.end_time', 'is not', null)
    .where('e.start_time', '>=', instantOf(from, 0, 'UTC')).where('e.start_time', '<', instantOf(until, 0, 'UTC'))
    .$if(userId !== undefined, (q) => q.where('e.user_id', '=', userId as number)).execute();
  const sums = { entries: rows.length, seconds: 0, billable: 0, cents: 0 };
  for (const row of rows) {
    const seconds = Math.floor((Number(row.end_time) - Number(row.start_time)) / 1000);
    sums.seconds += seconds;
    if (row.billable === 1) sums.billable += seconds;
    sums.cents += revenueCents(row, seconds);
  }
  return sums;
}

export interface DemoUserIds {
  readonly admin: number;
  readonly jana: number;
  readonly tom: number;
}

/** The demo account with `entries` more entries over the year before `now`; its users' IDs. */
export async function seedDemoYear(db: Kysely<Database>, now: number, entries: number): Promise<{ accountId: number; users: DemoUserIds }> {
  const demo = await seedDemoAccount(db, now);
  if (!demo.created) throw new Error('no demo account');
  const [admin, jana, tom] = demo.users.map((user) => user.userId) as [number, number, number];
  await seedEntries(db, { accountId: demo.accountId, entries, now });
  return { accountId: demo.accountId, users: { admin, jana, tom } };
}

/** A second account ('Zweite GmbH', its own catalogue and `entries` entries); its ID. */
export async function seedSecondAccount(db: Kysely<Database>, now: number, entries: number): Promise<number> {
  const other = await createAccount(db, { name: 'Zweite GmbH', adminEmail: 'chefin@zweite.example', timeZone: 'Europe/Berlin' });
  await insertCatalogue(db, other.accountId, other.userId, other.userId, now);
  await seedEntries(db, { accountId: other.accountId, entries, now });
  return other.accountId;
}
