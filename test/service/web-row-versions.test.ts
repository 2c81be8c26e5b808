// The web forms' optimistic concurrency over real HTTP: every form that changes or deletes a row
// carries the version it was rendered from, and a write from a form older than the row (another
// tab, another person, an API client) is refused with the row's current values and a message in
// the page's language; nothing is overwritten. A row deleted meanwhile says so; a missing or
// garbled version is a form error (400), never a 500. The stopwatch buttons act on the running
// stopwatch as it is, not on a version a page showed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { DEMO_NOW, startTestService } from '../helpers/service.js';
import type { WebClient } from '../helpers/web-client.js';
import { WebClient as Browser, formVersion, signedInClient } from '../helpers/web-client.js';

const PASSWORD = 'ein-sicheres-passwort';
const CHANGED = 'Dieser Eintrag wurde inzwischen geändert (in einem anderen Fenster, von jemand anderem oder über die API). Ihre Änderung ist nicht gespeichert.';
const CHANGED_EN = 'This entry was changed in the meantime (in another window, by someone else or through the API). Your change has not been saved.';
const NOT_DELETED = 'Dieser Eintrag wurde inzwischen geändert (in einem anderen Fenster, von jemand anderem oder über die API) und ist deshalb nicht gelöscht.';
const GONE = 'Dieser Eintrag existiert nicht mehr: Er wurde inzwischen gelöscht. Es ist nichts gespeichert.';
const GARBLED = 'Dem Formular fehlt der Stand des Eintrags, aus dem es entstand, oder er wurde verfälscht. Es ist nichts gespeichert.';

