// Reports (service/reports): hours and revenue by project, client, employee and task, per week,
// per month or in total, equal to the entries to the second and to the cent. Checked against sums
// the database computes directly on a seeded year of 20,000 entries, on SQLite and PostgreSQL;
// scoped so that a standard user sees only their own entries and nobody another account's.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../service/accounts/account-admin.js';
import { insertCatalogue } from '../../service/accounts/demo-seed.js';
import { wallClockZone } from '../../odata/wall-clock.js';
import { countEntries, iterateEntries, listEntries } from '../../service/reports/entry-query.js';
import type { EntryCursor, EntryRow } from '../../service/reports/entry-query.js';
import { buildReport, REPORT_GROUPS, REPORT_PERIODS } from '../../service/reports/report-query.js';
import type { Report, ReportGroup } from '../../service/reports/report-query.js';
import { ReportError, loadReportAccount, parseEntryFilter, scopeOf, wholeAccount } from '../../service/reports/report-scope.js';
import type { EntryFilter, ReportAccount } from '../../service/reports/report-scope.js';
import type { DatabaseHandle } from '../../service/storage/database.js';
import type { Database } from '../../service/storage/schema.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';
import { revenueCents, seedDemoYear, seedSecondAccount } from '../helpers/reports.js';
import type { DemoUserIds } from '../helpers/reports.js';

const NOW = Date.UTC(2026, 10, 20, 15, 0, 0);
const ENTRIES = 20_000;
const BERLIN = wallClockZone('Europe/Berlin');

/** What the database says directly: entries, milliseconds, billable milliseconds. */
async function directSums(db: Kysely<Database>, accountId: number, where = sql`1 = 1`) {
  const row = await sql<{ n: number | string; ms: number | string | null; billable_ms: number | string | null }>`
    select count(*) as n, sum(e.end_time - e.start_time) as ms,
           sum(case when e.billable = 1 then e.end_time - e.start_time else 0 end) as billable_ms
    from time_entries e join projects p on p.id = e.project_id
    where e.account_id = ${accountId} and e.end_time is not null and ${where}`.execute(db);
  const sums = row.rows[0];
  return { entries: Number(sums?.n), seconds: Number(sums?.ms ?? 0) / 1000, billableSeconds: Number(sums?.billable_ms ?? 0) / 1000 };
}

/** Revenue by the API's own rule (RevenueTotal of each entry), summed in cents. */
async function directRevenueCents(db: Kysely<Database>, accountId: number, where = sql`1 = 1`): Promise<number> {
  const rows = await sql<{ start_time: number; end_time: number; billable: number; hourly_rate: string | number | null }>`
    select e.start_time, e.end_time, e.billable, p.hourly_rate from time_entries e join projects p on p.id = e.project_id
    where e.account_id = ${accountId} and e.end_time is not null and ${where}`.execute(db);
  return rows.rows.reduce((cents, row) => cents + revenueCents(row, Math.floor((Number(row.end_time) - Number(row.start_time)) / 1000)), 0);
}

const cents = (text: string | null) => Math.round(Number(text) * 100);

