// The administration pages in headless Chromium, end to end: the administrator invites an
// employee and copies the one-time link, assigns her a project she could not book on before, and
// sets the booking close date; the employee signs in through the link, books on that project,
// and once the close date has moved past her entry she can no longer change it, in the page or
// through the API; the administrator's report shows her hours, and its CSV and XLSX downloads
// (the entries and the report's own table) read back to the same totals. Every administration
// and report page: no serious or critical axe-core violation, every control reachable by keyboard.
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey } from '../../service/accounts/account-admin.js';
import { setPassword } from '../../service/accounts/passwords.js';
import { DESKTOP, PHONE, launchChromium, overflowsSideways, seriousViolations, unreachableByKeyboard } from '../helpers/browser.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';

const kind = testDatabases[0] as (typeof testDatabases)[number];
const ADMIN_PASSWORD = 'alex-sein-passwort';
const LENA_PASSWORD = 'lenas-neues-passwort';

describe('the administration pages in headless Chromium', () => {
  let t: TestService;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestService(kind);
    await setPassword(t.database.db, t.admin.userId, ADMIN_PASSWORD);
    await setPassword(t.database.db, t.jana.userId, LENA_PASSWORD);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function checkPage(page: Page): Promise<void> {
    const where = new URL(page.url()).pathname;
    expect(await seriousViolations(page), where).toEqual([]);
    expect(await unreachableByKeyboard(page), where).toEqual([]);
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${t.origin}/sign-in`);
    await page.getByLabel('E-Mail').fill(email);
    await page.getByLabel('Passwort').fill(password);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.waitForURL(`${t.origin}/stopwatch`);
  }

  it('invite, assign, close date; the employee books and cannot change what lies before the close date', async () => {
    const adminContext = await browser.newContext({ ...DESKTOP, locale: 'de-DE' });
    const admin = await adminContext.newPage();
    await signIn(admin, t.admin.email, ADMIN_PASSWORD);
    await admin.getByRole('link', { name: 'Verwaltung' }).click();
    await admin.waitForURL(`${t.origin}/admin`);
    await checkPage(admin);

    // Invite Lena; the link is shown once, to copy.
    await admin.getByRole('link', { name: 'Mitarbeitende' }).click();
    await checkPage(admin);
    await admin.getByLabel('Vorname').fill('Lena');
    await admin.getByLabel('Nachname').fill('Neu');
    await admin.getByLabel('E-Mail').fill('lena.neu@demo.example');
    await admin.getByRole('button', { name: 'Einladen' }).click();
    const link = await admin.locator('#invitation-link').innerText();
    expect(link).toMatch(/\/invitation\/[\w-]{43}$/);
    await checkPage(admin);

    // Mobile App is open to its list only; she is put on it.
    await admin.getByRole('link', { name: 'Lena Neu' }).click();
    await admin.waitForURL(/\/admin\/employees\/\d+$/);
    await checkPage(admin);
    await admin.getByLabel('Mobile App').check();
    await admin.getByRole('button', { name: 'Zuordnungen speichern' }).click();
    await expect.poll(() => admin.locator('main [role=status]').innerText()).toBe('Gespeichert.');
    expect(await admin.getByLabel('Mobile App').isChecked()).toBe(true);
    // Her details are changed on the same page.
    await admin.getByLabel('Titel').fill('Dr.');
    await admin.getByLabel('Kommentar').fill('Teilzeit');
    await admin.getByRole('button', { name: 'Angaben speichern' }).click();
    await expect.poll(() => admin.locator('main [role=status]').innerText()).toBe('Gespeichert.');
    expect(await admin.getByLabel('Kommentar').inputValue()).toBe('Teilzeit');

    // Lena sets her password through the link and books on Mobile App.
    const lenaContext = await browser.newContext({ ...DESKTOP, locale: 'de-DE' });
    const lena = await lenaContext.newPage();
    await lena.goto(link);
    await lena.getByLabel('Neues Passwort').fill(LENA_PASSWORD);
    await lena.getByLabel('Passwort wiederholen').fill(LENA_PASSWORD);
    await lena.getByRole('button', { name: 'Passwort speichern' }).click();
    await expect.poll(() => lena.locator('[role=status]').innerText()).toContain('Ihr Passwort ist gespeichert');
    await lena.getByLabel('Passwort', { exact: true }).fill(LENA_PASSWORD);
    await lena.getByRole('button', { name: 'Anmelden' }).click();
    await lena.waitForURL(`${t.origin}/stopwatch`);
    expect(await lena.getByRole('link', { name: 'Verwaltung' }).count()).toBe(0);
    for (const [date, comment] of [['2026-11-12', 'Vor dem Schluss'], ['2026-11-18', 'Nach dem Schluss']]) {
      await lena.goto(`${t.origin}/timesheet/new?date=${date}`);
      await lena.getByLabel('Beginn (hh:mm)').fill('09:00');
      await lena.getByLabel('Ende (hh:mm)').fill('11:30');
      await lena.getByLabel('Projekt').selectOption({ label: 'Mobile App' });
      await lena.getByLabel('Kommentar').fill(comment as string);
      await lena.getByRole('button', { name: 'Speichern' }).click();
      await expect.poll(() => lena.locator('[role=status]').innerText()).toBe('Gespeichert.');
    }
    const lenaId = (await t.database.db.selectFrom('users').select('id').where('email', '=', 'lena.neu@demo.example').executeTakeFirstOrThrow()).id;
    const before = await t.database.db.selectFrom('time_entries').selectAll().where('user_id', '=', lenaId).where('comment', '=', 'Vor dem Schluss').executeTakeFirstOrThrow();

    // The administrator closes the period before 16 November.
    await admin.getByRole('link', { name: 'Kontoeinstellungen' }).click();
    await checkPage(admin);
    await admin.getByLabel('Buchungsschluss').fill('2026-11-16');
    await admin.getByRole('button', { name: 'Speichern' }).click();
    await expect.poll(() => admin.locator('main [role=status]').innerText()).toBe('Gespeichert.');

    // In the page: the entry opens read-only, and a post of its form is refused.
    await lena.goto(`${t.origin}/timesheet/entries/${before.id}`);
    await expect.poll(() => lena.locator('main [role=status]').innerText()).toBe('Dieser Eintrag kann nicht mehr geändert werden.');
    const csrf = await lena.locator('input[name=_csrf]').first().getAttribute('value');
    const version = await lena.locator('main input[name=version]').first().getAttribute('value');
    const posted = await lena.request.post(`${t.origin}/timesheet/entries/${before.id}`, {
      form: { _csrf: csrf as string, version: version as string, date: '2026-11-12', kind: '2', start: '08:00', end: '11:30', project: String(before.project_id) }, maxRedirects: 0,
    });
    expect(posted.status()).toBe(403);
    expect(await posted.text()).toContain('Der Buchungszeitraum vor dem 2026-11-16 ist abgeschlossen.');
    await lena.goto(`${t.origin}/timesheet/new?date=2026-11-13`);
    await lena.getByLabel('Beginn (hh:mm)').fill('09:00');
    await lena.getByLabel('Ende (hh:mm)').fill('10:00');
    await lena.getByLabel('Projekt').selectOption({ label: 'Mobile App' });
    await lena.getByRole('button', { name: 'Speichern' }).click();
    await expect.poll(() => lena.locator('main').innerText()).toContain('Der Buchungszeitraum vor dem 2026-11-16 ist abgeschlossen.');
    // Through the API alike: MERGE and DELETE refused, the entry unchanged.
    const { apiKey } = await newKey(t.database.db, lenaId);
    const merge = await fetch(`${t.root}/TimeEntries(${before.id})`, {
      method: 'MERGE', headers: { 'x-serviceapikey': apiKey, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ Comment: 'geändert' }),
    });
    expect(merge.status).toBe(403);
    expect(await merge.text()).toContain('Der Buchungszeitraum vor dem 2026-11-16 ist abgeschlossen.');
    expect((await fetch(`${t.root}/TimeEntries(${before.id})`, { method: 'DELETE', headers: { 'x-serviceapikey': apiKey } })).status).toBe(403);
    expect(await t.database.db.selectFrom('time_entries').selectAll().where('id', '=', before.id).executeTakeFirst()).toEqual(before);
    // What lies after the close date she still changes.
    const after = await t.database.db.selectFrom('time_entries').select('id').where('user_id', '=', lenaId).where('comment', '=', 'Nach dem Schluss').executeTakeFirstOrThrow();
    const changed = await fetch(`${t.root}/TimeEntries(${after.id})`, {
      method: 'MERGE', headers: { 'x-serviceapikey': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ Comment: 'Noch offen' }),
    });
    expect(changed.status).toBe(204);

    // The team's entries show hers.
    await admin.goto(`${t.origin}/admin/entries`);
    await admin.getByLabel('Mitarbeiter/in').selectOption({ label: 'Lena Neu' });
    await admin.getByRole('button', { name: 'Filtern' }).click();
    await admin.waitForURL(/user=\d+/);
    await expect.poll(() => admin.locator('tr[data-entry]').count()).toBe(2);
    await expect.poll(() => admin.locator('[data-total=entries]').innerText()).toBe('05:00');
    await checkPage(admin);

    // The report by employee shows her five hours; the downloads hold the same.
    await admin.getByRole('link', { name: 'Berichte' }).click();
    await admin.getByLabel('Von').fill('2026-11-09');
    await admin.getByLabel('Bis').fill('2026-11-22');
    await admin.getByLabel('Gruppiert nach').selectOption({ label: 'Mitarbeiter/in' });
    await admin.getByLabel('Zeitraum', { exact: true }).selectOption({ label: 'Gesamt' });
    await admin.getByRole('button', { name: 'Anzeigen' }).click();
    await admin.waitForURL(/group=employee/);
    const lenaRow = admin.locator('.report-table tbody tr', { has: admin.locator('th', { hasText: 'Lena Neu' }) });
    await expect.poll(() => lenaRow.locator('td').nth(2).innerText()).toBe('5,00');
    await checkPage(admin);
    const seconds = Number(await admin.locator('[data-total=seconds]').getAttribute('data-seconds'));
    const entries = await t.database.db.selectFrom('time_entries').select(['start_time', 'end_time']).where('account_id', '=', t.accountId)
      .where('end_time', 'is not', null).where('start_time', '>=', Date.UTC(2026, 10, 9)).where('start_time', '<', Date.UTC(2026, 10, 23)).execute();
    expect(seconds).toBe(entries.reduce((sum, e) => sum + Math.floor(((e.end_time as number) - e.start_time) / 1000), 0));
    const fetched = async (name: RegExp) => {
      const [file] = await Promise.all([admin.waitForEvent('download'), admin.getByRole('link', { name }).click()]);
      return readFile(await file.path());
    };
    const csv = parse((await fetched(/Einträge: CSV \(;\)/)).toString('utf8'), { delimiter: ';', bom: true }) as string[][];
    expect(csv.length - 1).toBe(entries.length);
    expect(csv.slice(1).reduce((sum, row) => sum + Number(row[4]), 0)).toBe(seconds);
    expect(csv.slice(1).filter((row) => row[6] === 'Lena Neu').reduce((sum, row) => sum + Number(row[4]), 0)).toBe(5 * 3600);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await fetched(/Einträge: Excel/)) as unknown as ArrayBuffer);
    let xlsxSeconds = 0;
    (workbook.worksheets[0] as ExcelJS.Worksheet).eachRow((row, n) => {
      if (n > 1) xlsxSeconds += Number(row.getCell(5).value);
    });
    expect(xlsxSeconds).toBe(seconds);
    // The report's own table: Lena's line and the totals as the page shows them.
    const table = parse((await fetched(/Berichtstabelle: CSV \(;\)/)).toString('utf8'), { delimiter: ';', bom: true }) as string[][];
    expect(table.find((row) => row[0] === 'Lena Neu')?.[3]).toBe('5,00');
    expect(table.at(-1)?.[0]).toBe('Summe');
    expect(table.at(-1)?.[3]).toBe((seconds / 3600).toFixed(2).replace('.', ','));
    await lenaContext.close();
    await adminContext.close();
  }, 180_000);

  it('every administration and report page passes axe-core and the keyboard walk, in German and English', async () => {
    const context = await browser.newContext({ ...DESKTOP, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, t.admin.email, ADMIN_PASSWORD);
    const project = await t.database.db.selectFrom('projects').select('id').where('name', '=', 'Website-Relaunch').executeTakeFirstOrThrow();
    const paths = ['/admin/clients', '/admin/clients/new', '/admin/projects', `/admin/projects/${project.id}`, '/admin/projects/new', '/admin/tasks',
      '/admin/tasks/new', `/admin/employees/${t.jana.userId}`, '/admin/entries?from=2026-11-16&to=2026-11-20', '/reports?from=2026-10-01&to=2026-11-20&group=project&period=week',
      '/reports?from=2026-10-01&to=2026-11-20&group=client&period=month', '/reports?from=2026-11-01&to=2026-11-20&group=task&period=total'];
    for (const path of paths) {
      await page.goto(`${t.origin}${path}`);
      await checkPage(page);
    }
    // A list longer than a page: its "Next" and "Previous" links.
    const stamp = { account_id: t.accountId, type_id: 2, user_id: t.jana.userId, project_id: project.id, billable: 1 as const, locked: 0 as const, last_change_time: Date.UTC(2025, 0, 1), last_change_author: t.admin.userId };
    await t.database.db.insertInto('time_entries').values(Array.from({ length: 510 }, (_, i) => ({ ...stamp, start_time: Date.UTC(2025, 0, 2) + i * 3_600_000, end_time: Date.UTC(2025, 0, 2) + i * 3_600_000 + 1_800_000 }))).execute();
    await page.goto(`${t.origin}/admin/entries?from=2025-01-01&to=2025-01-31`);
    await page.getByRole('link', { name: 'Nächste 500' }).click();
    await page.waitForURL(/after=/);
    await expect.poll(() => page.locator('tr[data-entry]').count()).toBe(10);
    await checkPage(page);
    // A form with errors beside its fields.
    await page.goto(`${t.origin}/admin/projects/new`);
    await page.getByLabel('Name').fill('Prüfprojekt');
    await page.getByLabel('Zeitbudget (Stunden)').fill('viel');
    await page.getByRole('button', { name: 'Speichern' }).click();
    await expect.poll(() => page.locator('#f-TimeBudgetHours-error').innerText()).toContain('Der Wert von TimeBudget ist kein gültiger Wert');
    expect(await page.getByLabel('Zeitbudget (Stunden)').getAttribute('aria-describedby')).toBe('f-TimeBudgetHours-error');
    await checkPage(page);
    await page.getByRole('link', { name: 'EN', exact: true }).click();
    await page.goto(`${t.origin}/admin/settings`);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Account settings');
    await checkPage(page);
    await page.goto(`${t.origin}/admin/entries?from=2026-11-16&to=2026-11-20`);
    expect(await page.locator('.week-total').innerText()).toMatch(/^\d+ entries, \d\d:\d\d in all$/);
    await context.close();
    // On a phone-sized screen nothing is wider than the screen (wide tables and the chart scroll inside their region).
    const phone = await (await browser.newContext({ ...PHONE, locale: 'de-DE' })).newPage();
    await signIn(phone, t.admin.email, ADMIN_PASSWORD);
    for (const path of ['/admin/employees', '/admin/projects', `/admin/projects/${project.id}`, '/admin/settings', '/admin/entries?from=2026-11-16&to=2026-11-20',
      '/reports?from=2026-10-01&to=2026-11-20&group=project&period=week']) {
      await phone.goto(`${t.origin}${path}`);
      expect(await overflowsSideways(phone), path).toBe(false);
      expect(await seriousViolations(phone), path).toEqual([]);
    }
    await phone.context().close();
    // A standard user's report: her own, no employee choice, no administration link.
    const janaContext = await browser.newContext({ ...DESKTOP, locale: 'de-DE' });
    const jana = await janaContext.newPage();
    await signIn(jana, t.jana.email, LENA_PASSWORD);
    await jana.getByRole('link', { name: 'Berichte' }).click();
    await jana.waitForURL(/\/reports$/);
    expect(await jana.getByLabel('Mitarbeiter/in', { exact: true }).count()).toBe(0);
    expect(await jana.getByRole('link', { name: 'Verwaltung' }).count()).toBe(0);
    await checkPage(jana);
    await janaContext.close();
  }, 120_000);
});
