// Account isolation (data-model.md: "Data of one company account is never visible to another
// account, whatever the key"): a second company on the same service and database, with the
// same catalogue names as the demo company. Its IDs are 404 for the demo account, even for its
// administrator, and nothing of it shows in lists, counts, navigation, `$expand` or filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createUser } from '../../service/accounts/account-admin.js';
import { insertCatalogue } from '../../service/accounts/demo-seed.js';
import { TIME_ENTRY_TYPE } from '../../service/storage/schema.js';
import { testDatabases } from '../helpers/databases.js';
import type { Entity } from '../helpers/odata-client.js';
import { ERROR_CONTENT_TYPE, FORMATS, ODataClient, readEntity, readError, readFeed } from '../helpers/odata-client.js';
import { DEMO_NOW, startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

interface OtherAccount {
  readonly adminKey: string;
  readonly userId: number;
  readonly adminId: number;
  readonly projectIds: number[];
  readonly clientIds: number[];
  readonly taskIds: number[];
  readonly entryIds: number[];
}

describe.each(testDatabases)('account isolation on $name', (kind) => {
  let service: TestService;
  let demoAdmin: ODataClient;
  let other: OtherAccount;
  let otherAdmin: ODataClient;

  beforeAll(async () => {
    service = await startTestService(kind);
    const { db } = service.database;
    const account = await createAccount(db, { name: 'Zweite GmbH', adminEmail: 'chefin@zweite.example', adminFirstName: 'Zora' });
    const user = await createUser(db, { accountId: account.accountId, email: 'max@zweite.example', firstName: 'Max', lastName: 'Muster', role: 'user' });
    const catalogue = await insertCatalogue(db, account.accountId, account.userId, user.userId, DEMO_NOW);
    const project = catalogue.projects[0] as { id: number };
    const entries = await db.insertInto('time_entries').values([0, 1, 2].map((i) => ({
      account_id: account.accountId, type_id: TIME_ENTRY_TYPE.startEnd, user_id: account.userId, project_id: project.id, task_id: null,
      start_time: DEMO_NOW - (i + 2) * 3_600_000, end_time: DEMO_NOW - (i + 1) * 3_600_000, comment: `Zweite ${i}`, billable: 1, locked: 0,
      last_change_time: DEMO_NOW, last_change_author: account.userId,
    }))).returning('id').execute();
    const idsOf = async (table: 'clients' | 'tasks') =>
      (await db.selectFrom(table).select('id').where('account_id', '=', account.accountId).orderBy('id').execute()).map((r) => r.id);
    other = {
      adminKey: account.apiKey, adminId: account.userId, userId: user.userId,
      projectIds: catalogue.projects.map((p) => p.id), clientIds: await idsOf('clients'), taskIds: await idsOf('tasks'),
      entryIds: entries.map((e) => e.id),
    };
    demoAdmin = new ODataClient(service.root, service.admin.apiKey);
    otherAdmin = demoAdmin.as(other.adminKey);
  });
  afterAll(() => service?.close());

  it('the second account really has data of every kind, under IDs the demo account does not use', () => {
    expect(other.projectIds).toHaveLength(6);
    expect(Math.min(...other.projectIds)).toBeGreaterThan(6);
    expect(other.clientIds).toHaveLength(3);
    expect(other.entryIds).toHaveLength(3);
  });

  describe.each(FORMATS)('in %s', (format) => {
    it("the demo admin gets 404 for every ID of the other account, by key", async () => {
      const paths = [
        ...other.projectIds.map((id) => `/Projects(${id})`),
        ...other.clientIds.map((id) => `/Clients(${id})`),
        ...other.taskIds.map((id) => `/Tasks(${id})`),
        ...other.entryIds.map((id) => `/TimeEntries(${id})`),
        `/Users(${other.adminId})`, `/Users(${other.userId})`,
      ];
      for (const path of paths) {
        const reply = await demoAdmin.get(path, { format });
        expect(reply.status, path).toBe(404);
        expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
        expect(readError(reply).message).toContain('does not exist');
      }
    });

    it('... and for its properties, navigation, $links and $count below those IDs', async () => {
      const [project] = other.projectIds;
      const [entry] = other.entryIds;
      for (const path of [`/Projects(${project})/Name`, `/Projects(${project})/TimeEntries`, `/Projects(${project})/TimeEntries/$count`,
        `/TimeEntries(${entry})/Project`, `/Users(${other.adminId})/TimeEntries`, `/Projects(${project})/$links/TimeEntries`,
        `/Projects(${project})/Name/$value`]) {
        expect((await demoAdmin.get(path, { format })).status, path).toBe(404);
      }
    });

    it('lists and counts of the demo account hold only its own rows', async () => {
      const projects = readFeed(await demoAdmin.get('/Projects', { format }), 'Projects').records;
      expect(projects.map((p) => p.ID)).toEqual([1, 2, 3, 4, 5, 6]);
      const users = readFeed(await demoAdmin.get('/Users', { format }), 'Users').records;
      expect(users.map((u) => u.Email)).toEqual(['alex.berger@demo.example', 'jana.schmidt@demo.example', 'tom.weber@demo.example']);
      const settings = readFeed(await demoAdmin.get('/AccountSettings', { format }), 'AccountSettings').records;
      expect(settings.map((s) => s.CompanyName)).toEqual(['Demo GmbH']);
      const { records } = await demoAdmin.readAll('/TimeEntries', 'TimeEntries', { format });
      expect(records.filter((r) => other.entryIds.includes(r.ID as number))).toEqual([]);
      expect((await demoAdmin.get('/Clients/$count')).text).toBe('3');
    });

    it('filters by the same names or by the other IDs find only the own account\'s rows', async () => {
      const named = readFeed(await demoAdmin.get(`/Projects?$filter=${encodeURIComponent("Name eq 'Website-Relaunch'")}`, { format }), 'Projects');
      expect(named.records.map((p) => p.ID)).toEqual([1]);
      const byId = readFeed(await demoAdmin.get(`/TimeEntries?$filter=ID%20eq%20${other.entryIds[0]}`, { format }), 'TimeEntries');
      expect(byId.records).toEqual([]);
      const byComment = readFeed(await demoAdmin.get(`/TimeEntries?$filter=${encodeURIComponent("startswith(Comment, 'Zweite')")}`, { format }), 'TimeEntries');
      expect(byComment.records).toEqual([]);
    });

    it('the other account sees its own company only, under its own IDs', async () => {
      const projects = readFeed(await otherAdmin.get('/Projects', { format }), 'Projects').records;
      expect(projects.map((p) => p.ID)).toEqual(other.projectIds);
      expect(projects.map((p) => p.Name)).toContain('Website-Relaunch');
      const settings = readFeed(await otherAdmin.get('/AccountSettings', { format }), 'AccountSettings').records;
      expect(settings.map((s) => s.CompanyName)).toEqual(['Zweite GmbH']);
      const { records } = await otherAdmin.readAll('/TimeEntries', 'TimeEntries', { format });
      expect(records.map((r) => r.ID)).toEqual(other.entryIds);
      expect((await otherAdmin.get('/Projects(1)', { format })).status).toBe(404);
      expect((await otherAdmin.get(`/Users(${service.jana.userId})`, { format })).status).toBe(404);
    });

    it('$expand from the other account never reaches into the demo account', async () => {
      const client = readEntity(await otherAdmin.get(`/Clients(${other.clientIds[0]})?$expand=Projects/TimeEntries`, { format }), 'Clients');
      const projects = client.expanded.Projects as Entity[];
      expect(projects.map((p) => p.values.ID).every((id) => other.projectIds.includes(id as number))).toBe(true);
      const inlineEntries = projects.flatMap((p) => p.expanded.TimeEntries as Entity[]).map((e) => e.values.ID);
      expect(inlineEntries).toEqual(other.entryIds);
    });
  });
});
