// The report's own table as a download over real HTTP (/reports/table): the CSV (`;` with a
// decimal comma, `,` with a point, UTF-8 with a BOM) and the XLSX workbook (hours and money as
// numbers) read back to the page's lines and totals, and the totals to the database's own sums;
// a label typed to look like a formula is neutralised in the CSV; a standard user asking for a
// colleague's report gets 404; malformed choices get a page (400/422), never a 500 or a half file.
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { finishedEntrySums, pageTotalSeconds, parseCsv } from '../helpers/reports.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import type { WebClient } from '../helpers/web-client.js';
import { signedInClient } from '../helpers/web-client.js';

const FROM = '2026-11-02';
const TO = '2026-11-15';
const FILTER = `from=${FROM}&to=${TO}`;

/** A line of the page's table or of a file, as text: period, label, billable, non-billable, total hours, revenue. */
type Line = readonly string[];

/** The page's table: its body lines and its totals line (the cells' texts, in order). */
function pageTable(page: string): { lines: Line[]; total: Line } {
  const cells = (row: string) => [...row.matchAll(/<t[dh][^>]*>([^<]*)<\/t[dh]>/g)].map((m) => m[1] as string);
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  const foot = /<tfoot>([\s\S]*?)<\/tfoot>/.exec(page)?.[1] ?? '';
  return { lines: [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => cells(m[1] as string)), total: cells(foot) };
}

