// The web interface in headless Chromium, as an invited employee uses it: she sets her password,
// signs in, starts the stopwatch in the page (the API's CurrentStopWatch returns it), it is halted
// through the API and the page shows the finished entry; she adds, edits and deletes an entry in
// the week view; she makes an API key in her profile that reads her entries, and revokes it; an
// entry saved in one tab and then in an older one gets the current values and an alert there.
// Every page, on a desktop and a phone-sized screen: no serious or critical axe-core violation,
// every control reachable by keyboard, nothing wider than the screen.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvitation } from '../../service/accounts/invitations.js';
import { DESKTOP, PHONE, launchChromium, overflowsSideways, seriousViolations, unreachableByKeyboard } from '../helpers/browser.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';

const kind = testDatabases[0] as (typeof testDatabases)[number];
const PASSWORD = 'mein-neues-passwort';

describe('the web interface in headless Chromium', () => {
  let t: TestService;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestService(kind);
    await t.database.db.updateTable('account_settings').set({ time_zone: 'Europe/Berlin' }).execute();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const api = (path: string, key = t.jana.apiKey) => fetch(`${t.root}${path}${path.includes('?') ? '&' : '?'}$format=json`, { headers: { 'x-serviceapikey': key } });

  /** The checks every page must pass, with the page's path in the message. */
  async function checkPage(page: Page, phone = false): Promise<void> {
    const where = `${new URL(page.url()).pathname}${phone ? ' (phone)' : ''}`;
    expect(await seriousViolations(page), where).toEqual([]);
    expect(await unreachableByKeyboard(page), where).toEqual([]);
    expect(await overflowsSideways(page), where).toBe(false);
  }

  async function signIn(context: BrowserContext, password: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${t.origin}/`);
    await page.getByLabel('E-Mail').fill(t.jana.email);
    await page.getByLabel('Passwort').fill(password);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.waitForURL(`${t.origin}/stopwatch`);
    return page;
  }

  it('invitation, stopwatch shared with the API, week view edits, API key made and revoked; every page accessible', async () => {
    const context = await browser.newContext({ ...DESKTOP, locale: 'de-DE' });
    const page = await context.newPage();
    const { token } = await createInvitation(t.database.db, t.jana.userId);
    await page.goto(`${t.origin}/invitation/${token}`);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Passwort festlegen');
    await checkPage(page);
    await page.getByLabel('Neues Passwort').fill(PASSWORD);
    await page.getByLabel('Passwort wiederholen').fill(PASSWORD);
    await page.getByRole('button', { name: 'Passwort speichern' }).click();
    await expect.poll(() => page.locator('[role=status]').innerText()).toContain('Ihr Passwort ist gespeichert');
    await checkPage(page);
    // A mistyped password: the message, and the password field focused to type it again.
    await page.getByLabel('Passwort', { exact: true }).fill('vertippt-passwort');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await expect.poll(() => page.locator('[role=alert]').innerText()).toBe('E-Mail oder Passwort ist falsch.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('password');
    expect(await page.getByLabel('E-Mail').inputValue()).toBe(t.jana.email);
    await page.getByLabel('Passwort', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.waitForURL(`${t.origin}/stopwatch`);
    await checkPage(page);

    // The stopwatch: started in the page, ticking, the API's; halted through the API.
    await page.getByLabel('Projekt').selectOption({ label: 'Website-Relaunch' });
    await page.getByLabel('Tätigkeit').selectOption({ label: 'Entwicklung' });
    await page.getByLabel('Kommentar').fill('Im Browser gestartet');
    await page.getByRole('button', { name: 'Starten' }).click();
    await expect.poll(() => page.locator('#state').innerText()).toBe('Läuft seit');
    const first = await page.locator('#elapsed').innerText();
    await expect.poll(() => page.locator('#elapsed').innerText(), { timeout: 5000 }).not.toBe(first);
    const current = await api('/CurrentStopWatch');
    expect(current.status).toBe(200);
    expect(((await current.json()) as { d: { Comment: string } }).d.Comment).toBe('Im Browser gestartet');
    await checkPage(page);
    expect((await api('/HaltStopWatch')).status).toBe(200);
    await page.reload();
    await expect.poll(() => page.locator('#state').innerText()).toBe('Keine Stoppuhr läuft.');
    await expect.poll(() => page.locator('#today + ul').innerText()).toContain('Im Browser gestartet');
    expect(await page.locator('#today').innerText()).toBe('Heute gebucht');

    // The week view: add, edit, delete.
    await page.getByRole('link', { name: 'Meine Zeiten' }).click();
    await page.waitForURL(/\/timesheet$/);
    await checkPage(page);
    await page.getByRole('link', { name: 'Vorige Woche' }).click();
    await page.waitForURL(/week=/);
    await checkPage(page);
    await page.getByRole('link', { name: 'Eintrag hinzufügen' }).click();
    await page.waitForURL(/\/timesheet\/new/);
    await checkPage(page);
    // A way back to the week the form is for.
    expect(await page.getByRole('link', { name: 'Abbrechen' }).getAttribute('href')).toBe(`/timesheet?week=${await page.getByLabel('Datum').inputValue()}`);
    await page.getByLabel('Beginn (hh:mm)').fill('18:00');
    await page.getByLabel('Ende (hh:mm)').fill('19:30');
    await page.getByRole('button', { name: 'Speichern' }).click();
    // Without a project: the service's message beside the field, what was typed kept.
    await expect.poll(() => page.locator('#project-error').innerText()).toBe('Der Zeiteintrag kann nicht gespeichert werden: ProjectID ist ein Pflichtfeld.');
    // The field at fault has the focus, so the keyboard and the screen reader start there.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('project');
    expect(await page.getByLabel('Beginn (hh:mm)').inputValue()).toBe('18:00');
    await checkPage(page);
    await page.getByLabel('Projekt').selectOption({ label: 'Kundenportal' });
    await page.getByLabel('Kommentar').fill('Aus dem Browser');
    await page.getByRole('button', { name: 'Speichern' }).click();
    await expect.poll(() => page.locator('[role=status]').innerText()).toBe('Gespeichert.');
    const added = page.locator('li[data-entry]', { hasText: 'Aus dem Browser' });
    await expect.poll(() => added.locator('.duration').innerText()).toBe('01:30');
    await added.getByRole('link', { name: /Bearbeiten/ }).click();
    await page.waitForURL(/\/timesheet\/entries\/\d+$/);
    await checkPage(page);
    await page.getByLabel('Dauer', { exact: true }).check();
    await page.getByLabel('Dauer (hh:mm)').fill('2:15');
    await page.getByRole('button', { name: 'Speichern' }).click();
    await expect.poll(() => added.locator('.duration').innerText()).toBe('02:15');
    await added.getByRole('link', { name: /Bearbeiten/ }).click();
    await page.getByRole('button', { name: 'Löschen' }).click();
    await expect.poll(() => page.locator('[role=status]').innerText()).toBe('Gelöscht.');
    expect(await page.locator('li[data-entry]', { hasText: 'Aus dem Browser' }).count()).toBe(0);

    // A locked entry opens read-only.
    const locked = await t.database.db.selectFrom('time_entries').select('id').where('user_id', '=', t.jana.userId).where('locked', '=', 1).executeTakeFirstOrThrow();
    await page.goto(`${t.origin}/timesheet/entries/${locked.id}`);
    await expect.poll(() => page.locator('main [role=status]').innerText()).toBe('Dieser Eintrag kann nicht mehr geändert werden.');
    await checkPage(page);

    // The profile: a key shown once reads her entries; revoked, it is refused.
    await page.getByRole('link', { name: 'Mein Profil' }).click();
    await checkPage(page);
    await page.getByRole('button', { name: 'Neuen Schlüssel erzeugen' }).click();
    const key = await page.locator('#new-key').innerText();
    expect(key).toMatch(/^tg_[\w-]{43}$/);
    await checkPage(page);
    const entries = await api('/TimeEntries?$top=50', key);
    expect(entries.status).toBe(200);
    const users = ((await entries.json()) as { d: { results: Array<{ UserID: number }> } }).d.results.map((e) => e.UserID);
    expect(users.length).toBeGreaterThan(0);
    expect(new Set(users)).toEqual(new Set([t.jana.userId]));
    await page.goto(`${t.origin}/profile`);
    await page.getByRole('button', { name: `Widerrufen ${key.slice(0, 9)}` }).click();
    await expect.poll(() => page.locator('main [role=status]').innerText()).toBe('Widerrufen.');
    expect((await api('/TimeEntries?$top=1', key)).status).toBe(401);

    // English on request.
    await page.getByRole('link', { name: 'EN', exact: true }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('My profile');
    await checkPage(page);
    // The rules' refusals in the page's language too.
    await page.goto(`${t.origin}/timesheet/new`);
    await page.getByLabel('Start (hh:mm)').fill('19:30');
    await page.getByLabel('End (hh:mm)').fill('18:00');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#project-error').innerText()).toBe('The time entry cannot be saved: ProjectID is required.');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.locator('[role=status]').innerText()).toBe('You are signed out.');
    await context.close();
  }, 180_000);

  it('works on a phone-sized screen: the stopwatch and the week fit, every control reachable', async () => {
    const context = await browser.newContext({ ...PHONE, locale: 'de-DE' });
    const page = await signIn(context, PASSWORD);
    await checkPage(page, true);
    await page.getByLabel('Projekt').selectOption({ label: 'Kundenportal' });
    await page.getByRole('button', { name: 'Starten' }).click();
    await expect.poll(() => page.locator('#state').innerText()).toBe('Läuft seit');
    await checkPage(page, true);
    await page.getByRole('button', { name: 'Anhalten' }).click();
    await expect.poll(() => page.locator('#state').innerText()).toBe('Keine Stoppuhr läuft.');
    for (const path of ['/timesheet?week=2026-11-16', '/timesheet/new', '/profile']) {
      await page.goto(`${t.origin}${path}`);
      await checkPage(page, true);
    }
    // Without the table's header row on a phone, each key's dates still say what they are.
    const keyRow = await page.locator('table.keys tbody tr').first().innerText();
    expect(keyRow).toContain('Erzeugt');
    expect(keyRow).toContain('Zuletzt benutzt');
    // The checks can fail: a field stripped of its label is a critical violation to axe, and a
    // control taken out of the tab order is unreachable.
    await page.evaluate(() => document.querySelector('label[for="current-password"]')?.remove());
    expect((await seriousViolations(page)).map((v) => v.id)).toContain('label');
    await page.evaluate(() => document.querySelector('#current-password')?.setAttribute('tabindex', '-1'));
    expect((await unreachableByKeyboard(page)).join()).toContain('current-password');
    await context.close();
  }, 120_000);

  it('an entry saved in one tab and then in another: the second tab gets the current values and an alert, and nothing is lost', async () => {
    const start = Date.UTC(2026, 10, 18, 8);
    const { id } = await t.database.db.insertInto('time_entries').values({
      account_id: t.accountId, last_change_time: start, last_change_author: t.jana.userId,
      type_id: 2, user_id: t.jana.userId, project_id: 1, start_time: start, end_time: start + 3_600_000, billable: 1, locked: 0, comment: 'Zwei Tabs',
    }).returning('id').executeTakeFirstOrThrow();
    const context = await browser.newContext({ ...DESKTOP, locale: 'de-DE' });
    const first = await signIn(context, PASSWORD);
    const second = await context.newPage();
    for (const tab of [first, second]) await tab.goto(`${t.origin}/timesheet/entries/${id}`);
    await first.getByLabel('Kommentar').fill('Aus dem ersten Tab');
    await first.getByRole('button', { name: 'Speichern' }).click();
    await expect.poll(() => first.locator('main [role=status]').innerText()).toBe('Gespeichert.');
    await second.getByLabel('Kommentar').fill('Aus dem zweiten Tab');
    await second.getByRole('button', { name: 'Speichern' }).click();
    await expect.poll(() => second.locator('main [role=alert]').innerText()).toContain('Dieser Eintrag wurde inzwischen geändert');
    expect(await second.getByLabel('Kommentar').inputValue()).toBe('Aus dem ersten Tab');
    await checkPage(second);
    expect((await t.database.db.selectFrom('time_entries').select('comment').where('id', '=', id).executeTakeFirstOrThrow()).comment).toBe('Aus dem ersten Tab');
    // Made again on what the entry is now, the change is saved.
    await second.getByLabel('Kommentar').fill('Aus dem zweiten Tab');
    await second.getByRole('button', { name: 'Speichern' }).click();
    await expect.poll(() => second.locator('main [role=status]').innerText()).toBe('Gespeichert.');
    expect((await t.database.db.selectFrom('time_entries').select('comment').where('id', '=', id).executeTakeFirstOrThrow()).comment).toBe('Aus dem zweiten Tab');
    await context.close();
  }, 120_000);
});
