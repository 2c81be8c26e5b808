// The reports page and the downloads over real HTTP: the administrator's report covers the
// account, a standard user's only themselves (naming a colleague is 404, in the page and the
// download); the totals are the database's own sums of the finished entries; the CSV files (`;`
// with a decimal comma, `,` with a point) and the XLSX workbook read back to the same entries and
// seconds; malformed choices are refused with a page, never a 500 or a half file.
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instantOf } from '../../service/web/clock.js';
import { testDatabases } from '../helpers/databases.js';
import { finishedEntrySums, pageTotalSeconds, parseCsv } from '../helpers/reports.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import { WebClient, signedInClient } from '../helpers/web-client.js';

const FROM = '2026-11-02';
const TO = '2026-11-15';

describe.each(testDatabases)('reports pages on $name', (kind) => {
  let t: TestService;
  let alex: WebClient;
  let jana: WebClient;

  beforeAll(async () => {
    t = await startTestService(kind);
    alex = await signedInClient(t.origin, t.database, t.admin.userId, t.admin.email);
    jana = await signedInClient(t.origin, t.database, t.jana.userId, t.jana.email);
  }, 60_000);
  afterAll(() => t?.close());

  /** The database's sums of the finished entries in [FROM, TO] (UTC, the suites' zone), of one user or all. */
  const sums = (userId?: number) => finishedEntrySums(t, FROM, '2026-11-16', userId);

  it('shows the administrator every employee\'s hours, the totals the database\'s own, with an accessible chart and its data table', async () => {
    const page = await alex.get(`/reports?from=${FROM}&to=${TO}&group=employee&period=week`);
    expect(page.status).toBe(200);
    const all = await sums();
    expect(all.entries).toBeGreaterThan(20);
    expect(pageTotalSeconds(page.text)).toBe(all.seconds);
    for (const name of ['Alex Berger', 'Jana Schmidt', 'Tom Weber']) expect(page.text).toContain(`<th scope="row">${name}</th>`);
    expect(page.text).toContain('<svg class="chart" id="report-chart" role="img" aria-labelledby="report-chart-title report-chart-desc"');
    expect(page.text).toContain('<title id="report-chart-title">Stunden je Woche</title>');
    expect(page.text).toContain('Woche ab 02.11.2026');
    expect(page.text).toContain('Woche ab 09.11.2026');
    expect(page.text.match(/<g class="bar"/g)?.length).toBe(2);
    expect(page.text).toContain(`data-total="billable">${(all.billable / 3600).toFixed(2).replace('.', ',')}<`);
    expect(page.text).toContain('href="/reports/export?from=2026-11-02&amp;to=2026-11-15&amp;format=csv&amp;delimiter=%3B"');
    // In English the dates name their month, so no reader takes 02/11 for the 11th of February.
    const english = await alex.get(`/reports?from=${FROM}&to=${TO}&group=employee&period=week`, { 'accept-language': 'en' });
    expect(english.text).toContain('Week of 2 Nov 2026');
    expect(english.text).toContain('>9 Nov</text>');
    expect(english.text).toContain('<span class="swatch non-billable"></span> Non-billable</figcaption>');
    expect(page.text).toContain('<span class="swatch non-billable"></span> Nicht abrechenbar</figcaption>');
    const monthly = await alex.get(`/reports?from=${FROM}&to=${TO}&group=project&period=month`);
    expect(monthly.text).toContain('Nov. 2026');
    expect(pageTotalSeconds(monthly.text)).toBe(all.seconds);
    const whole = await alex.get(`/reports?from=${FROM}&to=${TO}&group=task&period=total`);
    expect(whole.text).toContain('<title id="report-chart-title">Stunden je Tätigkeit</title>');
    expect(pageTotalSeconds(whole.text)).toBe(all.seconds);
  });

  it('shows a standard user only herself, and refuses (404) a report or download of a colleague', async () => {
    const page = await jana.get(`/reports?from=${FROM}&to=${TO}&group=employee&period=total`);
    expect(page.status).toBe(200);
    expect(pageTotalSeconds(page.text)).toBe((await sums(t.jana.userId)).seconds);
    expect(page.text).toContain('<th scope="row">Jana Schmidt</th>');
    expect(page.text).not.toContain('Tom Weber');
    expect(page.text).not.toContain('name="user"');
    expect(page.text).toContain('href="/reports"');
    for (const path of [`/reports?user=${t.tom.userId}`, `/reports/export?format=csv&user=${t.tom.userId}`, `/reports/export?format=xlsx&user=${t.admin.userId}`]) {
      expect((await jana.get(path)).status, path).toBe(404);
    }
    const own = await jana.download(`/reports/export?format=csv&delimiter=%3B&from=${FROM}&to=${TO}&user=${t.jana.userId}`);
    expect(own.status).toBe(200);
    const rows = parseCsv(own.bytes, ';');
    expect(rows.length - 1).toBe((await sums(t.jana.userId)).entries);
    expect(new Set(rows.slice(1).map((row) => row[7]))).toEqual(new Set([t.jana.email]));
  });

  it('offers her week in the timesheet as files holding that week\'s finished entries', async () => {
    const week = await jana.get('/timesheet?week=2026-11-18');
    const link = /href="(\/reports\/export\?from=2026-11-16&amp;to=2026-11-22&amp;format=csv&amp;delimiter=%3B)"/.exec(week.text)?.[1];
    expect(link).toBeDefined();
    const file = await jana.download((link as string).replaceAll('&amp;', '&'));
    const ids = parseCsv(file.bytes, ';').slice(1).map((row) => Number(row[0])).sort((a, b) => a - b);
    const rows = await t.database.db.selectFrom('time_entries').select('id').where('user_id', '=', t.jana.userId).where('end_time', 'is not', null)
      .where('start_time', '>=', instantOf('2026-11-16', 0, 'UTC')).where('start_time', '<', instantOf('2026-11-23', 0, 'UTC')).orderBy('id').execute();
    expect(ids).toEqual(rows.map((row) => row.id));
    expect(ids.length).toBeGreaterThan(5);
  });

  it('downloads CSV (; and ,) and XLSX that read back to the report\'s entries and seconds', async () => {
    const all = await sums();
    const filter = `from=${FROM}&to=${TO}`;
    const semicolon = await alex.download(`/reports/export?${filter}&format=csv&delimiter=%3B`);
    expect(semicolon.status).toBe(200);
    expect(semicolon.type).toBe('text/csv; charset=utf-8; header=present');
    expect(semicolon.disposition).toBe(`attachment; filename="zeiten-${FROM}-${TO}.csv"`);
    const [header, ...rows] = parseCsv(semicolon.bytes, ';');
    expect(header?.slice(0, 6)).toEqual(['ID', 'Datum', 'Beginn', 'Ende', 'Sekunden', 'Stunden']);
    expect(rows.length).toBe(all.entries);
    expect(rows.reduce((sum, row) => sum + Number(row[4]), 0)).toBe(all.seconds);
    expect(rows.some((row) => (row[5] as string).includes(','))).toBe(true);

    const comma = await alex.download(`/admin/entries/export?${filter}&format=csv&delimiter=%2C`);
    const commaRows = parseCsv(comma.bytes, ',').slice(1);
    expect(commaRows.length).toBe(all.entries);
    expect(commaRows.reduce((sum, row) => sum + Number(row[4]), 0)).toBe(all.seconds);
    expect(commaRows.reduce((sum, row) => sum + Number(row[5]), 0)).toBeCloseTo(all.seconds / 3600, 1);

    const xlsx = await alex.download(`/reports/export?${filter}&format=xlsx`);
    expect(xlsx.type).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
    let seconds = 0;
    sheet.eachRow((row, n) => {
      if (n > 1) seconds += Number(row.getCell(5).value);
    });
    expect(sheet.rowCount - 1).toBe(all.entries);
    expect(seconds).toBe(all.seconds);

    // In the page's language: English headers and file name.
    alex.cookies.set('tg_lang', 'en');
    try {
      const english = await alex.download(`/reports/export?${filter}&format=csv&delimiter=%2C`);
      expect(english.disposition).toBe(`attachment; filename="time-entries-${FROM}-${TO}.csv"`);
      expect(parseCsv(english.bytes, ',')[0]?.slice(0, 3)).toEqual(['ID', 'Date', 'Start']);
    } finally {
      alex.cookies.delete('tg_lang');
    }
  });

  it('refuses malformed choices with a page (400 or 422), and sends a signed-out browser to sign in', async () => {
    for (const query of ['group=evil', 'period=year', 'user=abc', 'billable=vielleicht', 'project=1e3']) {
      const page = await alex.get(`/reports?${query}`);
      expect(page.status, query).toBe(400);
      expect(page.text, query).toContain('Dieser Filter ist ungültig.');
    }
    const badDate = await alex.get('/reports?from=2026-02-30&group=project');
    expect(badDate.status).toBe(422);
    expect(badDate.text).toContain('id="f-from-error">Bitte ein Datum angeben.');
    for (const query of ['format=pdf', 'format=csv&delimiter=%7C', 'format=csv&from=gestern', '']) {
      const answer = await alex.download(`/reports/export?${query}`);
      expect(answer.status, query).toBeGreaterThanOrEqual(400);
      expect(answer.status, query).toBeLessThan(500);
      expect(answer.type, query).toContain('text/html');
    }
    const anonymous = await new WebClient(t.origin).get('/reports/export?format=csv');
    expect(anonymous.status).toBe(303);
    expect(anonymous.location).toBe('/sign-in?next=%2Freports%2Fexport%3Fformat%3Dcsv');
  });
});
