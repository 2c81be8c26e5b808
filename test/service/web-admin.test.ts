// The administration pages over real HTTP: Alex (administrator) manages employees, clients,
// projects, tasks, the account settings and the team's entries under the API's rules and their
// messages (German, or English on an English page); Jana (standard user) never sees them (404 on every URL, whatever the method); ids of
// another account answer 404; hostile input (empty, overlong, wrong types, foreign ids, no CSRF
// token) is refused with the field's message and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../service/accounts/account-admin.js';
import { instantOf } from '../../service/web/clock.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { DEMO_NOW, startTestService } from '../helpers/service.js';
import { WebClient, formVersion, signedInClient } from '../helpers/web-client.js';

describe.each(testDatabases)('administration pages on $name', (kind) => {
  let t: TestService;
  let alex: WebClient;
  let jana: WebClient;
  let other: { accountId: number; userId: number; clientId: number; projectId: number; taskId: number };

  beforeAll(async () => {
    t = await startTestService(kind);
    alex = await signedInClient(t.origin, t.database, t.admin.userId, t.admin.email);
    jana = await signedInClient(t.origin, t.database, t.jana.userId, t.jana.email);
    const account = await createAccount(t.database.db, { name: 'Fremd GmbH', adminEmail: 'chef@fremd.example' });
    const stamp = { account_id: account.accountId, last_change_time: DEMO_NOW, last_change_author: account.userId };
    const client = await t.database.db.insertInto('clients').values({ ...stamp, name: 'Fremdkunde', active: 1 }).returning('id').executeTakeFirstOrThrow();
    const project = await t.database.db.insertInto('projects').values({ ...stamp, name: 'Fremdprojekt', active: 1 }).returning('id').executeTakeFirstOrThrow();
    const task = await t.database.db.insertInto('tasks').values({ ...stamp, description: 'Fremdtätigkeit', active: 1, billable: 1 }).returning('id').executeTakeFirstOrThrow();
    other = { accountId: account.accountId, userId: account.userId, clientId: client.id, projectId: project.id, taskId: task.id };
  }, 60_000);
  afterAll(() => t?.close());

  it('shows the administration link to administrators only', async () => {
    expect((await alex.get('/stopwatch')).text).toContain('href="/admin"');
    expect((await jana.get('/stopwatch')).text).not.toContain('href="/admin"');
  });

  it('answers a standard user 404 on every administration URL and changes nothing', async () => {
    for (const path of ['/admin', '/admin/employees', '/admin/employees/1', '/admin/clients', '/admin/clients/new', '/admin/clients/1',
      '/admin/projects', '/admin/projects/1', '/admin/tasks', '/admin/tasks/1', '/admin/settings', '/admin/entries', '/admin/entries/export?format=csv',
      '/admin/entries/export?format=xlsx&user=1', '/admin/nothing']) {
      const page = await jana.get(path);
      expect(page.status, path).toBe(404);
      expect(page.text, path).toContain('Diese Seite gibt es nicht.');
    }
    await jana.get('/stopwatch');
    const before = await t.database.db.selectFrom('account_settings').selectAll().where('account_id', '=', t.accountId).executeTakeFirstOrThrow();
    for (const [path, form] of [
      ['/admin/settings', { CompanyName: 'Gekapert', TimeZone: 'UTC', Currency: 'USD' }],
      ['/admin/clients/new', { Name: 'Von Jana' }],
      ['/admin/employees/invite', { FirstName: 'X', LastName: 'Y', Email: 'x@y.example', role: 'admin' }],
      [`/admin/employees/${t.jana.userId}/role`, { role: 'admin' }],
      ['/admin/entries/lock', { until: '2026-12-31', action: 'unlock' }],
    ] as const) {
      expect((await jana.post(path, form)).status, path).toBe(404);
    }
    expect(await t.database.db.selectFrom('account_settings').selectAll().where('account_id', '=', t.accountId).executeTakeFirstOrThrow()).toEqual(before);
    expect(await t.database.db.selectFrom('clients').select('id').where('name', '=', 'Von Jana').execute()).toEqual([]);
    const janaRow = await t.database.db.selectFrom('users').select('access_rights').where('id', '=', t.jana.userId).executeTakeFirstOrThrow();
    expect(janaRow.access_rights).toBe(10);
  });

  it('sends a signed-out browser to sign in', async () => {
    const anonymous = await new WebClient(t.origin).get('/admin/settings');
    expect(anonymous.status).toBe(303);
    expect(anonymous.location).toBe('/sign-in?next=%2Fadmin%2Fsettings');
  });

  it('answers 404 for another account\'s ids (and ids that are no ids) in every administration URL, and changes nothing', async () => {
    const paths = [
      `/admin/employees/${other.userId}`, `/admin/clients/${other.clientId}`, `/admin/projects/${other.projectId}`, `/admin/tasks/${other.taskId}`,
      '/admin/projects/abc', '/admin/projects/0', '/admin/projects/99999999999', '/admin/clients/-1',
    ];
    for (const path of paths) expect((await alex.get(path)).status, path).toBe(404);
    await alex.get('/admin');
    for (const [path, form] of [
      [`/admin/clients/${other.clientId}`, { Name: 'Übernommen' }],
      [`/admin/clients/${other.clientId}/active`, { active: '0' }],
      [`/admin/projects/${other.projectId}`, { Name: 'Übernommen' }],
      [`/admin/tasks/${other.taskId}/active`, { active: '0' }],
      [`/admin/employees/${other.userId}/role`, { role: 'user' }],
      [`/admin/employees/${other.userId}/active`, { active: '0' }],
      [`/admin/employees/${other.userId}/invitation`, {}],
      [`/admin/employees/${other.userId}/projects`, { project: String(other.projectId) }],
    ] as const) {
      expect((await alex.post(path, form)).status, path).toBe(404);
    }
    expect(await t.database.db.selectFrom('clients').select(['name', 'active']).where('id', '=', other.clientId).executeTakeFirst()).toEqual({ name: 'Fremdkunde', active: 1 });
    expect(await t.database.db.selectFrom('projects').select('name').where('id', '=', other.projectId).executeTakeFirst()).toEqual({ name: 'Fremdprojekt' });
    expect(await t.database.db.selectFrom('users').select(['active', 'access_rights']).where('id', '=', other.userId).executeTakeFirst()).toEqual({ active: 1, access_rights: 20 });
    expect(await t.database.db.selectFrom('invitations').select('user_id').where('user_id', '=', other.userId).execute()).toEqual([]);
  });

  it('refuses every form without the session\'s CSRF token (403), changing nothing', async () => {
    await alex.get('/admin/settings');
    for (const token of [null, 'falsch', jana.csrf]) {
      const answer = await alex.post('/admin/settings', { _csrf: token, CompanyName: 'Ohne Token', TimeZone: 'UTC', Currency: 'EUR' });
      expect(answer.status).toBe(403);
      expect(answer.text).toContain('Das Formular ist abgelaufen.');
      expect((await alex.post('/admin/clients/new', { _csrf: token, Name: 'Ohne Token' })).status).toBe(403);
    }
    // Every other form of the administration too.
    const posts = ['/admin/clients/1', '/admin/clients/1/active', '/admin/projects/new', '/admin/projects/1', '/admin/projects/1/active', '/admin/tasks/new',
      '/admin/tasks/1', '/admin/tasks/1/active', '/admin/employees/invite', `/admin/employees/${t.jana.userId}/role`, `/admin/employees/${t.jana.userId}/active`,
      `/admin/employees/${t.jana.userId}/invitation`, `/admin/employees/${t.jana.userId}/projects`, '/admin/entries/lock'];
    for (const path of posts) {
      const answer = await alex.post(path, { _csrf: null, active: '0', role: 'admin', Name: 'Ohne Token', until: '2026-12-31', action: 'lock' });
      expect(answer.status, path).toBe(403);
    }
    expect(await t.database.db.selectFrom('invitations').select('user_id').where('user_id', '=', t.jana.userId).where('used_at', 'is', null).execute()).toEqual([]);
    expect(await t.database.db.selectFrom('time_entries').select('id').where('account_id', '=', t.accountId).where('start_time', '>', Date.UTC(2026, 10, 1)).where('locked', '=', 1).execute()).toEqual([]);
    expect((await t.database.db.selectFrom('users').select('access_rights').where('id', '=', t.jana.userId).executeTakeFirstOrThrow()).access_rights).toBe(10);
    expect((await t.database.db.selectFrom('account_settings').select('company_name').where('account_id', '=', t.accountId).executeTakeFirstOrThrow()).company_name).not.toBe('Ohne Token');
    expect(await t.database.db.selectFrom('clients').select('id').where('name', '=', 'Ohne Token').execute()).toEqual([]);
  });

  it('creates, edits, archives and reactivates clients, projects and tasks as the API stores them, with its messages for what it refuses', async () => {
    await alex.get('/admin/clients/new');
    const empty = await alex.post('/admin/clients/new', { Name: '   ', Active: '1' });
    expect(empty.status).toBe(422);
    expect(empty.text).toContain('id="f-Name-error">Der Kunde kann nicht gespeichert werden: Name ist ein Pflichtfeld.<');
    const long = await alex.post('/admin/clients/new', { Name: 'K'.repeat(51), Active: '1' });
    expect(long.text).toContain('Der Kunde kann nicht gespeichert werden: Name darf höchstens 50 Zeichen lang sein.');
    expect(long.text).toContain(`value="${'K'.repeat(51)}"`);
    const control = await alex.post('/admin/clients/new', { Name: 'Null\u0000Byte', Active: '1' });
    expect(control.status).toBe(422);
    const made = await alex.post('/admin/clients/new', { Name: 'Neukunde <b>AG</b>', Comment: 'Über die Messe', Active: '1' });
    expect(made.status).toBe(303);
    const client = await t.database.db.selectFrom('clients').selectAll().where('name', '=', 'Neukunde <b>AG</b>').executeTakeFirstOrThrow();
    expect(client).toMatchObject({ account_id: t.accountId, active: 1, comment: 'Über die Messe', last_change_author: t.admin.userId });
    const list = await alex.get('/admin/clients?done=saved');
    expect(list.text).toContain('Neukunde &lt;b&gt;AG&lt;/b&gt;');

    await alex.get('/admin/projects/new');
    const refusals: Array<[Record<string, string | null>, string]> = [
      [{ Name: 'P', TimeBudgetHours: 'viel' }, 'Der Wert von TimeBudget ist kein gültiger Wert vom Typ Edm.Int32.'],
      [{ Name: 'P', HourlyRate: '12,345.00' }, 'Der Wert von HourlyRate ist kein gültiger Wert vom Typ Edm.Decimal.'],
      [{ Name: 'P', HourlyRate: '-5' }, 'Das Projekt kann nicht gespeichert werden: HourlyRate darf nicht negativ sein.'],
      [{ Name: 'P', ClientID: String(other.clientId) }, `ClientID ${other.clientId} verweist auf keinen vorhandenen Eintrag (Kunden).`],
      [{ Name: 'P', ClientID: 'x' }, 'Der Wert von ClientID ist kein gültiger Wert vom Typ Edm.Int32.'],
      [{ Name: 'P', AssignedUsers: String(other.userId) }, `AssignedUsers enthält IDs, die es nicht gibt: ${other.userId}.`],
      [{ Name: 'P', AssignedTasks: 'abc' }, 'AssignedTasks muss eine kommagetrennte Liste von IDs sein'],
    ];
    for (const [form, message] of refusals) {
      const refused = await alex.post('/admin/projects/new', form);
      expect(refused.status, message).toBe(422);
      expect(refused.text, message).toContain(message);
    }
    expect(await t.database.db.selectFrom('projects').select('id').where('name', '=', 'P').execute()).toEqual([]);
    const body = new URLSearchParams([['_csrf', alex.csrf], ['Name', 'Neues Projekt'], ['ClientID', String(client.id)], ['TimeBudgetHours', '12,5'],
      ['HourlyRate', '99,90'], ['AssignedUsers', String(t.jana.userId)], ['AssignedUsers', String(t.tom.userId)], ['Active', '1'], ['Custom1', 'KST-7']]);
    const project = await fetch(`${t.origin}/admin/projects/new`, { method: 'POST', redirect: 'manual', body, headers: { cookie: [...alex.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    expect(project.status).toBe(303);
    const row = await t.database.db.selectFrom('projects').selectAll().where('name', '=', 'Neues Projekt').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ client_id: client.id, time_budget: 45_000, assigned_users: `${t.jana.userId},${t.tom.userId}`, active: 1, custom1: 'KST-7' });
    expect(Number(row.hourly_rate)).toBe(99.9);
    // The account's label of the custom field names it in the form.
    const edit = await alex.get(`/admin/projects/${row.id}`);
    expect(edit.text).toContain('<label for="f-Custom1">Kostenstelle</label>');
    expect(edit.text).toContain('value="12.5"');
    // A custom field without a label is not in the form, and an edit leaves what an API client stored in it.
    await t.database.db.updateTable('projects').set({ custom2: 'über die API' }).where('id', '=', row.id).execute();
    expect(edit.text).not.toContain('name="Custom2"');
    expect((await alex.post(`/admin/projects/${row.id}`, { version: formVersion(edit.text, `/admin/projects/${row.id}`) as string, Name: 'Umbenannt', TimeBudgetHours: '', HourlyRate: '', Custom1: '', Custom2: 'Formular' })).status).toBe(303);
    expect(await t.database.db.selectFrom('projects').select(['name', 'time_budget', 'hourly_rate', 'assigned_users', 'custom1', 'custom2']).where('id', '=', row.id).executeTakeFirst())
      .toEqual({ name: 'Umbenannt', time_budget: null, hourly_rate: null, assigned_users: null, custom1: null, custom2: 'über die API' });
    const renamed = await alex.get(`/admin/projects/${row.id}`);
    const version = formVersion(renamed.text, `/admin/projects/${row.id}`) as string;
    expect(version).toBe('2');
    expect((await alex.post(`/admin/projects/${row.id}`, { version, Name: '' })).text).toContain('Das Projekt kann nicht gespeichert werden: Name ist ein Pflichtfeld.');
    expect((await alex.post(`/admin/projects/${row.id}/active`, { version, active: '0' })).status).toBe(303);
    expect((await t.database.db.selectFrom('projects').select('active').where('id', '=', row.id).executeTakeFirstOrThrow()).active).toBe(0);
    expect((await alex.post(`/admin/projects/${row.id}/active`, { version: '3', active: 'ja' })).status).toBe(400);
    expect((await alex.post(`/admin/projects/${row.id}/active`, { version: '3', active: '1' })).status).toBe(303);
    expect((await t.database.db.selectFrom('projects').select('active').where('id', '=', row.id).executeTakeFirstOrThrow()).active).toBe(1);

    await alex.get('/admin/tasks/new');
    expect((await alex.post('/admin/tasks/new', { Description: 'Schulung', Active: '1' })).status).toBe(303);
    expect(await t.database.db.selectFrom('tasks').select(['billable', 'active']).where('description', '=', 'Schulung').executeTakeFirst()).toEqual({ billable: 0, active: 1 });
    expect((await alex.post('/admin/tasks/new', { Description: 'T'.repeat(101) })).text).toContain('Die Tätigkeit kann nicht gespeichert werden: Description darf höchstens 100 Zeichen lang sein.');
  });

  it('invites an employee through a one-time link, refuses bad names and addresses, changes role, access and project assignments', async () => {
    await alex.get('/admin/employees');
    // The invitation's language starts as the page's own.
    expect((await alex.get('/admin/employees')).text).toContain('<option value="DE" selected>Deutsch</option><option value="EN">English</option>');
    expect((await alex.get('/admin/employees', { 'accept-language': 'en' })).text).toContain('<option value="DE">Deutsch</option><option value="EN" selected>English</option>');
    const refusals: Array<[Record<string, string>, string]> = [
      [{ FirstName: '', LastName: 'Neu', Email: 'lena@demo.example', role: 'user' }, 'Der Benutzer kann nicht gespeichert werden: FirstName ist ein Pflichtfeld.'],
      [{ FirstName: 'L'.repeat(81), LastName: 'Neu', Email: 'lena@demo.example', role: 'user' }, 'FirstName darf höchstens 80 Zeichen lang sein.'],
      [{ FirstName: 'Lena', LastName: 'Neu', Email: 'keine-adresse', role: 'user' }, 'Bitte eine gültige E-Mail-Adresse angeben.'],
      [{ FirstName: 'Lena', LastName: 'Neu', Email: t.jana.email.toUpperCase(), role: 'user' }, 'Diese E-Mail-Adresse hat schon einen Benutzer in diesem Konto.'],
      [{ FirstName: 'Lena', LastName: 'Neu', Email: 'lena@demo.example', role: 'superuser' }, 'Pflichtfeld.'],
    ];
    for (const [form, message] of refusals) {
      const refused = await alex.post('/admin/employees/invite', form);
      expect(refused.status, message).toBe(422);
      expect(refused.text, message).toContain(message);
    }
    expect(await t.database.db.selectFrom('users').select('id').where('last_name', '=', 'Neu').execute()).toEqual([]);
    const invited = await alex.post('/admin/employees/invite', { FirstName: 'Lena', LastName: 'Neu', Email: 'lena@demo.example', role: 'user', language: 'EN' });
    expect(invited.status).toBe(201);
    expect(invited.headers.get('cache-control')).toBe('no-store');
    const link = /<code id="invitation-link">([^<]+)<\/code>/.exec(invited.text)?.[1] as string;
    expect(link).toMatch(new RegExp(`^${t.origin}/invitation/[\\w-]{43}$`));
    const lena = await t.database.db.selectFrom('users').selectAll().where('email', '=', 'lena@demo.example').executeTakeFirstOrThrow();
    expect(lena).toMatchObject({ account_id: t.accountId, access_rights: 10, active: 1, language: 'EN', password_hash: null, last_change_author: t.admin.userId });
    // No API key is made for her that nobody was shown: she makes her own once signed in.
    expect(await t.database.db.selectFrom('api_keys').select('id').where('user_id', '=', lena.id).execute()).toEqual([]);
    expect((await alex.get('/admin/employees')).text).toContain('Eingeladen, noch kein Passwort');
    // The link works once.
    const browser = new WebClient(t.origin);
    const path = new URL(link).pathname;
    expect((await browser.get(path)).status).toBe(200);
    expect((await browser.post(path, { password: 'lenas-passwort-1', repeat: 'lenas-passwort-1' })).status).toBe(200);
    expect((await browser.get(path)).status).toBe(404);
    expect((await browser.signIn('lena@demo.example', 'lenas-passwort-1')).status).toBe(303);

    // Assigned to "Mobile App" (a project with its own list), she may book on it.
    const mobile = await t.database.db.selectFrom('projects').select(['id', 'assigned_users']).where('name', '=', 'Mobile App').executeTakeFirstOrThrow();
    await alex.get(`/admin/employees/${lena.id}`);
    expect((await alex.post(`/admin/employees/${lena.id}/projects`, { project: String(mobile.id) })).status).toBe(303);
    expect((await t.database.db.selectFrom('projects').select('assigned_users').where('id', '=', mobile.id).executeTakeFirstOrThrow()).assigned_users)
      .toBe(`${mobile.assigned_users as string},${lena.id}`);
    const detail = await alex.get(`/admin/employees/${lena.id}`);
    expect(detail.text).toMatch(new RegExp(`value="${mobile.id}" checked> Mobile App`));
    // Another account's project id changes nothing there (only the account's projects are looked
    // at); Mobile App, not chosen this time, loses her again.
    expect((await alex.post(`/admin/employees/${lena.id}/projects`, { project: String(other.projectId) })).status).toBe(303);
    expect((await t.database.db.selectFrom('projects').select('assigned_users').where('id', '=', other.projectId).executeTakeFirstOrThrow()).assigned_users).toBeNull();
    expect((await t.database.db.selectFrom('projects').select('assigned_users').where('id', '=', mobile.id).executeTakeFirstOrThrow()).assigned_users).toBe(mobile.assigned_users);

    // Role, access, a new link; never one's own. Each form carries the version of Lena's row it was made from.
    const lenasVersion = async () => formVersion((await alex.get(`/admin/employees/${lena.id}`)).text, `/admin/employees/${lena.id}/role`) as string;
    expect((await alex.post(`/admin/employees/${lena.id}/role`, { role: 'admin', version: await lenasVersion() })).status).toBe(303);
    expect((await t.database.db.selectFrom('users').select('access_rights').where('id', '=', lena.id).executeTakeFirstOrThrow()).access_rights).toBe(20);
    expect((await alex.post(`/admin/employees/${lena.id}/role`, { role: 'root', version: await lenasVersion() })).status).toBe(422);
    expect((await alex.post(`/admin/employees/${lena.id}/role`, { role: 'user', version: await lenasVersion() })).status).toBe(303);
    expect((await alex.post(`/admin/employees/${lena.id}/active`, { active: 'nein', version: await lenasVersion() })).status).toBe(422);
    expect((await alex.post(`/admin/employees/${lena.id}/active`, { active: '0', version: await lenasVersion() })).status).toBe(303);
    expect((await browser.get('/stopwatch')).status).toBe(303);
    expect((await alex.post(`/admin/employees/${lena.id}/invitation`)).status).toBe(422);
    expect((await alex.post(`/admin/employees/${lena.id}/active`, { active: '1', version: await lenasVersion() })).status).toBe(303);
    // Each change is stamped with its author, as the API's writes are.
    expect(await t.database.db.selectFrom('users').select(['last_change_author', 'version']).where('id', '=', lena.id).executeTakeFirst()).toEqual({ last_change_author: t.admin.userId, version: 5 });
    const again = await alex.post(`/admin/employees/${lena.id}/invitation`);
    expect(again.status).toBe(201);
    expect(again.text).toContain('id="invitation-link"');
    const self = await alex.post(`/admin/employees/${t.admin.userId}/role`, { role: 'user' });
    expect(self.status).toBe(403);
    expect((await alex.post(`/admin/employees/${t.admin.userId}/active`, { active: '0' })).status).toBe(403);
    expect(await t.database.db.selectFrom('users').select(['access_rights', 'active']).where('id', '=', t.admin.userId).executeTakeFirst()).toEqual({ access_rights: 20, active: 1 });
  });

  it('on an English page refuses master data and settings with the rules\' English messages, and changes nothing', async () => {
    const english = { 'accept-language': 'en' };
    await alex.get('/admin/clients/new', english);
    const clientRefusals: Array<[string, Record<string, string>, string]> = [
      ['/admin/clients/new', { Name: ' ', Active: '1' }, 'id="f-Name-error">The client cannot be saved: Name is required.<'],
      ['/admin/clients/new', { Name: 'K'.repeat(51), Active: '1' }, 'The client cannot be saved: Name must be at most 50 characters long.'],
      ['/admin/projects/new', { Name: 'P', HourlyRate: '-5' }, 'The project cannot be saved: HourlyRate must not be negative.'],
      ['/admin/projects/new', { Name: 'P', ClientID: String(other.clientId) }, `The project cannot be saved: ClientID ${other.clientId} refers to no existing entry (clients).`],
      ['/admin/projects/new', { Name: 'P', TimeBudgetHours: 'viel' }, 'The project cannot be saved: The value of TimeBudget is not a valid value of type Edm.Int32.'],
      ['/admin/tasks/new', { Description: 'T'.repeat(101) }, 'The task cannot be saved: Description must be at most 100 characters long.'],
    ];
    for (const [path, form, message] of clientRefusals) {
      const refused = await alex.post(path, form, english);
      expect(refused.status, message).toBe(422);
      expect(refused.text, message).toContain('<html lang="en">');
      expect(refused.text, message).toContain(message);
      expect(refused.text, message).not.toContain('kann nicht gespeichert werden');
    }
    expect(await t.database.db.selectFrom('projects').select('id').where('name', '=', 'P').execute()).toEqual([]);
    const version = formVersion((await alex.get('/admin/settings', english)).text, '/admin/settings') as string;
    const base = { CompanyName: 'Demo GmbH', TimeZone: 'Europe/Berlin', Currency: 'EUR', BookingCloseDate: '', version };
    const before = await t.database.db.selectFrom('account_settings').selectAll().where('account_id', '=', t.accountId).executeTakeFirstOrThrow();
    for (const [form, message] of [
      [{ CompanyName: '' }, 'The account settings cannot be saved: CompanyName is required.'],
      [{ TimeZone: 'Mars/Olympus' }, 'The account settings cannot be saved: TimeZone &quot;Mars/Olympus&quot; is no known IANA time zone (e.g. Europe/Berlin).'],
      [{ Currency: '€€' }, 'Currency must be an ISO 4217 currency code of three letters (e.g. EUR).'],
    ] as const) {
      const refused = await alex.post('/admin/settings', { ...base, ...form }, english);
      expect(refused.status, message).toBe(422);
      expect(refused.text, message).toContain(message);
    }
    expect(await t.database.db.selectFrom('account_settings').selectAll().where('account_id', '=', t.accountId).executeTakeFirstOrThrow()).toEqual(before);
  });

  it('changes the account settings with the messages of the rules; the close date is a day on the account\'s clock', async () => {
    // Every save carries the version of the settings its form was made from (web-row-versions.test.ts).
    const version = async () => formVersion((await alex.get('/admin/settings')).text, '/admin/settings') as string;
    const base = { CompanyName: 'Demo GmbH & Co. KG', TimeZone: 'Europe/Berlin', Currency: 'eur', BookingCloseDate: '2026-11-01', HourlyRatesEnabled: '1' };
    const refusals: Array<[Record<string, string>, string]> = [
      [{ ...base, CompanyName: '' }, 'Die Kontoeinstellung kann nicht gespeichert werden: CompanyName ist ein Pflichtfeld.'],
      [{ ...base, CompanyName: 'C'.repeat(101) }, 'CompanyName darf höchstens 100 Zeichen lang sein.'],
      [{ ...base, TimeZone: 'Mars/Olympus' }, 'TimeZone &quot;Mars/Olympus&quot; ist keine bekannte IANA-Zeitzone'],
      [{ ...base, Currency: 'EURO' }, 'Currency darf höchstens 3 Zeichen lang sein.'],
      [{ ...base, Currency: '€€' }, 'Currency muss ein Währungscode nach ISO 4217 aus drei Buchstaben sein'],
      [{ ...base, BookingCloseDate: '2026-02-30' }, 'Bitte ein Datum angeben.'],
      [{ ...base, TimeEntryCustom2Label: 'x'.repeat(51) }, 'TimeEntryCustom2Label darf höchstens 50 Zeichen lang sein.'],
    ];
    const before = await t.database.db.selectFrom('account_settings').selectAll().where('account_id', '=', t.accountId).executeTakeFirstOrThrow();
    for (const [form, message] of refusals) {
      const refused = await alex.post('/admin/settings', { ...form, version: await version() });
      expect(refused.status, message).toBe(422);
      expect(refused.text, message).toContain(message);
    }
    expect(await t.database.db.selectFrom('account_settings').selectAll().where('account_id', '=', t.accountId).executeTakeFirstOrThrow()).toEqual(before);
    expect((await alex.post('/admin/settings', { ...base, TaskCustom3Label: 'Abteilung', version: await version() })).status).toBe(303);
    const after = await t.database.db.selectFrom('account_settings').selectAll().where('account_id', '=', t.accountId).executeTakeFirstOrThrow();
    expect(after).toMatchObject({
      company_name: 'Demo GmbH & Co. KG', time_zone: 'Europe/Berlin', currency: 'EUR', hourly_rates_enabled: 1,
      booking_close_date: instantOf('2026-11-01', 0, 'Europe/Berlin'), task_custom3_label: 'Abteilung', project_custom1_label: null,
    });
    const page = await alex.get('/admin/settings');
    expect(page.text).toContain('value="2026-11-01"');
    expect(page.text).toContain('<option selected>Europe/Berlin</option>');
    expect((await alex.get('/admin/tasks/new')).text).toContain('<label for="f-Custom3">Abteilung</label>');
    // The API reads what the page saved.
    const api = await fetch(`${t.root}/AccountSettings?$format=json`, { headers: { 'x-serviceapikey': t.jana.apiKey } });
    expect(((await api.json()) as { d: { results: Array<{ CompanyName: string }> } }).d.results[0]?.CompanyName).toBe('Demo GmbH & Co. KG');
    // A change of zone reads the close date on the new zone's clock.
    expect((await alex.post('/admin/settings', { ...base, TimeZone: 'America/New_York', version: await version() })).status).toBe(303);
    expect((await t.database.db.selectFrom('account_settings').select('booking_close_date').where('account_id', '=', t.accountId).executeTakeFirstOrThrow()).booking_close_date)
      .toBe(instantOf('2026-11-01', 0, 'America/New_York'));
    expect((await alex.get('/admin/settings')).text).toContain('<option>UTC</option>');
    await t.database.db.updateTable('account_settings').set({ ...before }).where('account_id', '=', t.accountId).execute();
  });

  it('lists the team\'s entries by employee, client, project, task, dates and billable, and locks and unlocks them up to a day', async () => {
    const entries = await t.database.db.selectFrom('time_entries').selectAll().where('account_id', '=', t.accountId).execute();
    const ids = (text: string) => [...text.matchAll(/data-entry="(\d+)"/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
    // Finished entries only (a running stopwatch is not booked time yet), as the exports write them.
    const expected = (keep: (e: (typeof entries)[number]) => boolean) => entries.filter((e) => e.end_time !== null && keep(e)).map((e) => e.id).sort((a, b) => a - b);
    const from = instantOf('2026-11-09', 0, 'UTC');
    const to = instantOf('2026-11-14', 0, 'UTC');
    const byJana = await alex.get(`/admin/entries?user=${t.jana.userId}&from=2026-11-09&to=2026-11-13`);
    expect(byJana.status).toBe(200);
    expect(ids(byJana.text)).toEqual(expected((e) => e.user_id === t.jana.userId && e.start_time >= from && e.start_time < to));
    expect(ids(byJana.text).length).toBeGreaterThan(5);
    const stadtwerke = await t.database.db.selectFrom('clients').select('id').where('name', '=', 'Stadtwerke Musterstadt').executeTakeFirstOrThrow();
    const ofClient = (await t.database.db.selectFrom('projects').select('id').where('client_id', '=', stadtwerke.id).execute()).map((p) => p.id);
    const byClient = await alex.get(`/admin/entries?client=${stadtwerke.id}&billable=0&from=2026-11-01`);
    expect(ids(byClient.text)).toEqual(expected((e) => ofClient.includes(e.project_id) && e.billable === 0 && e.start_time >= instantOf('2026-11-01', 0, 'UTC')));
    const byTask = await alex.get('/admin/entries?task=2&project=1');
    expect(ids(byTask.text)).toEqual(expected((e) => e.task_id === 2 && e.project_id === 1));
    // Foreign or broken filter values find nothing of another account and never fail.
    expect(ids((await alex.get(`/admin/entries?project=${other.projectId}`)).text)).toEqual([]);
    const badDates = await alex.get('/admin/entries?from=gestern&to=2026-13-01');
    expect(badDates.status).toBe(422);
    expect(badDates.text).toContain('id="f-from-error">Bitte ein Datum angeben.');
    expect(badDates.text).toContain('id="f-to-error">Bitte ein Datum angeben.');
    expect(ids(badDates.text)).toEqual([]);
    const backwards = await alex.get('/admin/entries?from=2026-11-10&to=2026-11-01');
    expect(backwards.text).toContain('id="f-to-error">Das Ende liegt vor dem Anfang.');
    for (const query of ['user=abc', 'billable=vielleicht', 'client=1%27%20or%201=1', 'project=-1', 'task=99999999999']) {
      const broken = await alex.get(`/admin/entries?${query}`);
      expect(broken.status, query).toBe(400);
      expect(broken.text, query).toContain('Dieser Filter ist ungültig.');
    }

    // Without a filter, the list starts on the recent months (the machine's today on the account's clock).
    const first = await alex.get('/admin/entries');
    expect(first.text).toMatch(/id="f-from" name="from" type="date" value="\d{4}-\d{2}-01"/);
    expect((await alex.post('/admin/entries/lock', { until: 'morgen', action: 'lock' })).status).toBe(422);
    expect((await alex.post('/admin/entries/lock', { until: '2026-11-10', action: 'drop' })).status).toBe(422);
    const locked = await alex.post('/admin/entries/lock', { until: '2026-11-10', action: 'lock' });
    expect(locked.status).toBe(303);
    const until = instantOf('2026-11-11', 0, 'UTC');
    const wasUnlocked = entries.filter((e) => e.start_time < until && e.end_time !== null && e.locked === 0).length;
    expect(locked.location).toBe(`/admin/entries?locked=${wasUnlocked}`);
    const now = await t.database.db.selectFrom('time_entries').select(['id', 'locked', 'start_time', 'version', 'last_change_author']).where('account_id', '=', t.accountId).execute();
    expect(now.filter((e) => e.start_time < until).every((e) => e.locked === 1)).toBe(true);
    // Each change counted as an API write is (ETags, sync clients): version up, stamped by the administrator.
    const changedNow = now.filter((e) => entries.some((b) => b.id === e.id && b.locked === 0 && b.start_time < until && b.end_time !== null));
    expect(changedNow.length).toBe(wasUnlocked);
    for (const entry of changedNow) {
      expect(entry.version).toBe((entries.find((b) => b.id === entry.id)?.version ?? 0) + 1);
      expect(entry.last_change_author).toBe(t.admin.userId);
    }
    expect(now.filter((e) => e.start_time >= until).map((e) => e.locked)).toEqual(entries.filter((e) => e.start_time >= until).map((e) => e.locked));
    expect((await alex.get(locked.location as string)).text).toContain(`${wasUnlocked} Einträge gesperrt.`);
    // The other account's entries are untouched.
    expect((await t.database.db.selectFrom('time_entries').select('id').where('account_id', '=', other.accountId).where('locked', '=', 1).execute())).toEqual([]);
    const unlocked = await alex.post('/admin/entries/lock', { until: '2026-11-10', action: 'unlock' });
    expect(unlocked.location).toMatch(/^\/admin\/entries\?unlocked=\d+$/);
    const after = await t.database.db.selectFrom('time_entries').select(['locked', 'start_time']).where('account_id', '=', t.accountId).where('start_time', '<', until).execute();
    expect(after.every((e) => e.locked === 0)).toBe(true);
  });

  it('shows the account\'s labels of custom fields wherever the fields appear, and saves what is typed in them', async () => {
    // The demo account labels TimeEntry Custom1 "Ticket"; Custom2 has no label and stays hidden.
    const form = await jana.get('/timesheet/new?date=2026-11-18');
    expect(form.text).toContain('<label for="Custom1">Ticket</label>');
    expect(form.text).not.toContain('name="Custom2"');
    const tooLong = await jana.post('/timesheet/new', { date: '2026-11-18', kind: '2', start: '07:00', end: '07:30', project: '1', Custom1: 'T'.repeat(51) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.text).toContain('id="Custom1-error">Der Zeiteintrag kann nicht gespeichert werden: Custom1 darf höchstens 50 Zeichen lang sein.');
    const saved = await jana.post('/timesheet/new', { date: '2026-11-18', kind: '2', start: '07:00', end: '07:30', project: '1', comment: 'Mit Ticket', Custom1: ' T-4711 ', Custom2: 'versteckt' });
    expect(saved.status).toBe(303);
    const row = await t.database.db.selectFrom('time_entries').selectAll().where('comment', '=', 'Mit Ticket').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ custom1: 'T-4711', custom2: null });
    expect((await jana.get(`/timesheet/entries/${row.id}`)).text).toContain('value="T-4711"');
    const team = await alex.get(`/admin/entries?user=${t.jana.userId}&from=2026-11-18&to=2026-11-18`);
    expect(team.text).toContain('<th scope="col">Ticket</th>');
    expect(team.text).toContain('<td>T-4711</td>');
    // Relabelled in the settings, the forms follow.
    const version = formVersion((await alex.get('/admin/settings')).text, '/admin/settings') as string;
    const settings = await t.database.db.selectFrom('account_settings').selectAll().where('account_id', '=', t.accountId).executeTakeFirstOrThrow();
    expect((await alex.post('/admin/settings', { version, CompanyName: settings.company_name, TimeZone: settings.time_zone, Currency: settings.currency, TimeEntryCustom1Label: 'Vorgang', ClientCustom2Label: 'Branche' })).status).toBe(303);
    expect((await jana.get(`/timesheet/entries/${row.id}`)).text).toContain('<label for="Custom1">Vorgang</label>');
    const clientForm = await alex.get('/admin/clients/new');
    expect(clientForm.text).toContain('<label for="f-Custom2">Branche</label>');
    expect(clientForm.text).not.toContain('name="Custom1"');
    await t.database.db.updateTable('account_settings').set({ ...settings }).where('account_id', '=', t.accountId).execute();
  });
});
