// Roles and visibility (data-model.md "Roles and visibility", service-api.md §5.3 and §7): a
// standard user reads the master data, the projects assigned to them and only their own time
// entries; whatever they may not read answers exactly like what does not exist (404, absent from
// lists, counts, navigation, `$expand`, `$links` and filter paths). An administrator reads all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdmRecord } from '../../odata/edm.js';
import { testDatabases } from '../helpers/databases.js';
import type { Entity } from '../helpers/odata-client.js';
import { ERROR_CONTENT_TYPE, FORMATS, ODataClient, expectStatus, readEntity, readEntry, readError, readFeed, readLinks } from '../helpers/odata-client.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const MOBILE_APP = 2; // assigned to Alex (admin) and Jana only

describe.each(testDatabases)('roles and visibility on $name', (kind) => {
  let service: TestService;
  let admin: ODataClient;
  let jana: ODataClient;
  let tom: ODataClient;
  let entryRows: Array<{ id: number; user_id: number; project_id: number; locked: number }>;

  beforeAll(async () => {
    service = await startTestService(kind);
    admin = new ODataClient(service.root, service.admin.apiKey);
    jana = admin.as(service.jana.apiKey);
    tom = admin.as(service.tom.apiKey);
    entryRows = await service.database.db.selectFrom('time_entries').select(['id', 'user_id', 'project_id', 'locked']).orderBy('id').execute();
  });
  afterAll(() => service?.close());

  const idsOf = (userId: number) => entryRows.filter((r) => r.user_id === userId).map((r) => r.id);
  const firstEntryOf = (userId: number) => entryRows.find((r) => r.user_id === userId) as { id: number; project_id: number };
  const ids = (records: readonly EdmRecord[]) => records.map((r) => r.ID);

  it('the demo data has entries of all three users, and Mobile App entries of Jana', () => {
    for (const user of [service.admin, service.jana, service.tom]) expect(idsOf(user.userId).length).toBeGreaterThan(20);
    expect(entryRows.some((r) => r.user_id === service.jana.userId && r.project_id === MOBILE_APP)).toBe(true);
  });

  describe.each(FORMATS)('in %s', (format) => {
    it('a standard user lists only their own time entries; the admin lists everybody\'s', async () => {
      expect(ids((await jana.readAll('/TimeEntries', 'TimeEntries', { format })).records)).toEqual(idsOf(service.jana.userId));
      expect(ids((await tom.readAll('/TimeEntries', 'TimeEntries', { format })).records)).toEqual(idsOf(service.tom.userId));
      expect(ids((await admin.readAll('/TimeEntries', 'TimeEntries', { format })).records)).toEqual(entryRows.map((r) => r.id));
    });

    it("another user's time entry is a 404 by key for a standard user, and 200 for the admin", async () => {
      const toms = firstEntryOf(service.tom.userId).id;
      const reply = await jana.get(`/TimeEntries(${toms})`, { format });
      expect(reply.status).toBe(404);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
      expect(readError(reply).message).toContain(`TimeEntries(${toms})`);
      // Exactly like an ID that does not exist at all:
      const missing = await jana.get('/TimeEntries(999999)', { format });
      expect(missing.status).toBe(404);
      expect(readEntry(await admin.get(`/TimeEntries(${toms})`, { format }), 'TimeEntries').UserID).toBe(service.tom.userId);
    });

    it("another user's entry is hidden from its properties, navigation and $links too", async () => {
      const janas = firstEntryOf(service.jana.userId).id;
      for (const path of [`/TimeEntries(${janas})/Comment`, `/TimeEntries(${janas})/Project`, `/TimeEntries(${janas})/$links/User`]) {
        const reply = await tom.get(path, { format });
        expect(reply.status, path).toBe(404);
      }
    });

    it("counts, navigation from a user, $links and filters see only the caller's entries", async () => {
      expect((await tom.get('/TimeEntries/$count')).text).toBe(String(idsOf(service.tom.userId).length));
      expect(readFeed(await tom.get(`/Users(${service.jana.userId})/TimeEntries`, { format }), 'TimeEntries').records).toEqual([]);
      const ofProject1 = entryRows.filter((r) => r.project_id === 1 && r.user_id === service.tom.userId).map((r) => r.id);
      const links = readLinks(await tom.get('/Projects(1)/$links/TimeEntries', { headers: { accept: format === 'json' ? 'application/json' : 'application/xml' } }));
      expect(links).toEqual(ofProject1.slice(0, 100).map((id) => `${service.root}/TimeEntries(${id})`));
      const filtered = await tom.readAll(`/TimeEntries?$filter=UserID%20eq%20${service.jana.userId}`, 'TimeEntries', { format });
      expect(filtered.records).toEqual([]);
    });

    it('$expand of a user\'s time entries shows only the caller\'s', async () => {
      const entity = readEntity(await jana.get(`/Users(${service.tom.userId})?$expand=TimeEntries`, { format }), 'Users');
      expect(entity.values.FirstName).toBe('Tom');
      expect(entity.expanded.TimeEntries).toEqual([]);
      const own = readEntity(await jana.get(`/Users(${service.jana.userId})?$expand=TimeEntries`, { format }), 'Users');
      expect((own.expanded.TimeEntries as Entity[]).map((e) => e.values.ID)).toEqual(idsOf(service.jana.userId));
    });

    it('a project not assigned to the user does not exist for them: by key, in lists, under its client, in $expand', async () => {
      const byKey = await tom.get(`/Projects(${MOBILE_APP})`, { format });
      expect(byKey.status).toBe(404);
      expect(byKey.contentType).toBe(ERROR_CONTENT_TYPE[format]);
      expect(ids(readFeed(await tom.get('/Projects', { format }), 'Projects').records)).toEqual([1, 3, 4, 5, 6]);
      expect(ids(readFeed(await tom.get('/Clients(1)/Projects', { format }), 'Projects').records)).toEqual([1]);
      const client = readEntity(await tom.get('/Clients(1)?$expand=Projects', { format }), 'Clients');
      expect((client.expanded.Projects as Entity[]).map((p) => p.values.ID)).toEqual([1]);
      expect((await tom.get(`/Projects(${MOBILE_APP})/TimeEntries`, { format })).status).toBe(404);
      expect((await tom.get('/Projects/$count')).text).toBe('5');
    });

    it('the assigned user and the admin see it, with AssignedToCurrentUser true', async () => {
      for (const caller of [jana, admin]) {
        const project = readEntry(await caller.get(`/Projects(${MOBILE_APP})`, { format }), 'Projects');
        expect(project).toMatchObject({ Name: 'Mobile App', AssignedToCurrentUser: true });
      }
    });

    it("a filter through navigation counts only the caller's entries; a filtered $expand hides unassigned projects", async () => {
      const reply = await jana.get(`/TimeEntries/$count?$filter=${encodeURIComponent("Project/Name eq 'Mobile App'")}`);
      expect(entryRows.some((r) => r.user_id === service.admin.userId && r.project_id === MOBILE_APP)).toBe(true);
      expect(Number(reply.text)).toBe(entryRows.filter((r) => r.user_id === service.jana.userId && r.project_id === MOBILE_APP).length);
      const none = await tom.get(`/Clients?$filter=${encodeURIComponent("Name eq 'Nordwind AG'")}&$expand=Projects`, { format });
      expectStatus(none, 200);
      const [nordwind] = readFeed(none, 'Clients').entities;
      expect((nordwind?.expanded.Projects as Entity[]).map((p) => p.values.Name)).toEqual(['Website-Relaunch']);
    });

    it('everybody reads Clients, Tasks, Users and AccountSettings', async () => {
      for (const caller of [jana, tom]) {
        expect(readFeed(await caller.get('/Clients', { format }), 'Clients').records).toHaveLength(3);
        expect(readFeed(await caller.get('/Tasks', { format }), 'Tasks').records).toHaveLength(5);
        expect(readFeed(await caller.get('/Users', { format }), 'Users').records.map((u) => u.FirstName)).toEqual(['Alex', 'Jana', 'Tom']);
        expect(readFeed(await caller.get('/AccountSettings', { format }), 'AccountSettings').records.map((s) => s.CompanyName)).toEqual(['Demo GmbH']);
      }
    });

    it("IsEditable tells a standard user which of their entries they may still change (not locked)", async () => {
      const { records } = await jana.readAll('/TimeEntries?$select=ID,IsEditable,Locked', 'TimeEntries', { format });
      expect(records.some((r) => r.Locked === true)).toBe(true);
      expect(records.filter((r) => r.IsEditable !== !r.Locked)).toEqual([]);
    });
  });

  it('Users never expose password hashes or API keys', async () => {
    const reply = await jana.get('/Users', { format: 'json' });
    expect(reply.text).not.toContain(service.jana.apiKey);
    expect(reply.text).not.toMatch(/"(Password|ApiKey|Hash)/i);
    const [user] = JSON.parse(reply.text).d.results;
    expect(Object.keys(user).filter((name) => /key|pass|hash/i.test(name))).toEqual([]);
  });
});
