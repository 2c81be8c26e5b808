// The account settings form's optimistic concurrency over real HTTP: the form carries the version
// of the settings it was rendered from (internal: the API's model has none), a save from a form
// older than the settings (another administrator, another tab, `timegate admin set-settings`) is
// refused with the current values and a message in the page's language, of two saves at once
// exactly one is made, and a missing or garbled version is a form error (400).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateSettings } from '../../service/accounts/account-settings-admin.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import type { WebClient } from '../helpers/web-client.js';
import { WebClient as Browser, formVersion, signedInClient } from '../helpers/web-client.js';

const PASSWORD = 'ein-sicheres-passwort';
const CHANGED = 'Dieser Eintrag wurde inzwischen geändert (in einem anderen Fenster, von jemand anderem oder über die API). Ihre Änderung ist nicht gespeichert.';
const CHANGED_EN = 'This entry was changed in the meantime (in another window, by someone else or through the API). Your change has not been saved.';
const GARBLED = 'Dem Formular fehlt der Stand des Eintrags, aus dem es entstand, oder er wurde verfälscht. Es ist nichts gespeichert.';
const PATH = '/admin/settings';

describe.each(testDatabases)('account settings and their row version on $name', (kind) => {
  let t: TestService;
  let alexA: WebClient;
  let alexB: WebClient;

  beforeAll(async () => {
    t = await startTestService(kind);
    alexA = await signedInClient(t.origin, t.database, t.admin.userId, t.admin.email, PASSWORD);
    alexB = new Browser(t.origin);
    if ((await alexB.signIn(t.admin.email, PASSWORD)).status !== 303) throw new Error('Alex could not sign in again');
  }, 60_000);
  afterAll(() => t?.close());

  const settingsRow = () => t.database.db.selectFrom('account_settings').select(['company_name', 'currency', 'project_custom1_label', 'version'])
    .where('account_id', '=', t.accountId).executeTakeFirstOrThrow();
  const openSettings = async (tab: WebClient) => {
    const page = await tab.get(PATH);
    expect(page.status).toBe(200);
    return formVersion(page.text, PATH) as string;
  };
  const save = (tab: WebClient, version: string | null, changes: Record<string, string>) =>
    tab.post(PATH, { version, CompanyName: 'Demo GmbH', TimeZone: 'Europe/Berlin', Currency: 'EUR', ProjectCustom1Label: 'Kostenstelle', ...changes });
  const alert = (text: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(text)?.[1] ?? '';

  it('two administrators save the settings: the second gets the first one\'s values and a message, and overwrites nothing', async () => {
    const versionA = await openSettings(alexA);
    const versionB = await openSettings(alexB);
    expect(versionB).toBe(versionA);
    expect((await save(alexA, versionA, { CompanyName: 'Name von A' })).status).toBe(303);
    const second = await save(alexB, versionB, { CompanyName: 'Name von B', Currency: 'CHF' });
    expect(second.status).toBe(409);
    expect(alert(second.text)).toContain(CHANGED);
    expect(second.text).toContain('name="CompanyName" value="Name von A"');
    expect(second.text).not.toContain('Name von B');
    const current = String(Number(versionA) + 1);
    expect(formVersion(second.text, PATH)).toBe(current);
    expect(await settingsRow()).toMatchObject({ company_name: 'Name von A', currency: 'EUR', version: Number(current) });
    // The API reads A's name, and no version: the settings' model has none.
    const api = await fetch(`${t.root}/AccountSettings?$format=json`, { headers: { 'x-serviceapikey': t.jana.apiKey } });
    const [settings] = ((await api.json()) as { d: { results: Array<Record<string, unknown>> } }).d.results;
    expect(settings?.CompanyName).toBe('Name von A');
    expect(Object.keys(settings ?? {}).filter((name) => /version/i.test(name))).toEqual([]);
    // Made again on the current values, B's change goes through.
    expect((await save(alexB, current, { CompanyName: 'Name von B', Currency: 'CHF' })).status).toBe(303);
    expect(await settingsRow()).toMatchObject({ company_name: 'Name von B', currency: 'CHF', version: Number(current) + 1 });
  });

  it('of two saves from one version at the same moment exactly one is made', async () => {
    const version = await openSettings(alexA);
    await openSettings(alexB);
    const answers = await Promise.all([save(alexA, version, { CompanyName: 'Erster' }), save(alexB, version, { CompanyName: 'Zweiter' })]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 409]);
    const winner = answers[0]?.status === 303 ? 'Erster' : 'Zweiter';
    expect(await settingsRow()).toMatchObject({ company_name: winner, version: Number(version) + 1 });
  });

  it('a form opened before `timegate admin set-settings` changed the settings is refused, and the operator\'s change stays', async () => {
    const version = await openSettings(alexA);
    await updateSettings(t.database.db, t.accountId, { customLabels: [{ entity: 'project', slot: 1, label: 'Vom Betrieb' }] });
    const saved = await save(alexA, version, { CompanyName: 'Aus dem Formular' });
    expect(saved.status).toBe(409);
    expect(saved.text).toContain('name="ProjectCustom1Label" value="Vom Betrieb"');
    expect(await settingsRow()).toMatchObject({ project_custom1_label: 'Vom Betrieb', version: Number(version) + 1 });
  });

  it('a form sent back for a typing error keeps the version it was made from, so a change meanwhile is still caught', async () => {
    const version = await openSettings(alexA);
    expect((await save(alexB, await openSettings(alexB), { CompanyName: 'Inzwischen' })).status).toBe(303);
    const typo = await save(alexA, version, { CompanyName: 'Mit Tippfehler', Currency: 'EURO' });
    expect(typo.status).toBe(422);
    expect(formVersion(typo.text, PATH)).toBe(version);
    expect((await save(alexA, version, { CompanyName: 'Mit Tippfehler' })).status).toBe(409);
    expect((await settingsRow()).company_name).toBe('Inzwischen');
  });

  it('a missing or garbled version is a form error (400) with the current values, never a 500, and changes nothing', async () => {
    await openSettings(alexA);
    const before = await settingsRow();
    for (const version of [null, '', 'abc', '0', '-1', '1.0', '99999999999', 'W/"1"']) {
      const answer = await save(alexA, version, { CompanyName: 'Manipuliert' });
      expect(answer.status, String(version)).toBe(400);
      expect(alert(answer.text)).toContain(GARBLED);
      expect(answer.text).toContain(`name="CompanyName" value="${before.company_name}"`);
    }
    // A version that is a number but not the settings' is a form older (or newer) than they are.
    const tampered = await save(alexA, '7777', { CompanyName: 'Manipuliert' });
    expect(tampered.status).toBe(409);
    expect(await settingsRow()).toEqual(before);
    // A megabyte of form: 413 before any handler, never a 500.
    expect((await save(alexA, String(before.version), { CompanyName: 'x'.repeat(1024 * 1024) })).status).toBe(413);
    expect(await settingsRow()).toEqual(before);
  });

  it('speaks the page\'s language', async () => {
    const version = await openSettings(alexA);
    expect((await save(alexB, await openSettings(alexB), { CompanyName: 'Geändert' })).status).toBe(303);
    alexA.cookies.set('tg_lang', 'en');
    try {
      const saved = await save(alexA, version, { CompanyName: 'Changed here' });
      expect(saved.status).toBe(409);
      expect(saved.text).toContain('<html lang="en">');
      expect(alert(saved.text)).toContain(CHANGED_EN);
    } finally {
      alexA.cookies.delete('tg_lang');
    }
  });
});
