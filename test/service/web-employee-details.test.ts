// An employee's details on their administration page over real HTTP: an administrator changes
// names, title, address, language, comment and the custom fields the account labels; the page and
// the API's /Users show the change, stamped with its author. The forms that change a user (details,
// role, access) carry the row's version: a save from a page older than the user is refused with the
// current values (409), of two saves at once exactly one is made, and a missing or garbled version
// is a form error (400). Another account's user is no user (404); a taken or broken address and
// hostile input get a form message in the page's language, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../service/accounts/account-admin.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import type { WebClient } from '../helpers/web-client.js';
import { WebClient as Browser, formVersion, signedInClient } from '../helpers/web-client.js';

const PASSWORD = 'ein-sicheres-passwort';
const CHANGED = 'Dieser Eintrag wurde inzwischen geändert (in einem anderen Fenster, von jemand anderem oder über die API). Ihre Änderung ist nicht gespeichert.';
const GARBLED = 'Dem Formular fehlt der Stand des Eintrags, aus dem es entstand, oder er wurde verfälscht. Es ist nichts gespeichert.';

describe.each(testDatabases)('employee details and user row versions on $name', (kind) => {
  let t: TestService;
  /** Alex, the administrator, in two browsers. */
  let alexA: WebClient;
  let alexB: WebClient;
  let otherUserId: number;

  beforeAll(async () => {
    t = await startTestService(kind);
    alexA = await signedInClient(t.origin, t.database, t.admin.userId, t.admin.email, PASSWORD);
    alexB = new Browser(t.origin);
    if ((await alexB.signIn(t.admin.email, PASSWORD)).status !== 303) throw new Error('Alex could not sign in again');
    otherUserId = (await createAccount(t.database.db, { name: 'Fremd GmbH', adminEmail: 'chef@fremd.example' })).userId;
  }, 60_000);
  afterAll(() => t?.close());

  const userRow = (id: number) => t.database.db.selectFrom('users')
    .select(['title', 'first_name', 'last_name', 'email', 'language', 'comment', 'custom1', 'custom2', 'access_rights', 'active', 'version', 'last_change_author', 'last_change_time'])
    .where('id', '=', id).executeTakeFirstOrThrow();
  const pathOf = (id: number) => `/admin/employees/${id}`;
  /** The version the details form of the user's page carries. */
  const openDetails = async (tab: WebClient, id: number) => {
    const page = await tab.get(pathOf(id));
    expect(page.status).toBe(200);
    return formVersion(page.text, `${pathOf(id)}/details`) as string;
  };
  const tomsDetails = { Title: '', FirstName: 'Tom', LastName: 'Becker', Email: 'tom@demo.example', Language: 'DE', Comment: '' };
  const saveDetails = (tab: WebClient, id: number, version: string | null, form: Record<string, string>) => tab.post(`${pathOf(id)}/details`, { version, ...form });
  const alert = (text: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(text)?.[1] ?? '';
  const fieldError = (text: string, name: string) => new RegExp(`id="d-${name}-error">([^<]*)<`).exec(text)?.[1];

  /** Tom's details as the seed made them, on whatever version the row has now. */
  async function resetTom(): Promise<void> {
    const row = await t.database.db.selectFrom('users').select(['first_name', 'last_name', 'email']).where('id', '=', t.tom.userId).executeTakeFirstOrThrow();
    Object.assign(tomsDetails, { FirstName: row.first_name, LastName: row.last_name, Email: row.email });
  }

  it('an administrator edits an employee\'s details: the page and the API\'s /Users show them, stamped with the author', async () => {
    await resetTom();
    await t.database.db.updateTable('account_settings').set({ user_custom2_label: 'Personalnummer' }).where('account_id', '=', t.accountId).execute();
    // Tom last changed long ago, so a sync client's digest since then counts him only once he is changed.
    await t.database.db.updateTable('users').set({ last_change_time: Date.UTC(2000, 0, 1) }).where('id', '=', t.tom.userId).execute();
    const changedUsers = async () => {
      const answer = await fetch(`${t.root}/GetChangesDigest?LastSynchronizationTime=datetime'2001-01-01T00:00:00'&$format=json`, { headers: { 'x-serviceapikey': t.jana.apiKey } });
      return ((await answer.json()) as { d: { GetChangesDigest: { ChangedUsers: number } } }).d.GetChangesDigest.ChangedUsers;
    };
    try {
      const changedBefore = await changedUsers();
      const before = await userRow(t.tom.userId);
      const page = await alexA.get(pathOf(t.tom.userId));
      // Only the labelled custom field is in the form, under its label.
      expect(page.text).toContain('<label for="d-Custom2">Personalnummer</label>');
      expect(page.text).not.toContain('name="Custom1"');
      const version = formVersion(page.text, `${pathOf(t.tom.userId)}/details`) as string;
      expect(version).toBe(String(before.version));
      const saved = await saveDetails(alexA, t.tom.userId, version, {
        Title: ' Dr. ', FirstName: 'Thomas', LastName: 'Bäcker', Email: 'Thomas.Baecker@demo.example', Language: 'EN', Comment: 'Teilzeit,\nmontags frei', Custom2: 'P-0042', Custom1: 'nicht im Formular',
      });
      expect(saved.status).toBe(303);
      expect(saved.location).toBe(`${pathOf(t.tom.userId)}?done=saved`);
      const after = await userRow(t.tom.userId);
      expect(after).toMatchObject({
        title: 'Dr.', first_name: 'Thomas', last_name: 'Bäcker', email: 'Thomas.Baecker@demo.example', language: 'EN', comment: 'Teilzeit,\nmontags frei',
        custom1: before.custom1, custom2: 'P-0042', version: before.version + 1, last_change_author: t.admin.userId,
      });
      expect(after.last_change_time).toBeGreaterThan(before.last_change_time);
      expect(await changedUsers()).toBe(changedBefore + 1);
      const shown = await alexA.get(`${pathOf(t.tom.userId)}?done=saved`);
      expect(shown.text).toContain('<h1>Thomas Bäcker</h1>');
      expect(shown.text).toContain('name="Email" value="Thomas.Baecker@demo.example"');
      expect(shown.text).toContain('<option value="EN" selected>English</option>');
      expect(shown.text).toContain('>Teilzeit,\nmontags frei</textarea>');
      expect(shown.text).toContain('name="Custom2" value="P-0042"');
      // The list and the API read the same row.
      expect((await alexA.get('/admin/employees')).text).toContain('Thomas Bäcker</a>');
      const api = await fetch(`${t.root}/Users(${t.tom.userId})?$format=json`, { headers: { 'x-serviceapikey': t.jana.apiKey } });
      expect(api.status).toBe(200);
      const { d } = await api.json() as { d: Record<string, unknown> };
      expect(d).toMatchObject({
        Title: 'Dr.', FirstName: 'Thomas', LastName: 'Bäcker', Email: 'Thomas.Baecker@demo.example', Language: 'EN', Comment: 'Teilzeit,\nmontags frei',
        Custom2: 'P-0042', LastChangeAuthor: t.admin.userId,
      });
      // The row version stays internal: the API's model has none for users.
      expect(d).not.toHaveProperty('version');
      expect(d).not.toHaveProperty('Version');
    } finally {
      await t.database.db.updateTable('account_settings').set({ user_custom2_label: null }).where('account_id', '=', t.accountId).execute();
      await resetTom();
    }
  });

  it('refuses an address another user of the account has (case aside) or that is none, with a form message in the page\'s language', async () => {
    await resetTom();
    const before = await userRow(t.tom.userId);
    const version = await openDetails(alexA, t.tom.userId);
    const taken = await saveDetails(alexA, t.tom.userId, version, { ...tomsDetails, Email: t.jana.email.toUpperCase() });
    expect(taken.status).toBe(422);
    expect(fieldError(taken.text, 'Email')).toBe('Diese E-Mail-Adresse hat schon einen Benutzer in diesem Konto.');
    // What was typed stays in the form, on the version it was made from.
    expect(taken.text).toContain(`name="Email" value="${t.jana.email.toUpperCase()}"`);
    expect(formVersion(taken.text, `${pathOf(t.tom.userId)}/details`)).toBe(version);
    const broken = await saveDetails(alexA, t.tom.userId, version, { ...tomsDetails, Email: 'tom at demo' });
    expect(broken.status).toBe(422);
    expect(fieldError(broken.text, 'Email')).toBe('Bitte eine gültige E-Mail-Adresse angeben.');
    // Another account's address is no concern of this one.
    expect((await saveDetails(alexA, t.tom.userId, version, { ...tomsDetails, Email: 'chef@fremd.example' })).status).toBe(303);
    expect((await userRow(t.tom.userId)).email).toBe('chef@fremd.example');
    alexA.cookies.set('tg_lang', 'en');
    try {
      const english = await saveDetails(alexA, t.tom.userId, await openDetails(alexA, t.tom.userId), { ...tomsDetails, Email: t.jana.email });
      expect(english.status).toBe(422);
      expect(english.text).toContain('<html lang="en">');
      expect(fieldError(english.text, 'Email')).toBe('This email address has a user in this account already.');
    } finally {
      alexA.cookies.delete('tg_lang');
    }
    expect((await saveDetails(alexA, t.tom.userId, await openDetails(alexA, t.tom.userId), { ...tomsDetails, Email: before.email })).status).toBe(303);
  });

  it('answers 404 for another account\'s user and ids that are none, and changes nothing', async () => {
    const before = await userRow(otherUserId);
    for (const id of [String(otherUserId), 'abc', '0', '99999999999']) {
      expect((await alexA.get(`/admin/employees/${id}`)).status, id).toBe(404);
      for (const [action, form] of [['details', { ...tomsDetails, Email: 'geklaut@demo.example' }], ['role', { role: 'user' }], ['active', { active: '0' }]] as const) {
        const answer = await alexA.post(`/admin/employees/${id}/${action}`, { version: String(before.version), ...form });
        expect(answer.status, `${id} ${action}`).toBe(404);
      }
    }
    expect(await userRow(otherUserId)).toEqual(before);
  });

  it('two administrators edit one employee: the second save gets the current values and a message, and overwrites nothing', async () => {
    await resetTom();
    const versionA = await openDetails(alexA, t.tom.userId);
    const pageB = await alexB.get(pathOf(t.tom.userId));
    const versionB = formVersion(pageB.text, `${pathOf(t.tom.userId)}/details`) as string;
    expect(versionB).toBe(versionA);
    expect(formVersion(pageB.text, `${pathOf(t.tom.userId)}/role`)).toBe(versionA);
    expect((await saveDetails(alexA, t.tom.userId, versionA, { ...tomsDetails, Comment: 'Von A' })).status).toBe(303);
    const second = await saveDetails(alexB, t.tom.userId, versionB, { ...tomsDetails, Comment: 'Von B' });
    expect(second.status).toBe(409);
    expect(alert(second.text)).toContain(CHANGED);
    expect(second.text).toContain('>Von A</textarea>');
    expect(second.text).not.toContain('Von B');
    const current = String(Number(versionA) + 1);
    expect(formVersion(second.text, `${pathOf(t.tom.userId)}/details`)).toBe(current);
    expect(await userRow(t.tom.userId)).toMatchObject({ comment: 'Von A', version: Number(current) });
    // B's role and access buttons are as old as B's page: refused too, nothing changed.
    for (const [action, form] of [['role', { role: 'admin' }], ['active', { active: '0' }]] as const) {
      const stale = await alexB.post(`${pathOf(t.tom.userId)}/${action}`, { version: versionB, ...form });
      expect(stale.status, action).toBe(409);
      expect(alert(stale.text)).toContain(CHANGED);
    }
    expect(await userRow(t.tom.userId)).toMatchObject({ comment: 'Von A', access_rights: 10, active: 1, version: Number(current) });
    // Made again on the current values, the change goes through.
    expect((await saveDetails(alexB, t.tom.userId, current, { ...tomsDetails, Comment: 'Von B, erneut' })).status).toBe(303);
    expect(await userRow(t.tom.userId)).toMatchObject({ comment: 'Von B, erneut', version: Number(current) + 1 });
  });

  it('of two saves from one version at the same moment exactly one is made', async () => {
    await resetTom();
    const version = await openDetails(alexA, t.tom.userId);
    await openDetails(alexB, t.tom.userId);
    const answers = await Promise.all([
      saveDetails(alexA, t.tom.userId, version, { ...tomsDetails, Comment: 'Erster' }),
      saveDetails(alexB, t.tom.userId, version, { ...tomsDetails, Comment: 'Zweiter' }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 409]);
    const winner = answers[0]?.status === 303 ? 'Erster' : 'Zweiter';
    expect(await userRow(t.tom.userId)).toMatchObject({ comment: winner, version: Number(version) + 1 });
    // A role change and a deactivation at once: one of them.
    const next = await openDetails(alexA, t.tom.userId);
    const access = await Promise.all([
      alexA.post(`${pathOf(t.tom.userId)}/role`, { version: next, role: 'admin' }),
      alexB.post(`${pathOf(t.tom.userId)}/active`, { version: next, active: '0' }),
    ]);
    expect(access.map((answer) => answer.status).sort()).toEqual([303, 409]);
    const row = await userRow(t.tom.userId);
    expect([row.access_rights === 20, row.active === 0].filter(Boolean)).toHaveLength(1);
    expect(row.version).toBe(Number(next) + 1);
    // Back as the seed made him (from the current version), for the tests after this one.
    const reset = await openDetails(alexA, t.tom.userId);
    await alexA.post(`${pathOf(t.tom.userId)}/${row.active === 0 ? 'active' : 'role'}`, row.active === 0 ? { version: reset, active: '1' } : { version: reset, role: 'user' });
    expect(await userRow(t.tom.userId)).toMatchObject({ access_rights: 10, active: 1 });
  });

  it('a missing or garbled version is a form error (400) with the current values, never a 500, and changes nothing', async () => {
    await resetTom();
    const before = await userRow(t.tom.userId);
    for (const version of [null, '', 'abc', '0', '-1', '1.0', '99999999999', 'W/"1"']) {
      const details = await saveDetails(alexA, t.tom.userId, version, { ...tomsDetails, Comment: 'Manipuliert' });
      expect(details.status, String(version)).toBe(400);
      expect(alert(details.text)).toContain(GARBLED);
      expect(details.text).not.toContain('Manipuliert');
      for (const [action, form] of [['role', { role: 'admin' }], ['active', { active: '0' }]] as const) {
        const answer = await alexA.post(`${pathOf(t.tom.userId)}/${action}`, { version, ...form });
        expect(answer.status, `${String(version)} ${action}`).toBe(400);
        expect(answer.text).toContain(GARBLED);
      }
    }
    expect(await userRow(t.tom.userId)).toEqual(before);
  });

  it('hostile input gets a form message in the page\'s language or 413, never a 500, and changes nothing', async () => {
    await resetTom();
    const before = await userRow(t.tom.userId);
    const version = await openDetails(alexA, t.tom.userId);
    const refusals: Array<[Record<string, string>, string, string]> = [
      [{ FirstName: 'T'.repeat(81) }, 'FirstName', 'Vorname: Höchstens 80 Zeichen.'],
      [{ LastName: '' }, 'LastName', 'Nachname: Bitte ausfüllen.'],
      [{ Title: 'T'.repeat(51) }, 'Title', 'Titel: Höchstens 50 Zeichen.'],
      [{ Comment: 'k'.repeat(1501) }, 'Comment', 'Kommentar: Höchstens 1500 Zeichen.'],
      [{ LastName: 'Becker\u0001\u0000' }, 'LastName', 'Nachname: Dieser Wert lässt sich nicht speichern (er enthält z. B. Steuerzeichen).'],
      [{ Email: `${'a'.repeat(80)}@demo.example` }, 'Email', 'E-Mail: Höchstens 80 Zeichen.'],
      [{ Language: 'Klingonisch' }, 'Language', 'Sprache: Dieser Wert lässt sich nicht speichern (er enthält z. B. Steuerzeichen).'],
    ];
    for (const [form, name, message] of refusals) {
      const refused = await saveDetails(alexA, t.tom.userId, version, { ...tomsDetails, ...form });
      expect(refused.status, message).toBe(422);
      expect(fieldError(refused.text, name), message).toBe(message);
    }
    alexA.cookies.set('tg_lang', 'en');
    try {
      const english = await saveDetails(alexA, t.tom.userId, version, { ...tomsDetails, FirstName: 'T'.repeat(81) });
      expect(english.status).toBe(422);
      expect(fieldError(english.text, 'FirstName')).toBe('First name: at most 80 characters.');
    } finally {
      alexA.cookies.delete('tg_lang');
    }
    // A megabyte of form is refused before any handler reads it.
    const huge = await saveDetails(alexA, t.tom.userId, version, { ...tomsDetails, Comment: 'x'.repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(await userRow(t.tom.userId)).toEqual(before);
  });

  it('an administrator edits their own details but has no role or access form there', async () => {
    const page = await alexA.get(pathOf(t.admin.userId));
    expect(page.text).not.toContain(`action="${pathOf(t.admin.userId)}/role"`);
    const version = formVersion(page.text, `${pathOf(t.admin.userId)}/details`) as string;
    const own = await userRow(t.admin.userId);
    const saved = await saveDetails(alexA, t.admin.userId, version, { Title: '', FirstName: own.first_name, LastName: own.last_name, Email: own.email, Language: 'DE', Comment: 'Chef' });
    expect(saved.status).toBe(303);
    expect(await userRow(t.admin.userId)).toMatchObject({ comment: 'Chef', access_rights: 20, active: 1 });
    expect((await alexA.get('/admin/employees')).status).toBe(200);
  });
});
