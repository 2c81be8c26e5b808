// GetChangesDigest (data-model.md "Service operations"): what writes happened since a sync
// client's last synchronisation: per set the total and the changed count as the caller sees
// them, the IDs of time entries deleted since then, and the server time to pass next time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { Format, Reply } from '../helpers/odata-client.js';
import { FORMATS, ODataClient, expectStatus, payload } from '../helpers/odata-client.js';
import type { DemoCatalogue } from '../helpers/odata-payloads.js';
import { booking, create, demoCatalogue, expectError } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

interface Digest {
  readonly [name: string]: number | string;
}

const COUNTS = ['Clients', 'Projects', 'Tasks', 'Users', 'TimeEntries'] as const;

/** The ChangeSet of a reply in either format; CurrentServerTime as epoch ms. */
function digestOf(reply: Reply, format: Format): Digest {
  expectStatus(reply, 200);
  if (format === 'json') {
    expect(reply.contentType).toBe('application/json;charset=utf-8');
    const result = JSON.parse(reply.text).d.GetChangesDigest as Record<string, unknown>;
    expect(result.__metadata).toEqual({ type: 'Service.ChangeSet' });
    const { __metadata: _type, CurrentServerTime, ...rest } = result;
    const ms = /^\/Date\((\d+)\)\/$/.exec(String(CurrentServerTime))?.[1];
    return { ...(rest as Digest), CurrentServerTime: Number(ms) };
  }
  expect(reply.contentType).toBe('application/xml;charset=utf-8');
  expect(reply.text).toMatch(/<GetChangesDigest [^>]*m:type="Service\.ChangeSet"/);
  const digest: Record<string, number | string> = {};
  for (const match of reply.text.matchAll(/<(\w+) m:type="Edm\.(\w+)"(?:\/>|>([^<]*)<\/\1>)/g)) {
    const [, name, type, text = ''] = match as unknown as [string, string, string, string | undefined];
    digest[name] = type === 'Int32' ? Number(text) : type === 'DateTime' ? Date.parse(`${text}Z`) : text;
  }
  return digest;
}

describe.each(testDatabases)('GetChangesDigest on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;
  let jana: ODataClient;
  let tom: ODataClient;
  let demo: DemoCatalogue;

  beforeAll(async () => {
    service = await startTestService(kind);
    alex = new ODataClient(service.root, service.admin.apiKey);
    jana = alex.as(service.jana.apiKey);
    tom = alex.as(service.tom.apiKey);
    demo = await demoCatalogue(service);
  });

  afterAll(() => service?.close());

  const since = (time: number) => `/GetChangesDigest?LastSynchronizationTime=datetime'${new Date(time).toISOString().slice(0, 23)}'`;

  describe.each(FORMATS)('in %s', (format: Format) => {
    // The ChangeSet is a complex value: plain XML by default (a client asking for nothing but
    // Atom gets a 406 from the content negotiation of odata/, as for any property document).
    const asks = format === 'json' ? { format } : {};

    it('counts what each caller sees, what changed since the time given, and the entries deleted since', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const start = Date.now();
      const quiet = digestOf(await alex.get(since(start), asks), format);
      expect(quiet).toMatchObject({ ChangedClients: 0, ChangedProjects: 0, ChangedTasks: 0, ChangedUsers: 0, ChangedTimeEntries: 0, DeletedTimeEntryIDs: '' });

      await create(alex, 'Projects', { Name: `Neu seit ${format}`, Active: true });
      expectStatus(await alex.send('MERGE', `/Clients(${demo.clients.baeckerei})`, payload(format, { Comment: `geändert ${format}` })), 204);
      const kept = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-02'));
      const janasGone = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-03'));
      expectStatus(await jana.delete(`/TimeEntries(${janasGone.ID as number})`), 204);
      const tomsGone = await create(tom, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-03'));
      expectStatus(await tom.delete(`/TimeEntries(${tomsGone.ID as number})`), 204);

      const asked = Date.now();
      const forAlex = digestOf(await alex.get(since(start), asks), format);
      expect(forAlex).toMatchObject({
        ChangedClients: 1, ChangedProjects: 1, ChangedTasks: 0, ChangedUsers: 0, ChangedTimeEntries: 1,
        DeletedTimeEntryIDs: [janasGone.ID, tomsGone.ID].join(','),
      });
      expect(forAlex.CurrentServerTime).toBeGreaterThanOrEqual(asked);
      expect(forAlex.CurrentServerTime).toBeLessThanOrEqual(Date.now());
      for (const set of COUNTS) {
        const count = await alex.get(`/${set}/$count`);
        expect(forAlex[`Total${set}`], `Total${set}`).toBe(Number(count.text));
      }

      // A standard user counts their own entries and sees only their own deletions.
      const forJana = digestOf(await jana.get(since(start), asks), format);
      expect(forJana).toMatchObject({ ChangedTimeEntries: 1, DeletedTimeEntryIDs: String(janasGone.ID) });
      expect(forJana.TotalTimeEntries).toBe(Number((await jana.get('/TimeEntries/$count')).text));
      expect(forJana.TotalTimeEntries).toBeLessThan(forAlex.TotalTimeEntries as number);
      const forTom = digestOf(await tom.get(since(start), asks), format);
      expect(forTom).toMatchObject({ ChangedTimeEntries: 0, DeletedTimeEntryIDs: String(tomsGone.ID) });
      // Tom does not see "Mobile App".
      expect(forTom.TotalProjects).toBe((forAlex.TotalProjects as number) - 1);
      expect(kept.ID).toBeDefined();

      // CurrentServerTime passed back: nothing new.
      const next = digestOf(await alex.get(since(forAlex.CurrentServerTime as number), asks), format);
      expect(next).toMatchObject({ ChangedClients: 0, ChangedProjects: 0, ChangedTimeEntries: 0, DeletedTimeEntryIDs: '' });
    });
  });

  it.each([
    ['a plain ISO 8601 time', 'LastSynchronizationTime=2026-01-01T00:00:00'],
    ['a lower-case parameter name', "lastsynchronizationtime=datetime'2026-01-01T00:00:00'"],
  ])('reads %s', async (_name, query) => {
    const digest = digestOf(await alex.get(`/GetChangesDigest?${query}`, { format: 'json' }), 'json');
    expect(digest.ChangedProjects).toBe(digest.TotalProjects);
  });

  it.each([
    ['without LastSynchronizationTime', ''],
    ['with a time that is not one', 'LastSynchronizationTime=gestern'],
  ])('is a 400 %s', async (_name, query) => {
    for (const format of FORMATS) {
      expect(expectError(await alex.get(`/GetChangesDigest?${query}`, { format }), 400, format).message).toMatch(/LastSynchronizationTime/);
    }
  });
});
