// GetChangesDigest (data-model.md "Service operations"): a sync client asks what changed since
// its last synchronisation and gets the ChangeSet complex type, counted with the caller's
// visibility, in XML (the default for a complex result) or JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdmRecord } from '../../odata/edm.js';
import { testDatabases } from '../helpers/databases.js';
import { ERROR_CONTENT_TYPE, FORMATS, ODataClient, expectStatus, readError, readFunctionResult } from '../helpers/odata-client.js';
import type { Format } from '../helpers/odata-client.js';
import { DEMO_NOW, startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const SINCE = DEMO_NOW - 10 * 86_400_000;
const since = `datetime'${new Date(SINCE).toISOString().slice(0, 19)}'`;
const ACCEPT: Readonly<Record<Format, string>> = { atom: 'application/xml', json: 'application/json' };

describe.each(testDatabases)('GetChangesDigest on $name', (kind) => {
  let service: TestService;
  let admin: ODataClient;
  let rows: Array<{ id: number; user_id: number; last_change_time: number; locked: number }>;

  beforeAll(async () => {
    service = await startTestService(kind);
    admin = new ODataClient(service.root, service.admin.apiKey);
    rows = await service.database.db.selectFrom('time_entries').select(['id', 'user_id', 'last_change_time', 'locked']).orderBy('id').execute();
  });
  afterAll(() => service?.close());

  async function digest(client: ODataClient, format: Format, query = `LastSynchronizationTime=${since}`): Promise<EdmRecord> {
    const reply = await client.get(`/GetChangesDigest?${query}`, { headers: { accept: ACCEPT[format] } });
    expectStatus(reply, 200);
    expect(reply.contentType).toBe(format === 'json' ? 'application/json;charset=utf-8' : 'application/xml;charset=utf-8');
    return readFunctionResult(reply, 'GetChangesDigest') as EdmRecord;
  }

  describe.each(FORMATS)('in %s', (format) => {
    it('the admin gets totals and changes of every set of the account', async () => {
      const before = Date.now();
      const result = await digest(admin, format);
      expect(result).toMatchObject({
        TotalClients: 3, TotalProjects: 6, TotalTasks: 5, TotalUsers: 3,
        TotalTimeEntries: rows.length,
        ChangedTimeEntries: rows.filter((r) => r.last_change_time > SINCE).length,
        // The catalogue was last changed at DEMO_NOW, after SINCE.
        ChangedClients: 3, ChangedProjects: 6, ChangedTasks: 5,
      });
      expect((result.CurrentServerTime as Date).getTime()).toBeGreaterThanOrEqual(before - 1000);
    });

    it("a standard user's counts cover only what they may read", async () => {
      const tom = admin.as(service.tom.apiKey);
      const own = rows.filter((r) => r.user_id === service.tom.userId);
      expect(await digest(tom, format)).toMatchObject({
        TotalProjects: 5, // Mobile App is not assigned to Tom
        TotalTimeEntries: own.length,
        ChangedTimeEntries: own.filter((r) => r.last_change_time > SINCE).length,
      });
    });

    it('a sync point after every change reports no changes', async () => {
      const result = await digest(admin, format, `LastSynchronizationTime=datetime'${new Date(Date.now() + 60_000).toISOString().slice(0, 19)}'`);
      expect(result).toMatchObject({ ChangedClients: 0, ChangedProjects: 0, ChangedTasks: 0, ChangedUsers: 0, ChangedTimeEntries: 0, DeletedTimeEntryIDs: '' });
    });

    it('without LastSynchronizationTime, or with a malformed one, it is a 400 error document', async () => {
      for (const query of ['', "LastSynchronizationTime='gestern'", 'LastSynchronizationTime=datetime%27nope%27']) {
        const reply = await admin.get(`/GetChangesDigest?${query}`, { format: format === 'json' ? 'json' : undefined });
        expect(reply.status, query).toBe(400);
        expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
        expect(readError(reply).message).toContain('LastSynchronizationTime');
      }
    });
  });

  it("a deleted entry is listed for its owner and the admin, not for another user", async () => {
    const jana = admin.as(service.jana.apiKey);
    const deletable = rows.find((r) => r.user_id === service.jana.userId && r.locked === 0) as { id: number };
    const deleted = await jana.delete(`/TimeEntries(${deletable.id})`);
    expect(deleted.status).toBe(204);
    for (const format of FORMATS) {
      expect((await digest(jana, format)).DeletedTimeEntryIDs).toBe(String(deletable.id));
      expect((await digest(admin, format)).DeletedTimeEntryIDs).toBe(String(deletable.id));
      expect((await digest(admin.as(service.tom.apiKey), format)).DeletedTimeEntryIDs).toBe('');
    }
  });
});
