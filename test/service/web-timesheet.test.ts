// The web interface's pages over real HTTP, signed in as the demo employee Jana: her week and
// nobody else's, adding, editing and deleting entries under the API's rules and messages (German,
// or English on an English page), other people's and other accounts' entry ids answered 404, the
// page's stopwatch being the API's, and her API keys made and revoked in the profile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../service/accounts/account-admin.js';
import { durationString } from '../../service/timetracking/sets/time-entries.js';
import { instantOf } from '../../service/web/clock.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { DEMO_NOW, startTestService } from '../helpers/service.js';
import type { WebClient } from '../helpers/web-client.js';
import { formVersion, signedInClient } from '../helpers/web-client.js';

const WEEK = '2026-11-16';

describe.each(testDatabases)('web timesheet on $name', (kind) => {
  let t: TestService;
  let jana: WebClient;
  let otherAccountEntry: number;
  /** The demo account's zone: the wall clock of its pages. */
  let ZONE: string;

  beforeAll(async () => {
    t = await startTestService(kind);
    // A zone with summer time, so the wall clock is not UTC's.
    ZONE = 'Europe/Berlin';
    await t.database.db.updateTable('account_settings').set({ time_zone: ZONE }).where('account_id', '=', t.accountId).execute();
    jana = await signedInClient(t.origin, t.database, t.jana.userId, t.jana.email);
    const other = await createAccount(t.database.db, { name: 'Fremd GmbH', adminEmail: 'chef@fremd.example' });
    const stamp = { account_id: other.accountId, last_change_time: DEMO_NOW, last_change_author: other.userId };
    const project = await t.database.db.insertInto('projects').values({ ...stamp, name: 'Fremd', active: 1 }).returning('id').executeTakeFirstOrThrow();
    otherAccountEntry = (await t.database.db.insertInto('time_entries').values({
      ...stamp, type_id: 2, user_id: other.userId, project_id: project.id, start_time: DEMO_NOW - 3_600_000, end_time: DEMO_NOW, billable: 1, locked: 0,
    }).returning('id').executeTakeFirstOrThrow()).id;
  }, 60_000);
  afterAll(() => t?.close());

  const api = (path: string, key = t.jana.apiKey) => fetch(`${t.root}${path}${path.includes('?') ? '&' : '?'}$format=json`, { headers: { 'x-serviceapikey': key } });
  const entryRow = (id: number) => t.database.db.selectFrom('time_entries').selectAll().where('id', '=', id).executeTakeFirst();
  const weekRows = (userId: number) => t.database.db.selectFrom('time_entries').select(['id', 'start_time', 'end_time'])
    .where('user_id', '=', userId).where('start_time', '>=', instantOf(WEEK, 0, ZONE)).where('start_time', '<', instantOf('2026-11-23', 0, ZONE)).execute();
  const entryIds = (page: string) => [...page.matchAll(/data-entry="(\d+)"/g)].map((m) => Number(m[1])).sort((a, b) => a - b);

  it('shows her own week with totals per day and week, and no colleague\'s entry', async () => {
    const page = await jana.get(`/timesheet?week=2026-11-18`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Woche vom 16. Nov. 2026 bis 22. Nov. 2026');
    const mine = await weekRows(t.jana.userId);
    expect(mine.length).toBeGreaterThan(10);
    expect(entryIds(page.text)).toEqual(mine.map((row) => row.id).sort((a, b) => a - b));
    const toms = await weekRows(t.tom.userId);
    expect(toms.length).toBeGreaterThan(10);
    for (const row of toms) expect(page.text).not.toContain(`data-entry="${row.id}"`);
    const total = mine.reduce((sum, row) => sum + Math.floor(((row.end_time ?? 0) - row.start_time) / 1000), 0);
    expect(page.text).toContain(`data-total="week">${durationString(total)}<`);
    const thursday = mine.filter((row) => row.start_time >= instantOf('2026-11-19', 0, ZONE) && row.start_time < instantOf('2026-11-20', 0, ZONE));
    const thursdayTotal = thursday.reduce((sum, row) => sum + Math.floor(((row.end_time ?? 0) - row.start_time) / 1000), 0);
    expect(page.text).toContain(`data-total="2026-11-19">${durationString(thursdayTotal)}<`);
    expect(page.text).toContain('href="/timesheet?week=2026-11-09"');
    expect(page.text).toContain('href="/timesheet?week=2026-11-23"');
  });

  it('marks a non-billable entry in words, and a new entry\'s form leads back to its week', async () => {
    const nonBillable = await t.database.db.selectFrom('time_entries').select('id').where('user_id', '=', t.jana.userId).where('billable', '=', 0)
      .where('start_time', '>=', instantOf(WEEK, 0, ZONE)).where('start_time', '<', instantOf('2026-11-23', 0, ZONE)).execute();
    expect(nonBillable.length).toBeGreaterThan(0);
    const item = (page: string, id: number) => page.slice(page.indexOf(`data-entry="${id}"`), page.indexOf('</li>', page.indexOf(`data-entry="${id}"`)));
    const german = await jana.get(`/timesheet?week=${WEEK}`);
    for (const { id } of nonBillable) expect(item(german.text, id)).toContain('<span class="tag">Nicht abrechenbar</span>');
    expect(german.text).not.toContain('Abrechenbar: –');
    const english = await jana.get(`/timesheet?week=${WEEK}`, { 'accept-language': 'en' });
    expect(item(english.text, (nonBillable[0] as { id: number }).id)).toContain('<span class="tag">Non-billable</span>');
    const form = await jana.get('/timesheet/new?date=2026-11-18');
    expect(form.text).toContain('<a href="/timesheet?week=2026-11-18">Abbrechen</a>');
  });

  it('answers 404 for a colleague\'s or another account\'s entry id in an edit URL, and changes nothing through it', async () => {
    const tomsEntry = (await weekRows(t.tom.userId))[0]?.id as number;
    const before = await entryRow(tomsEntry);
    for (const id of [tomsEntry, otherAccountEntry, 999_999_999, 0]) {
      await jana.get('/timesheet');
      expect((await jana.get(`/timesheet/entries/${id}`)).status).toBe(404);
      expect((await jana.post(`/timesheet/entries/${id}`, { date: '2026-11-18', kind: '2', start: '09:00', end: '10:00', project: '1' })).status).toBe(404);
      expect((await jana.post(`/timesheet/entries/${id}/delete`)).status).toBe(404);
    }
    for (const id of ['abc', '1e3', '-1', '99999999999999999999']) expect((await jana.get(`/timesheet/entries/${id}`)).status).toBe(404);
    expect(await entryRow(tomsEntry)).toEqual(before);
    expect(await entryRow(otherAccountEntry)).toBeDefined();
  });

  it('adds a start/end entry and a duration entry, edits and deletes one, as the API stores them', async () => {
    await jana.get('/timesheet/new?date=2026-11-18');
    const added = await jana.post('/timesheet/new', { date: '2026-11-18', kind: '2', start: '19:00', end: '20:15', project: '1', task: '2', comment: 'Abends', billable: '1' });
    expect(added.status).toBe(303);
    expect(added.location).toBe('/timesheet?week=2026-11-18&done=saved');
    const created = await t.database.db.selectFrom('time_entries').selectAll().where('user_id', '=', t.jana.userId).where('comment', '=', 'Abends').executeTakeFirstOrThrow();
    expect(created).toMatchObject({ type_id: 2, project_id: 1, task_id: 2, billable: 1, start_time: instantOf('2026-11-18', 19 * 60, ZONE), end_time: instantOf('2026-11-18', 20 * 60 + 15, ZONE) });

    const duration = await jana.post('/timesheet/new', { date: '2026-11-17', kind: '1', duration: '1:30', project: '3', comment: 'Dauer' });
    expect(duration.status).toBe(303);
    const stored = await t.database.db.selectFrom('time_entries').selectAll().where('comment', '=', 'Dauer').executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ type_id: 1, start_time: instantOf('2026-11-17', 0, ZONE), end_time: instantOf('2026-11-17', 90, ZONE), billable: 0 });

    const week = await jana.get('/timesheet?week=2026-11-18&done=saved');
    expect(week.text).toContain('Gespeichert.');
    expect(entryIds(week.text)).toContain(created.id);

    const edit = await jana.get(`/timesheet/entries/${created.id}`);
    expect(edit.text).toContain('value="19:00"');
    const version = formVersion(edit.text, `/timesheet/entries/${created.id}`) as string;
    expect((await jana.post(`/timesheet/entries/${created.id}`, { version, date: '2026-11-18', kind: '2', start: '19:00', end: '21:00', project: '1', task: '2', comment: 'Länger' })).status).toBe(303);
    expect(await entryRow(created.id)).toMatchObject({ end_time: instantOf('2026-11-18', 21 * 60, ZONE), comment: 'Länger', billable: 0 });
    const viaApi = await (await api(`/TimeEntries(${created.id})`)).json() as { d: { Comment: string; DurationSeconds: number } };
    expect(viaApi.d).toMatchObject({ Comment: 'Länger', DurationSeconds: 7200 });

    const edited = await jana.get(`/timesheet/entries/${created.id}`);
    const deleted = await jana.post(`/timesheet/entries/${created.id}/delete`, { version: formVersion(edited.text, `/timesheet/entries/${created.id}/delete`) as string });
    expect(deleted.location).toBe('/timesheet?week=2026-11-18&done=deleted');
    expect(await entryRow(created.id)).toBeUndefined();
    expect((await api(`/TimeEntries(${created.id})`)).status).toBe(404);
  });

  it('refuses what the API refuses, with the service\'s German messages beside the field', async () => {
    await jana.get('/timesheet/new');
    const noProject = await jana.post('/timesheet/new', { date: '2026-11-18', kind: '2', start: '08:00', end: '09:00', project: '' });
    expect(noProject.status).toBe(422);
    expect(noProject.text).toMatch(/<p class="field-error" id="project-error">Der Zeiteintrag kann nicht gespeichert werden: ProjectID ist ein Pflichtfeld\.<\/p>/);
    const backwards = await jana.post('/timesheet/new', { date: '2026-11-18', kind: '2', start: '10:00', end: '09:00', project: '1' });
    expect(backwards.text).toMatch(/id="end-error">Der Zeiteintrag kann nicht gespeichert werden: Die Endzeit \(EndTime\) liegt vor der Startzeit/);
    // The archived project is not offered, and not accepted either.
    expect(noProject.text).not.toContain('Kassensystem');
    const archived = await jana.post('/timesheet/new', { date: '2026-11-18', kind: '2', start: '08:00', end: '09:00', project: '5' });
    expect(archived.text).toContain('Auf das Projekt 5 darf nicht gebucht werden');
    const badTime = await jana.post('/timesheet/new', { date: '2026-02-30', kind: '2', start: '25:00', end: 'x', project: '1' });
    expect(badTime.status).toBe(422);
    expect(badTime.text).toContain('id="date-error"');
    expect(badTime.text).toContain('id="start-error"');
    const tooLong = await jana.post('/timesheet/new', { date: '2026-11-18', kind: '2', start: '08:00', end: '09:00', project: '1', comment: 'x'.repeat(1501) });
    expect(tooLong.text).toContain('Comment darf höchstens 1500 Zeichen lang sein.');
    // What was typed stays in the form.
    expect(tooLong.text).toContain('value="08:00"');
  });

  it('on an English page refuses with the rules\' English messages, and nothing is stored', async () => {
    const english = { 'accept-language': 'en' };
    const before = (await weekRows(t.jana.userId)).length;
    await jana.get('/timesheet/new', english);
    const post = (form: Record<string, string>) => jana.post('/timesheet/new', { date: '2026-11-18', kind: '2', start: '08:00', end: '09:00', ...form }, english);
    const noProject = await post({ project: '' });
    expect(noProject.status).toBe(422);
    expect(noProject.text).toContain('<html lang="en">');
    expect(noProject.text).toContain('<p class="field-error" id="project-error">The time entry cannot be saved: ProjectID is required.</p>');
    expect((await post({ start: '10:00', project: '1' })).text)
      .toContain('id="end-error">The time entry cannot be saved: The end time (EndTime) is before the start time (StartTime).</p>');
    const archived = await post({ project: '5' });
    expect(archived.text).toContain('The time entry cannot be saved: Project 5 cannot be booked on (not assigned or archived).');
    expect(archived.text).not.toContain('Auf das Projekt');
    expect((await post({ project: '1', comment: 'x'.repeat(1501) })).text)
      .toContain('id="comment-error">The time entry cannot be saved: Comment must be at most 1500 characters long.</p>');
    // The stopwatch page's refusals too (StartStopWatch's own length check).
    const running = () => t.database.db.selectFrom('time_entries').select('id').where('user_id', '=', t.jana.userId).where('end_time', 'is', null).execute();
    const runningBefore = await running();
    const stopwatch = await jana.post('/stopwatch/start', { project: '1', comment: 'y'.repeat(1501) }, english);
    expect(stopwatch.status).toBe(422);
    expect(stopwatch.text).toContain('The time entry cannot be saved: Comment must be at most 1500 characters long.');
    expect(await running()).toEqual(runningBefore);
    expect((await weekRows(t.jana.userId)).length).toBe(before);
  });

  it('shows locked entries read-only and refuses to change or delete them', async () => {
    const locked = await t.database.db.selectFrom('time_entries').selectAll().where('user_id', '=', t.jana.userId).where('locked', '=', 1).executeTakeFirstOrThrow();
    const page = await jana.get(`/timesheet/entries/${locked.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Dieser Eintrag kann nicht mehr geändert werden.');
    expect(page.text).toContain('<fieldset disabled>');
    const version = formVersion(page.text, `/timesheet/entries/${locked.id}`) as string;
    const change = await jana.post(`/timesheet/entries/${locked.id}`, { version, date: '2026-10-01', kind: '2', start: '08:00', end: '09:00', project: String(locked.project_id) });
    expect(change.status).toBe(403);
    expect(change.text).toContain('Der Zeiteintrag ist gesperrt');
    expect((await jana.post(`/timesheet/entries/${locked.id}/delete`, { version })).status).toBe(403);
    expect(await entryRow(locked.id)).toEqual(locked);
  });

  it('refuses entries in the closed booking period', async () => {
    await t.database.db.updateTable('account_settings').set({ booking_close_date: instantOf('2026-11-01', 0, ZONE) }).execute();
    try {
      await jana.get('/timesheet/new');
      const closed = await jana.post('/timesheet/new', { date: '2026-10-20', kind: '1', duration: '2:00', project: '1', comment: 'zu spät' });
      expect(closed.status).toBe(422);
      expect(closed.text).toContain('Der Buchungszeitraum vor dem 2026-11-01 ist abgeschlossen.');
      const english = await jana.post('/timesheet/new', { date: '2026-10-20', kind: '1', duration: '2:00', project: '1', comment: 'zu spät' }, { 'accept-language': 'en' });
      expect(english.status).toBe(422);
      expect(english.text).toContain('The booking period before 2026-11-01 is closed.');
      expect(english.text).not.toContain('Buchungszeitraum');
      expect(await t.database.db.selectFrom('time_entries').select('id').where('comment', '=', 'zu spät').execute()).toEqual([]);
    } finally {
      await t.database.db.updateTable('account_settings').set({ booking_close_date: null }).execute();
    }
  });

  it('stops at the ends of the calendar: the week of 9999-12-27 ends on 31 December, the week of 0001-01-01 has none before it', async () => {
    const stamp = { account_id: t.accountId, user_id: t.jana.userId, project_id: 1, type_id: 2, billable: 1 as const, locked: 0 as const, last_change_time: DEMO_NOW, last_change_author: t.jana.userId };
    const insert = async (date: string, from: number, to: number) => (await t.database.db.insertInto('time_entries')
      .values({ ...stamp, start_time: instantOf(date, from, ZONE), end_time: instantOf(date, to, ZONE) }).returning('id').executeTakeFirstOrThrow()).id;
    const last = await insert('9999-12-31', 22 * 60, 23 * 60 + 30);
    const first = await insert('0001-01-01', 9 * 60, 10 * 60);

    const end = await jana.get('/timesheet?week=9999-12-29');
    expect(end.status).toBe(200);
    expect(entryIds(end.text)).toContain(last);
    expect(end.text).toContain('data-total="9999-12-31">01:30<');
    expect(end.text).toContain('data-total="week">01:30<');
    // Five days (27 to 31 December), no day of year 10000, no week after it.
    expect([...end.text.matchAll(/<section class="day/g)]).toHaveLength(5);
    expect(end.text).not.toMatch(/10000-|\+0?10000/);
    expect(end.text).not.toContain('rel="next"');
    expect(end.text).toContain('href="/timesheet?week=9999-12-20" rel="prev"');
    expect(end.text).toContain('from=9999-12-27&amp;to=9999-12-31&amp;');
    const lastWeek = await jana.download('/reports/export?from=9999-12-27&to=9999-12-31&format=csv&delimiter=%3B');
    expect(lastWeek.status).toBe(200);
    expect(lastWeek.bytes.toString('utf8')).toContain('9999-12-31');

    const start = await jana.get('/timesheet?week=0001-01-07', { 'accept-language': 'en' });
    expect(start.status).toBe(200);
    expect(entryIds(start.text)).toContain(first);
    expect(start.text).toContain('data-total="0001-01-01">01:00<');
    expect(start.text).not.toContain('rel="prev"');
    expect(start.text).toContain('href="/timesheet?week=0001-01-08" rel="next"');
    const firstWeek = await jana.download('/reports/export?from=0001-01-01&to=0001-01-07&format=csv&delimiter=%3B');
    expect(firstWeek.status).toBe(200);
    expect(firstWeek.bytes.toString('utf8')).toContain('0001-01-01');
    // A year below 100 is that year, not 19xx.
    expect((await jana.get('/timesheet?week=0050-03-01')).text).toContain('id="d-0050-03-01"');

    for (const week of ['10000-01-03', '+010000-01-03', '0000-12-31', '9999-12-32', 'neulich']) {
      const page = await jana.get(`/timesheet?week=${encodeURIComponent(week)}`);
      expect(page.status, week).toBe(400);
      expect(page.text).toContain('Diese Woche gibt es nicht: bitte ein Datum zwischen 0001-01-01 und 9999-12-31 angeben.');
    }
    expect((await jana.get('/timesheet?week=10000-01-03', { 'accept-language': 'en' })).text)
      .toContain('There is no such week: please give a date between 0001-01-01 and 9999-12-31.');
  });

  it('refuses an entry that would end past the calendar beside its duration, and takes one on its first day', async () => {
    const form = await jana.get('/timesheet/new?date=9999-12-31');
    expect(form.text).toContain('value="9999-12-31"');
    const tooLong = await jana.post('/timesheet/new', { date: '9999-12-31', kind: '1', duration: '999:59', project: '1', comment: 'Jahr 10000' });
    expect(tooLong.status).toBe(422);
    expect(tooLong.text).toMatch(/id="duration-error">Der Zeiteintrag kann nicht gespeichert werden: EndTime liegt außerhalb des Kalenders/);
    expect(tooLong.text).toContain('value="999:59"');
    expect(await t.database.db.selectFrom('time_entries').select('id').where('comment', '=', 'Jahr 10000').execute()).toEqual([]);

    const early = await jana.post('/timesheet/new', { date: '0001-01-01', kind: '2', start: '08:00', end: '09:00', project: '1', comment: 'Jahr 1' });
    expect(early.status).toBe(303);
    expect(early.location).toBe('/timesheet?week=0001-01-01&done=saved');
    const stored = await t.database.db.selectFrom('time_entries').selectAll().where('comment', '=', 'Jahr 1').executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ start_time: instantOf('0001-01-01', 8 * 60, ZONE), end_time: instantOf('0001-01-01', 9 * 60, ZONE) });
    expect(new Date(stored.start_time).toISOString()).toBe('0001-01-01T07:06:32.000Z');
  });

  it('the page\'s stopwatch is the API\'s: started here, current there; halted there, finished here', async () => {
    await jana.get('/stopwatch');
    expect((await jana.post('/stopwatch/start', { project: '1', task: '2', comment: 'Seite', billable: '1' })).status).toBe(303);
    const current = await (await api('/CurrentStopWatch')).json() as { d: { ID: number; ProjectID: number; Comment: string } };
    expect(current.d).toMatchObject({ ProjectID: 1, Comment: 'Seite' });
    const page = await jana.get('/stopwatch');
    expect(page.text).toContain('Läuft seit');
    expect(page.text).toContain('id="elapsed"');
    // A second start halts the first, as StartStopWatch does.
    expect((await jana.post('/stopwatch/start', { project: '3', comment: 'Zweite' })).status).toBe(303);
    expect((await entryRow(current.d.ID))?.end_time).not.toBeNull();
    const halted = await api('/HaltStopWatch');
    expect(halted.status).toBe(200);
    const after = await jana.get('/stopwatch');
    expect(after.text).toContain('Keine Stoppuhr läuft.');
    expect(after.text).toContain('Zweite');
    expect(after.text).toContain('<h2 id="today">Heute gebucht</h2>');
    expect((await jana.get('/stopwatch/state')).text).toBe('{"running":null}');
    // Not bookable: refused with the rule's message, nothing started.
    const refused = await jana.post('/stopwatch/start', { project: '5' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('Auf das Projekt 5 darf nicht gebucht werden');
    expect((await api('/CurrentStopWatch')).status).toBe(404);
  });

  it('makes an API key shown once that reads her entries, and revokes it to 401; another\'s key id is 404', async () => {
    await jana.get('/profile');
    const made = await jana.post('/profile/keys');
    expect(made.status).toBe(201);
    expect(made.headers.get('cache-control')).toBe('no-store');
    const key = /<code id="new-key">(tg_[\w-]+)<\/code>/.exec(made.text)?.[1] as string;
    expect(key).toBeDefined();
    expect(made.text).toContain(`curl -H &quot;X-ServiceApiKey: ${key}&quot;`);
    const entries = await api('/TimeEntries?$top=100', key);
    expect(entries.status).toBe(200);
    const users = new Set(((await entries.json()) as { d: { results: Array<{ UserID: number }> } }).d.results.map((e) => e.UserID));
    expect([...users]).toEqual([t.jana.userId]);
    const listed = await jana.get('/profile');
    expect(listed.text).toContain(`${key.slice(0, 9)}…`);
    // Used a moment ago (to the minute); a key never used says so.
    const row = listed.text.slice(listed.text.indexOf(`${key.slice(0, 9)}…`));
    expect(row.slice(0, row.indexOf('</tr>'))).not.toContain(' nie</td>');
    await t.database.db.insertInto('api_keys').values({ account_id: t.accountId, user_id: t.jana.userId, hash: 'f'.repeat(64), prefix: 'tg_unused', created_at: Date.now() }).execute();
    const unused = (await jana.get('/profile')).text;
    const unusedRow = unused.slice(unused.indexOf('tg_unused…'));
    expect(unusedRow.slice(0, unusedRow.indexOf('</tr>'))).toContain('<td><span class="cell-label">Zuletzt benutzt</span> nie</td>');
    expect(listed.text).not.toContain(key);

    const tomsKey = await t.database.db.selectFrom('api_keys').select('id').where('user_id', '=', t.tom.userId).executeTakeFirstOrThrow();
    expect((await jana.post(`/profile/keys/${tomsKey.id}/revoke`)).status).toBe(404);
    expect((await api('/TimeEntries?$top=1', t.tom.apiKey)).status).toBe(200);

    const id = /action="\/profile\/keys\/(\d+)\/revoke"/.exec(listed.text)?.[1] as string;
    expect((await jana.post(`/profile/keys/${id}/revoke`)).location).toBe('/profile?done=revoked');
    expect((await api('/TimeEntries?$top=1', key)).status).toBe(401);
  });
});