describe.each(testDatabases)('the report table download on $name', (kind) => {
  let t: TestService;
  let alex: WebClient;
  let jana: WebClient;

  beforeAll(async () => {
    t = await startTestService(kind);
    alex = await signedInClient(t.origin, t.database, t.admin.userId, t.admin.email);
    jana = await signedInClient(t.origin, t.database, t.jana.userId, t.jana.email);
  }, 60_000);
  afterAll(() => t?.close());

  /** The database's own sums of the finished entries in [FROM, TO]: seconds, billable seconds, revenue in cents (by RevenueTotal's rule). */
  const databaseSums = () => finishedEntrySums(t, FROM, '2026-11-16');

  it('offers the table beside the entries, and its CSV (;) holds the page\'s lines and totals, the database\'s sums', async () => {
    const page = await alex.get(`/reports?${FILTER}&group=employee&period=week`);
    expect(page.text).toContain('<nav class="downloads" aria-label="Die Berichtstabelle herunterladen">');
    expect(page.text).toContain(`href="/reports/table?from=${FROM}&amp;to=${TO}&amp;group=employee&amp;period=week&amp;format=csv&amp;delimiter=%3B" download>Berichtstabelle: CSV (;)</a>`);
    expect(page.text).toContain(`href="/reports/export?from=${FROM}&amp;to=${TO}&amp;format=csv&amp;delimiter=%3B" download>Einträge: CSV (;)</a>`);
    const shown = pageTable(page.text);
    expect(shown.lines.length).toBeGreaterThan(3);

    const file = await alex.download(`/reports/table?${FILTER}&group=employee&period=week&format=csv&delimiter=%3B`);
    expect(file.status).toBe(200);
    expect(file.type).toBe('text/csv; charset=utf-8; header=present');
    expect(file.disposition).toBe(`attachment; filename="bericht-employee-week-${FROM}-${TO}.csv"`);
    expect([...file.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [header, ...rows] = parseCsv(file.bytes, ';');
    expect(header).toEqual(['Woche (Montag)', 'Mitarbeiter/in', 'Abrechenbare Stunden', 'Nicht abrechenbare Stunden', 'Stunden', 'Einträge', 'Umsatz (EUR)']);
    const total = rows.pop() as string[];
    // The page writes the week as `Woche ab 02.11.2026`, the file as the Monday's date; the numbers alike (decimal comma).
    const asPage = (row: string[]) => [`Woche ab ${(row[0] as string).split('-').reverse().join('.')}`, row[1], row[2], row[3], row[4], row[6]];
    expect(rows.map(asPage)).toEqual(shown.lines);
    expect(['', total[1], total[2], total[3], total[4], total[6]]).toEqual(shown.total);

    const sums = await databaseSums();
    expect(total[1]).toBe('Summe');
    expect(total[4]).toBe((sums.seconds / 3600).toFixed(2).replace('.', ','));
    expect(total[2]).toBe((sums.billable / 3600).toFixed(2).replace('.', ','));
    expect(total[6]).toBe((sums.cents / 100).toFixed(2).replace('.', ','));
    expect(sums.cents).toBeGreaterThan(0);
  });

  it('writes the CSV with `,` and a decimal point, in English on an English page', async () => {
    const page = await alex.get(`/reports?${FILTER}&group=project&period=month`);
    const shown = pageTable(page.text);
    const file = await alex.download(`/reports/table?${FILTER}&group=project&period=month&format=csv&delimiter=%2C`);
    const [header, ...rows] = parseCsv(file.bytes, ',');
    expect(header?.slice(0, 2)).toEqual(['Monat', 'Projekt']);
    const total = rows.pop() as string[];
    expect(rows.map((row) => [row[1], ...[row[2], row[3], row[4], row[6]].map((n) => (n as string).replace('.', ','))])).toEqual(shown.lines.map((line) => line.slice(1)));
    expect(total[4]).toBe((pageTotalSeconds(page.text) / 3600).toFixed(2));
    expect(rows.every((row) => row[0] === '2026-11')).toBe(true);

    alex.cookies.set('tg_lang', 'en');
    try {
      const english = await alex.download(`/reports/table?${FILTER}&group=client&period=total&format=csv&delimiter=%2C`);
      expect(english.disposition).toBe(`attachment; filename="report-client-total-${FROM}-${TO}.csv"`);
      const [englishHeader, ...englishRows] = parseCsv(english.bytes, ',');
      expect(englishHeader).toEqual(['Client', 'Billable hours', 'Non-billable hours', 'Hours', 'Entries', 'Revenue (EUR)']);
      expect(englishRows.at(-1)?.[0]).toBe('Total');
      expect(englishRows.at(-1)?.[3]).toBe(((await databaseSums()).seconds / 3600).toFixed(2));
    } finally {
      alex.cookies.delete('tg_lang');
    }
  });

  it('writes XLSX with hours and money as numbers that add up to the totals line and the database\'s sums', async () => {
    const file = await alex.download(`/reports/table?${FILTER}&group=task&period=week&format=xlsx`);
    expect(file.type).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(file.disposition).toBe(`attachment; filename="bericht-task-week-${FROM}-${TO}.xlsx"`);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(file.bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
    expect(sheet.name).toBe('Bericht');
    const values = (n: number) => (sheet.getRow(n).values as ExcelJS.CellValue[]).slice(1);
    const lines = Array.from({ length: sheet.rowCount - 2 }, (_, i) => values(i + 2));
    const total = values(sheet.rowCount);
    expect(total[1]).toBe('Summe');
    for (const line of lines) {
      expect(line[0]).toBeInstanceOf(Date);
      for (const cell of [line[2], line[3], line[4], line[6]]) expect(typeof cell).toBe('number');
    }
    const sum = (column: number) => lines.reduce((s, line) => s + Number(line[column] ?? 0), 0);
    const sums = await databaseSums();
    expect(total[4]).toBeCloseTo(sums.seconds / 3600, 9);
    expect(total[2]).toBeCloseTo(sums.billable / 3600, 9);
    expect(sum(4)).toBeCloseTo(sums.seconds / 3600, 9);
    expect(Math.round(Number(total[6]) * 100)).toBe(sums.cents);
    expect(Math.round(sum(6) * 100)).toBe(sums.cents);

    // The page shows the same lines.
    const shown = pageTable((await alex.get(`/reports?${FILTER}&group=task&period=week`)).text);
    expect(lines.map((line) => [line[1], (Number(line[4])).toFixed(2).replace('.', ',')]))
      .toEqual(shown.lines.map((line) => [line[1], line[4]]));
  });

  it('neutralises a group name typed to look like a formula in the CSV, and keeps it as plain text in the XLSX', async () => {
    const project = await t.database.db.selectFrom('projects').select(['id', 'name']).where('account_id', '=', t.accountId).orderBy('id').executeTakeFirstOrThrow();
    await t.database.db.updateTable('projects').set({ name: '=HYPERLINK("http://evil.example";"klick")' }).where('id', '=', project.id).execute();
    try {
      const csv = await alex.download(`/reports/table?${FILTER}&project=${project.id}&group=project&period=total&format=csv&delimiter=%3B`);
      const [, line] = parseCsv(csv.bytes, ';');
      expect(line?.[0]).toBe('\'=HYPERLINK("http://evil.example";"klick")');
      const xlsx = await alex.download(`/reports/table?${FILTER}&project=${project.id}&group=project&period=total&format=xlsx`);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(xlsx.bytes as unknown as ArrayBuffer);
      const cell = (workbook.worksheets[0] as ExcelJS.Worksheet).getCell('A2');
      expect(cell.value).toBe('=HYPERLINK("http://evil.example";"klick")');
      expect(cell.formula).toBeUndefined();
    } finally {
      await t.database.db.updateTable('projects').set({ name: project.name }).where('id', '=', project.id).execute();
    }
  });

  it('gives a standard user her own table, and 404 for a colleague\'s', async () => {
    const own = await jana.download(`/reports/table?${FILTER}&user=${t.jana.userId}&group=employee&period=total&format=csv`);
    expect(own.status).toBe(200);
    const rows = parseCsv(own.bytes, ';').slice(1);
    expect(rows.map((row) => row[0])).toEqual(['Jana Schmidt', 'Summe']);
    const mine = await jana.download(`/reports/table?${FILTER}&group=employee&period=total&format=csv`);
    expect(mine.bytes.equals(own.bytes)).toBe(true);
    for (const query of [`user=${t.tom.userId}&format=csv`, `user=${t.admin.userId}&format=xlsx`, `user=${t.tom.userId}&group=project&period=week&format=csv&delimiter=%2C`]) {
      const answer = await jana.download(`/reports/table?${FILTER}&${query}`);
      expect(answer.status, query).toBe(404);
      expect(answer.type, query).toContain('text/html');
      expect(answer.bytes.toString('utf8'), query).not.toContain('Tom Weber');
    }
  });

  it('refuses malformed choices with a page (400 or 422), never a 500 or a file', async () => {
    for (const query of ['format=pdf', 'format=csv&delimiter=%7C', 'format=csv&group=evil', 'format=xlsx&period=year', 'format=csv&group=PROJECT',
      'format=csv&from=gestern', 'format=csv&from=2026-02-30', 'format=csv&from=2026-11-15&to=2026-11-01', 'format=csv&user=abc', 'format=csv&project=1e3',
      'format=csv&billable=vielleicht', '']) {
      const answer = await alex.download(`/reports/table?${query}`);
      expect([400, 422], query).toContain(answer.status);
      expect(answer.type, query).toContain('text/html');
    }
    const anonymous = await fetch(`${t.origin}/reports/table?format=csv`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/sign-in?next=%2Freports%2Ftable%3Fformat%3Dcsv');
  });
});