async function collect(rows: AsyncIterable<EntryRow>): Promise<EntryRow[]> {
  const all: EntryRow[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

describe.each(testDatabases)('reports on $name', (kind) => {
  let place: TestDatabasePlace;
  let database: DatabaseHandle;
  let db: Kysely<Database>;
  let accountId: number;
  let account: ReportAccount;
  let userIds: DemoUserIds;
  let otherAccountId: number;

  beforeAll(async () => {
    place = await kind.create();
    database = await place.open();
    db = database.db;
    ({ accountId, users: userIds } = await seedDemoYear(db, NOW, ENTRIES));
    const { jana } = userIds;
    // An entry of 20 min 34.9 s: whole seconds are counted per entry, as DurationSeconds is.
    const project = await db.selectFrom('projects').select('id').where('account_id', '=', accountId).where('name', '=', 'Kundenportal').executeTakeFirstOrThrow();
    await db.insertInto('time_entries').values({
      account_id: accountId, type_id: 2, user_id: jana, project_id: project.id, task_id: null, start_time: NOW - 86_400_000,
      end_time: NOW - 86_400_000 + 1_234_900, billable: 1, locked: 0, last_change_time: NOW, last_change_author: jana,
    }).execute();
    account = await loadReportAccount(db, accountId);

    otherAccountId = await seedSecondAccount(db, NOW, 500);
  }, 120_000);
  afterAll(() => place?.dispose());

  const report = (group: ReportGroup, period: Report['period'], filter: EntryFilter = {}, scope = wholeAccount(accountId)) =>
    buildReport(database, scope, filter, account, { groupBy: group, period });

  it('totals every grouping and period to the second and the cent, equal to the database\'s own sums over the year', async () => {
    const direct = await directSums(db, accountId);
    // Seeded entries are whole minutes; the one of 1234.9 s counts 1234 s.
    const expectedSeconds = direct.seconds - 0.9;
    const expectedCents = await directRevenueCents(db, accountId);
    expect(direct.entries).toBeGreaterThan(ENTRIES);
    for (const group of REPORT_GROUPS) {
      for (const period of REPORT_PERIODS) {
        const result = await report(group, period);
        expect(result.total, `${group} ${period}`).toEqual({
          entries: direct.entries,
          seconds: expectedSeconds,
          billableSeconds: direct.billableSeconds - 0.9,
          nonBillableSeconds: direct.seconds - direct.billableSeconds,
          revenue: (expectedCents / 100).toFixed(2),
        });
        expect(result.lines.reduce((sum, line) => sum + line.seconds, 0)).toBe(expectedSeconds);
        expect(result.lines.reduce((sum, line) => sum + cents(line.revenue), 0)).toBe(expectedCents);
        for (const line of result.lines) expect(line.billableSeconds + line.nonBillableSeconds).toBe(line.seconds);
      }
    }
  });

  it('gives each project, employee, task and client the hours the database sums for it', async () => {
    const column: Record<ReportGroup, string> = { project: 'e.project_id', employee: 'e.user_id', task: 'e.task_id', client: 'p.client_id' };
    for (const group of REPORT_GROUPS) {
      const result = await report(group, 'total');
      const direct = await sql<{ key: number | null; ms: number | string }>`
        select ${sql.raw(column[group])} as key, sum(e.end_time - e.start_time) as ms
        from time_entries e join projects p on p.id = e.project_id
        where e.account_id = ${accountId} and e.end_time is not null
        group by ${sql.raw(column[group])}`.execute(db);
      expect(result.lines.map((line) => line.key).sort(), group)
        .toEqual(direct.rows.map((row) => (row.key === null ? null : Number(row.key))).sort());
      for (const row of direct.rows) {
        const line = result.lines.find((candidate) => candidate.key === (row.key === null ? null : Number(row.key)));
        // Whole minutes but for one entry of 1234.9 s, whose 0.9 s are not counted.
        expect(line?.seconds, `${group} ${row.key}`).toBe(Math.floor(Number(row.ms) / 1000));
      }
    }
    const byProject = await report('project', 'total');
    expect(byProject.lines.map((line) => line.label)).toContain('Website-Relaunch');
    expect(byProject.lines.every((line, i, all) => i === 0 || (all[i - 1]?.label ?? '').localeCompare(line.label) <= 0)).toBe(true);
    const byClient = await report('client', 'total');
    expect(byClient.lines.find((line) => line.key === null)?.label).toBe('');
  });

  it('counts a month and a week from midnight to midnight on the account\'s wall clock', async () => {
    const monthStart = BERLIN.toInstant(Date.UTC(2026, 2, 1));
    const monthEnd = BERLIN.toInstant(Date.UTC(2026, 3, 1));
    const march = await directSums(db, accountId, sql`e.start_time >= ${monthStart} and e.start_time < ${monthEnd}`);
    const byMonth = await report('employee', 'month');
    const marchLines = byMonth.lines.filter((line) => line.period === '2026-03');
    expect(marchLines.reduce((sum, line) => sum + line.seconds, 0)).toBe(march.seconds);
    expect(marchLines.reduce((sum, line) => sum + line.entries, 0)).toBe(march.entries);
    const filtered = await report('employee', 'total', { from: '2026-03-01', to: '2026-03-31' });
    expect(filtered.total.seconds).toBe(march.seconds);

    const weekStart = BERLIN.toInstant(Date.UTC(2026, 2, 23));
    const week = await directSums(db, accountId, sql`e.start_time >= ${weekStart} and e.start_time < ${weekStart + 7 * 86_400_000}`);
    const byWeek = await report('task', 'week');
    expect(byWeek.lines.filter((line) => line.period === '2026-03-23').reduce((sum, line) => sum + line.seconds, 0)).toBe(week.seconds);
    expect(new Set(byWeek.lines.map((line) => new Date(`${line.period}T00:00:00Z`).getUTCDay()))).toEqual(new Set([1]));
  });

  it('puts an entry at 00:30 in Berlin on the 1st into the new month, and Sunday into the week of its Monday', async () => {
    const zoned = await createAccount(db, { name: 'Zonen AG', adminEmail: 'zeit@zonen.example', timeZone: 'Europe/Berlin' });
    const catalogue = await insertCatalogue(db, zoned.accountId, zoned.userId, zoned.userId, NOW);
    const projectId = (catalogue.projects[0] as { id: number }).id;
    const at = (iso: string, minutes: number) => ({
      account_id: zoned.accountId, type_id: 2, user_id: zoned.userId, project_id: projectId, task_id: null,
      start_time: Date.parse(iso), end_time: Date.parse(iso) + minutes * 60_000, billable: 1 as const, locked: 0 as const,
      last_change_time: NOW, last_change_author: zoned.userId,
    });
    await db.insertInto('time_entries').values([
      at('2026-01-31T22:30:00Z', 10), // Sat 31 Jan, 23:30 in Berlin
      at('2026-01-31T23:30:00Z', 20), // Sun 1 Feb, 00:30 in Berlin
      at('2026-02-01T23:30:00Z', 40), // Mon 2 Feb, 00:30 in Berlin
    ]).execute();
    const zonedAccount = await loadReportAccount(db, zoned.accountId);
    const run = (period: Report['period'], filter: EntryFilter = {}) =>
      buildReport(database, wholeAccount(zoned.accountId), filter, zonedAccount, { groupBy: 'project', period });
    expect((await run('month')).lines.map((line) => [line.period, line.seconds])).toEqual([['2026-01', 600], ['2026-02', 3600]]);
    expect((await run('week')).lines.map((line) => [line.period, line.seconds])).toEqual([['2026-01-26', 1800], ['2026-02-02', 2400]]);
    expect((await run('total', { to: '2026-01-31' })).total.seconds).toBe(600);
    expect((await run('total', { from: '2026-02-01', to: '2026-02-01' })).total.seconds).toBe(1200);
  });

  it('shows a standard user only their own entries, whatever they filter by', async () => {
    const jana = scopeOf({ accountId, userId: userIds.jana, isAdmin: false });
    const direct = await directSums(db, accountId, sql`e.user_id = ${userIds.jana}`);
    const own = await report('employee', 'total', {}, jana);
    expect(own.lines.map((line) => line.key)).toEqual([userIds.jana]);
    expect(own.total.entries).toBe(direct.entries);
    expect((await report('project', 'month', { userId: userIds.tom }, jana)).total.entries).toBe(0);
    const rows = await collect(iterateEntries(database, jana, {}, account, 500));
    expect(rows).toHaveLength(direct.entries);
    expect(new Set(rows.map((row) => row.userId))).toEqual(new Set([userIds.jana]));
    const adminScope = scopeOf({ accountId, userId: userIds.jana, isAdmin: true });
    expect((await countEntries(database, adminScope, {}, account))).toBe((await directSums(db, accountId)).entries);
  });

  it('never reads another account\'s rows, even with its IDs in the filter', async () => {
    const otherUser = await db.selectFrom('users').select('id').where('account_id', '=', otherAccountId).executeTakeFirstOrThrow();
    const otherProject = await db.selectFrom('projects').select('id').where('account_id', '=', otherAccountId).executeTakeFirstOrThrow();
    const scope = wholeAccount(accountId);
    expect(await countEntries(database, scope, { userId: otherUser.id }, account)).toBe(0);
    expect(await countEntries(database, scope, { projectId: otherProject.id }, account)).toBe(0);
    const otherIds = new Set((await db.selectFrom('time_entries').select('id').where('account_id', '=', otherAccountId).execute()).map((row) => row.id));
    expect(otherIds.size).toBe(500);
    for await (const row of iterateEntries(database, scope, {}, account, 5000)) expect(otherIds.has(row.id)).toBe(false);
    // The account's settings must be the scope's: a page cannot mix one account's labels with another's rows.
    const otherAccount = await loadReportAccount(db, otherAccountId);
    await expect(countEntries(database, scope, {}, otherAccount)).rejects.toThrow(/not the scope/);
  });

  it('filters by date range, employee, project, client, task and billable as the database counts them', async () => {
    const some = await db.selectFrom('time_entries as e').innerJoin('projects as p', 'p.id', 'e.project_id')
      .select(['e.user_id', 'e.project_id', 'e.task_id', 'p.client_id']).where('e.account_id', '=', accountId)
      .where('e.task_id', 'is not', null).where('p.client_id', 'is not', null).orderBy('e.id').executeTakeFirstOrThrow();
    const from = BERLIN.toInstant(Date.UTC(2026, 4, 1));
    const to = BERLIN.toInstant(Date.UTC(2026, 6, 1));
    const cases: Array<[EntryFilter, ReturnType<typeof sql>]> = [
      [{ from: '2026-05-01', to: '2026-06-30' }, sql`e.start_time >= ${from} and e.start_time < ${to}`],
      [{ userId: some.user_id }, sql`e.user_id = ${some.user_id}`],
      [{ projectId: some.project_id }, sql`e.project_id = ${some.project_id}`],
      [{ clientId: some.client_id as number }, sql`p.client_id = ${some.client_id}`],
      [{ taskId: some.task_id as number }, sql`e.task_id = ${some.task_id}`],
      [{ billable: false }, sql`e.billable = 0`],
      [{ billable: true, from: '2026-05-01', to: '2026-06-30', clientId: some.client_id as number },
        sql`e.billable = 1 and e.start_time >= ${from} and e.start_time < ${to} and p.client_id = ${some.client_id}`],
    ];
    for (const [filter, where] of cases) {
      const direct = await directSums(db, accountId, where);
      expect(direct.entries, JSON.stringify(filter)).toBeGreaterThan(0);
      expect(await countEntries(database, wholeAccount(accountId), filter, account), JSON.stringify(filter)).toBe(direct.entries);
      const result = await report('project', 'total', filter);
      expect(result.total.entries).toBe(direct.entries);
      expect(result.total.revenue).toBe((await directRevenueCents(db, accountId, where) / 100).toFixed(2));
    }
  });

  it('pages the list by keyset, newest first, without gaps or repeats, and leaves out a running stopwatch', async () => {
    const filter = { from: '2026-10-01' };
    const seen = new Set<number>();
    let after: EntryCursor | undefined;
    let previous = Number.POSITIVE_INFINITY;
    for (;;) {
      const page = await listEntries(database, wholeAccount(accountId), filter, account, { limit: 700, order: 'desc', ...(after ? { after } : {}) });
      for (const row of page.rows) {
        expect(seen.has(row.id)).toBe(false);
        expect(row.startTime).toBeLessThanOrEqual(previous);
        previous = row.startTime;
        seen.add(row.id);
      }
      if (page.next === null) break;
      after = page.next;
    }
    expect(seen.size).toBe(await countEntries(database, wholeAccount(accountId), filter, account));
    const running = await db.selectFrom('time_entries').select('id').where('account_id', '=', accountId).where('end_time', 'is', null).executeTakeFirstOrThrow();
    expect(seen.has(running.id)).toBe(false);
  });

  it('shows no revenue when the account has hourly rates off', async () => {
    await db.updateTable('account_settings').set({ hourly_rates_enabled: 0 }).where('account_id', '=', otherAccountId).execute();
    const off = await loadReportAccount(db, otherAccountId);
    const result = await buildReport(database, wholeAccount(otherAccountId), {}, off, { groupBy: 'client', period: 'month' });
    expect(result.total.entries).toBe(500);
    expect(result.total.revenue).toBeNull();
    expect(result.lines.every((line) => line.revenue === null)).toBe(true);
    const rows = await collect(iterateEntries(database, wholeAccount(otherAccountId), {}, off));
    expect(rows.every((row) => row.ratePerHour === null && row.revenue === null)).toBe(true);
  });

  it('refuses an unknown account and a malformed filter with a ReportError naming the field', async () => {
    await expect(loadReportAccount(db, 987_654)).rejects.toMatchObject({ code: 'account-not-found', message: 'no account 987654' });
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ from: '2026-02-30' }, /from must be a date YYYY-MM-DD, not '2026-02-30'/],
      [{ to: '1.3.2026' }, /to must be a date/],
      [{ from: '2026-03-02', to: '2026-03-01' }, /from \(2026-03-02\) is after to \(2026-03-01\)/],
      [{ projectId: '7; drop table' }, /projectId must be a positive whole number/],
      [{ userId: '0' }, /userId must be a positive whole number/],
      [{ billable: 'maybe' }, /billable must be true or false/],
    ];
    for (const [text, message] of bad) {
      expect(() => parseEntryFilter(text)).toThrow(ReportError);
      expect(() => parseEntryFilter(text)).toThrow(message);
    }
    expect(parseEntryFilter({ from: '2026-01-01', to: '', projectId: ' 7 ', billable: 'false' })).toEqual({ from: '2026-01-01', projectId: 7, billable: false });
  });
});