describe.each(testDatabases)('web forms and row versions on $name', (kind) => {
  let t: TestService;
  /** Jana in two browsers (or two tabs of one: each has a session and a page of its own). */
  let tabA: WebClient;
  let tabB: WebClient;
  /** Alex, the administrator, in two browsers. */
  let alexA: WebClient;
  let alexB: WebClient;

  const signedInAgain = async (email: string): Promise<WebClient> => {
    const client = new Browser(t.origin);
    if ((await client.signIn(email, PASSWORD)).status !== 303) throw new Error(`${email} could not sign in`);
    return client;
  };

  beforeAll(async () => {
    t = await startTestService(kind);
    tabA = await signedInClient(t.origin, t.database, t.jana.userId, t.jana.email, PASSWORD);
    tabB = await signedInAgain(t.jana.email);
    alexA = await signedInClient(t.origin, t.database, t.admin.userId, t.admin.email, PASSWORD);
    alexB = await signedInAgain(t.admin.email);
  }, 60_000);
  afterAll(() => t?.close());

  const entryRow = (id: number) => t.database.db.selectFrom('time_entries').select(['comment', 'version', 'end_time']).where('id', '=', id).executeTakeFirst();
  const projectRow = (id: number) => t.database.db.selectFrom('projects').select(['name', 'active', 'version']).where('id', '=', id).executeTakeFirst();
  const api = (method: string, path: string, body?: unknown) => fetch(`${t.root}${path}`, {
    method,
    headers: { 'x-serviceapikey': t.jana.apiKey, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

  /** A finished entry of Jana's on 18 November, 09:00-10:00 UTC. */
  async function janasEntry(comment: string): Promise<number> {
    const start = Date.UTC(2026, 10, 18, 9);
    const row = await t.database.db.insertInto('time_entries').values({
      account_id: t.accountId, last_change_time: DEMO_NOW, last_change_author: t.jana.userId,
      type_id: 2, user_id: t.jana.userId, project_id: 1, start_time: start, end_time: start + 3_600_000, billable: 1, locked: 0, comment,
    }).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }

  /** The entry's edit form as a tab shows it: its version and the form's fields. */
  async function openEntry(tab: WebClient, id: number): Promise<string> {
    const page = await tab.get(`/timesheet/entries/${id}`);
    expect(page.status).toBe(200);
    return formVersion(page.text, `/timesheet/entries/${id}`) as string;
  }

  const saveEntry = (tab: WebClient, id: number, version: string | null, comment: string) =>
    tab.post(`/timesheet/entries/${id}`, { version, date: '2026-11-18', kind: '2', start: '09:00', end: '10:00', project: '1', comment });

  const alert = (text: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(text)?.[1] ?? '';

  it('two tabs on one entry: the first save wins, the second gets the current values and a message, and overwrites nothing', async () => {
    const id = await janasEntry('Anfang');
    const versionA = await openEntry(tabA, id);
    const versionB = await openEntry(tabB, id);
    expect(versionA).toBe('1');
    expect(versionB).toBe('1');
    expect((await saveEntry(tabA, id, versionA, 'Aus Tab A')).status).toBe(303);
    const second = await saveEntry(tabB, id, versionB, 'Aus Tab B');
    expect(second.status).toBe(409);
    expect(alert(second.text)).toContain(CHANGED);
    // The form shows what the entry is now, and carries its current version for the next save.
    expect(second.text).toContain('>Aus Tab A</textarea>');
    expect(second.text).not.toContain('Aus Tab B');
    expect(formVersion(second.text, `/timesheet/entries/${id}`)).toBe('2');
    expect(formVersion(second.text, `/timesheet/entries/${id}/delete`)).toBe('2');
    expect(await entryRow(id)).toMatchObject({ comment: 'Aus Tab A', version: 2 });
    // Made again on the current values, the change goes through.
    expect((await saveEntry(tabB, id, '2', 'Aus Tab B, erneut')).status).toBe(303);
    expect(await entryRow(id)).toMatchObject({ comment: 'Aus Tab B, erneut', version: 3 });
  });

  it('of two saves from one version at the same moment exactly one is made', async () => {
    const id = await janasEntry('Gleichzeitig');
    const version = await openEntry(tabA, id);
    await openEntry(tabB, id);
    const answers = await Promise.all([saveEntry(tabA, id, version, 'Erster'), saveEntry(tabB, id, version, 'Zweiter')]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 409]);
    const winner = answers[0]?.status === 303 ? 'Erster' : 'Zweiter';
    expect(await entryRow(id)).toMatchObject({ comment: winner, version: 2 });
  });

  it('a web edit after an API MERGE changed the entry is refused, and the API\'s change stays', async () => {
    const id = await janasEntry('Vor der API');
    const version = await openEntry(tabA, id);
    const merge = await api('MERGE', `/TimeEntries(${id})`, { Comment: 'Über die API' });
    expect(merge.status).toBe(204);
    expect(merge.headers.get('etag')).toBe('W/"2"');
    const saved = await saveEntry(tabA, id, version, 'Aus dem Formular');
    expect(saved.status).toBe(409);
    expect(alert(saved.text)).toContain(CHANGED);
    expect(saved.text).toContain('>Über die API</textarea>');
    expect(await entryRow(id)).toMatchObject({ comment: 'Über die API', version: 2 });
  });

  it('a form sent back for a typing error keeps the version it was made from, so a change meanwhile is still caught', async () => {
    const id = await janasEntry('Vor dem Tippfehler');
    const version = await openEntry(tabA, id);
    expect((await api('MERGE', `/TimeEntries(${id})`, { Comment: 'Inzwischen über die API' })).status).toBe(204);
    const typo = await tabA.post(`/timesheet/entries/${id}`, { version, date: '2026-11-18', kind: '2', start: '9 Uhr', end: '10:00', project: '1', comment: 'Mit Tippfehler' });
    expect(typo.status).toBe(422);
    expect(typo.text).toContain('>Mit Tippfehler</textarea>');
    expect(formVersion(typo.text, `/timesheet/entries/${id}`)).toBe(version);
    const fixed = await saveEntry(tabA, id, formVersion(typo.text, `/timesheet/entries/${id}`) as string, 'Mit Tippfehler');
    expect(fixed.status).toBe(409);
    expect(await entryRow(id)).toMatchObject({ comment: 'Inzwischen über die API', version: 2 });
  });

  it('a delete from a page older than the entry is refused, and the entry stays', async () => {
    const id = await janasEntry('Nicht löschen');
    const version = await openEntry(tabA, id);
    expect((await saveEntry(tabB, id, version, 'Inzwischen geändert')).status).toBe(303);
    const deleted = await tabA.post(`/timesheet/entries/${id}/delete`, { version });
    expect(deleted.status).toBe(409);
    expect(alert(deleted.text)).toContain(NOT_DELETED);
    expect(deleted.text).toContain('>Inzwischen geändert</textarea>');
    expect(await entryRow(id)).toMatchObject({ comment: 'Inzwischen geändert', version: 2 });
    // With the current version, it goes.
    expect((await tabA.post(`/timesheet/entries/${id}/delete`, { version: formVersion(deleted.text, `/timesheet/entries/${id}/delete`) as string })).status).toBe(303);
    expect(await entryRow(id)).toBeUndefined();
  });

  it('an edit or delete of an entry deleted meanwhile says it was deleted', async () => {
    const id = await janasEntry('Gleich weg');
    const version = await openEntry(tabA, id);
    expect((await api('DELETE', `/TimeEntries(${id})`)).status).toBe(204);
    for (const answer of [await saveEntry(tabA, id, version, 'Zu spät'), await tabA.post(`/timesheet/entries/${id}/delete`, { version })]) {
      expect(answer.status).toBe(404);
      expect(alert(answer.text)).toBe(GONE);
    }
    expect(await entryRow(id)).toBeUndefined();
  });

  it('a missing or garbled version is a form error (400) with the current values, never a 500, and changes nothing', async () => {
    const id = await janasEntry('Unversehrt');
    await openEntry(tabA, id);
    for (const version of [null, '', 'abc', '0', '-1', '1.0', '1e0', '99999999999', 'W/"1"']) {
      for (const answer of [await saveEntry(tabA, id, version, 'Manipuliert'), await tabA.post(`/timesheet/entries/${id}/delete`, { version })]) {
        expect(answer.status, String(version)).toBe(400);
        expect(alert(answer.text)).toContain(GARBLED);
        expect(answer.text).toContain('>Unversehrt</textarea>');
      }
    }
    // A version that is a number but not the entry's is a form older (or newer) than the entry.
    const tampered = await saveEntry(tabA, id, '7', 'Manipuliert');
    expect(tampered.status).toBe(409);
    expect(alert(tampered.text)).toContain(CHANGED);
    expect(await entryRow(id)).toMatchObject({ comment: 'Unversehrt', version: 1 });
  });

  it('speaks the page\'s language', async () => {
    const id = await janasEntry('Englisch');
    const version = await openEntry(tabA, id);
    expect((await api('MERGE', `/TimeEntries(${id})`, { Comment: 'Geändert' })).status).toBe(204);
    tabA.cookies.set('tg_lang', 'en');
    try {
      const saved = await saveEntry(tabA, id, version, 'Changed here');
      expect(saved.status).toBe(409);
      expect(alert(saved.text)).toContain(CHANGED_EN);
      expect(saved.text).toContain('<html lang="en">');
    } finally {
      tabA.cookies.delete('tg_lang');
    }
  });

  it('the stopwatch buttons act on the running stopwatch as it is: halting it after an API change of its entry halts it', async () => {
    await tabA.get('/stopwatch');
    expect((await tabA.post('/stopwatch/start', { project: '1', comment: 'Läuft' })).status).toBe(303);
    const running = await (await api('GET', '/CurrentStopWatch')).json() as { d: { ID: number } };
    expect((await api('MERGE', `/TimeEntries(${running.d.ID})`, { Comment: 'Über die API umbenannt' })).status).toBe(204);
    expect((await tabA.post('/stopwatch/halt')).status).toBe(303);
    const halted = await entryRow(running.d.ID);
    expect(halted?.end_time).not.toBeNull();
    expect(halted?.comment).toBe('Über die API umbenannt');
  });

  it('two administrators rename one project: the second gets the current name and a message; a stale archive button is refused too', async () => {
    const project = await t.database.db.insertInto('projects').values({
      account_id: t.accountId, last_change_time: DEMO_NOW, last_change_author: t.admin.userId, name: 'Altname', active: 1,
    }).returning('id').executeTakeFirstOrThrow();
    const path = `/admin/projects/${project.id}`;
    const pageA = await alexA.get(path);
    const pageB = await alexB.get(path);
    const list = await alexB.get('/admin/projects');
    const versionA = formVersion(pageA.text, path) as string;
    const versionB = formVersion(pageB.text, path) as string;
    expect([versionA, versionB, formVersion(list.text, `${path}/active`)]).toEqual(['1', '1', '1']);
    expect((await alexA.post(path, { version: versionA, Name: 'Name von A' })).status).toBe(303);
    const second = await alexB.post(path, { version: versionB, Name: 'Name von B' });
    expect(second.status).toBe(409);
    expect(alert(second.text)).toContain(CHANGED);
    expect(second.text).toContain('name="Name" value="Name von A"');
    expect(formVersion(second.text, path)).toBe('2');
    expect(await projectRow(project.id)).toEqual({ name: 'Name von A', active: 1, version: 2 });
    // The list B loaded before the rename: its archive button is as old as its names.
    const archived = await alexB.post(`${path}/active`, { version: '1', active: '0' });
    expect(archived.status).toBe(409);
    expect(alert(archived.text)).toContain(CHANGED);
    expect(await projectRow(project.id)).toEqual({ name: 'Name von A', active: 1, version: 2 });
    expect((await alexB.post(`${path}/active`, { version: '2', active: '0' })).status).toBe(303);
    expect(await projectRow(project.id)).toEqual({ name: 'Name von A', active: 0, version: 3 });
    // Garbled: a form error, nothing changed.
    for (const version of [null, 'zwei', '3;drop']) {
      const answer = await alexA.post(path, { version, Name: 'Manipuliert' });
      expect(answer.status, String(version)).toBe(400);
      expect(alert(answer.text)).toContain(GARBLED);
      expect((await alexA.post(`${path}/active`, { version, active: '1' })).status).toBe(400);
    }
    expect(await projectRow(project.id)).toEqual({ name: 'Name von A', active: 0, version: 3 });
  });

  it('an edit of a client deleted meanwhile through the API says it was deleted', async () => {
    const client = await t.database.db.insertInto('clients').values({
      account_id: t.accountId, last_change_time: DEMO_NOW, last_change_author: t.admin.userId, name: 'Kurzlebig', active: 1,
    }).returning('id').executeTakeFirstOrThrow();
    const path = `/admin/clients/${client.id}`;
    const version = formVersion((await alexA.get(path)).text, path) as string;
    const removed = await fetch(`${t.root}/Clients(${client.id})`, { method: 'DELETE', headers: { 'x-serviceapikey': t.admin.apiKey } });
    expect(removed.status).toBe(204);
    const answer = await alexA.post(path, { version, Name: 'Zu spät' });
    expect(answer.status).toBe(404);
    expect(answer.text).toContain(GONE);
    expect(await t.database.db.selectFrom('clients').select('id').where('id', '=', client.id).execute()).toEqual([]);
  });
});
