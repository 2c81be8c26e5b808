// The system query options besides `$filter` (service-api.md §4.2 rule 6; data-model.md
// "Behaviour real clients rely on"): `$orderby`, `$top`, `$skip`, `$inlinecount`, `$select`,
// `$expand` (nested), custom parameters without `$` ignored, and every malformed option a 400
// error document in the negotiated format.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdmRecord } from '../../odata/edm.js';
import { testDatabases } from '../helpers/databases.js';
import type { Entity } from '../helpers/odata-client.js';
import { ERROR_CONTENT_TYPE, FORMATS, ODataClient, expectStatus, readEntity, readError, readFeed } from '../helpers/odata-client.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

type Order = ReadonlyArray<readonly [property: string, direction: 'asc' | 'desc']>;

/** The order the service promises: nulls first ascending (last descending), ties by ID. */
function sorted(records: readonly EdmRecord[], order: Order): EdmRecord[] {
  const comparable = (value: unknown) => (value instanceof Date ? value.getTime() : value);
  const compare = (a: EdmRecord, b: EdmRecord): number => {
    for (const [property, direction] of [...order, ['ID', 'asc'] as const]) {
      const x = comparable(a[property]);
      const y = comparable(b[property]);
      if (x === y) continue;
      const ascending = x === null ? -1 : y === null ? 1 : (x as number | string) < (y as number | string) ? -1 : 1;
      return direction === 'asc' ? ascending : -ascending;
    }
    return 0;
  };
  return [...records].sort(compare);
}

const ids = (records: readonly EdmRecord[]) => records.map((r) => r.ID);
const many = (entity: Entity, name: string) => entity.expanded[name] as readonly Entity[];
const one = (entity: Entity, name: string) => entity.expanded[name] as Entity | null;

describe.each(testDatabases)('query options on $name', (kind) => {
  let service: TestService;
  let client: ODataClient;
  let entries: EdmRecord[];

  beforeAll(async () => {
    service = await startTestService(kind);
    client = new ODataClient(service.root, service.admin.apiKey);
    entries = (await client.readAll('/TimeEntries', 'TimeEntries', { format: 'json' })).records;
  });
  afterAll(() => service?.close());

  describe.each(FORMATS)('in %s', (format) => {
    const orders: ReadonlyArray<readonly [string, Order]> = [
      ['StartTime', [['StartTime', 'asc']]],
      ['StartTime desc', [['StartTime', 'desc']]],
      ['ProjectID,StartTime desc', [['ProjectID', 'asc'], ['StartTime', 'desc']]],
      ['TaskID desc,EndTime', [['TaskID', 'desc'], ['EndTime', 'asc']]],
      ['EndTime desc', [['EndTime', 'desc']]],
      ['Billable asc,LastChangeTime desc', [['Billable', 'asc'], ['LastChangeTime', 'desc']]],
    ];

    it.each(orders)('GET /TimeEntries?$orderby=%s sorts the whole set across pages', async (orderBy, order) => {
      const { records, pageSizes } = await client.readAll(`/TimeEntries?$orderby=${encodeURIComponent(orderBy)}`, 'TimeEntries', { format });
      expect(pageSizes.length).toBeGreaterThan(1);
      expect(ids(records)).toEqual(ids(sorted(entries, order)));
    });

    it('GET /TimeEntries?$orderby=Project/Name sorts by a property of the related project', async () => {
      const projects = readFeed(await client.get('/Projects', { format }), 'Projects').records;
      const { records } = await client.readAll('/TimeEntries?$orderby=Project/Name desc', 'TimeEntries', { format });
      const nameOf = (entry: EdmRecord) => projects.find((p) => p.ID === entry.ProjectID)?.Name as string;
      const expected = [...entries].sort((a, b) => (nameOf(a) === nameOf(b) ? (a.ID as number) - (b.ID as number) : nameOf(a) < nameOf(b) ? 1 : -1));
      expect(ids(records)).toEqual(ids(expected));
    });

    it('GET /TimeEntries?$top=7 and ?$skip=5&$top=7 cut the default order', async () => {
      const top = readFeed(await client.get('/TimeEntries?$top=7', { format }), 'TimeEntries');
      expect(ids(top.records)).toEqual(ids(entries.slice(0, 7)));
      expect(top.next).toBeUndefined();
      const skipped = readFeed(await client.get('/TimeEntries?$skip=5&$top=7', { format }), 'TimeEntries');
      expect(ids(skipped.records)).toEqual(ids(entries.slice(5, 12)));
    });

    it('GET /TimeEntries?$orderby=StartTime desc&$skip=3&$top=4 sorts, then skips, then cuts', async () => {
      const { records } = readFeed(await client.get('/TimeEntries?$orderby=StartTime%20desc&$skip=3&$top=4', { format }), 'TimeEntries');
      expect(ids(records)).toEqual(ids(sorted(entries, [['StartTime', 'desc']]).slice(3, 7)));
    });

    it('GET /TimeEntries?$top=0 is an empty list; $skip beyond the end too', async () => {
      expect(readFeed(await client.get('/TimeEntries?$top=0', { format }), 'TimeEntries').records).toEqual([]);
      expect(readFeed(await client.get(`/TimeEntries?$skip=${entries.length}`, { format }), 'TimeEntries').records).toEqual([]);
    });

    it('GET /Projects?$inlinecount=allpages&$top=2 gives the count of all matches with one page', async () => {
      const feed = readFeed(await client.get('/Projects?$inlinecount=allpages&$top=2', { format }), 'Projects');
      expect(feed.count).toBe(6);
      expect(feed.records).toHaveLength(2);
      const filtered = readFeed(await client.get('/TimeEntries?$inlinecount=allpages&$filter=ProjectID%20eq%203&$top=1', { format }), 'TimeEntries');
      expect(filtered.count).toBe(entries.filter((e) => e.ProjectID === 3).length);
    });

    it('GET /Projects?$inlinecount=none has no count', async () => {
      const feed = readFeed(await client.get('/Projects?$inlinecount=none', { format }), 'Projects');
      expect(feed.count).toBeUndefined();
      expect(feed.records).toHaveLength(6);
    });

    it('GET /Projects?$select=Name,HourlyRate returns only those properties', async () => {
      const { records } = readFeed(await client.get('/Projects?$select=Name,HourlyRate', { format }), 'Projects');
      expect(records[0]).toEqual({ Name: 'Website-Relaunch', HourlyRate: '95' });
      expect(records.every((r) => Object.keys(r).sort().join() === 'HourlyRate,Name')).toBe(true);
    });

    it('GET /Projects(2)?$select=Name,Client/Name&$expand=Client selects inside the expansion too', async () => {
      const entity = readEntity(await client.get('/Projects(2)?$select=Name,Client/Name&$expand=Client', { format }), 'Projects');
      expect(entity.values).toEqual({ Name: 'Mobile App' });
      expect(one(entity, 'Client')?.values).toEqual({ Name: 'Nordwind AG' });
    });

    it('GET /Projects(1)?$select=* is every property', async () => {
      const all = readEntity(await client.get('/Projects(1)?$select=*', { format }), 'Projects');
      const plain = readEntity(await client.get('/Projects(1)', { format }), 'Projects');
      expect(all.values).toEqual(plain.values);
    });

    it('GET /Projects(1)?$expand=Client,TimeEntries puts the client and all its entries inline', async () => {
      const entity = readEntity(await client.get('/Projects(1)?$expand=Client,TimeEntries', { format }), 'Projects');
      expect(one(entity, 'Client')?.values.Name).toBe('Nordwind AG');
      expect(many(entity, 'TimeEntries').map((e) => e.values.ID)).toEqual(ids(entries.filter((e) => e.ProjectID === 1)));
    });

    it('GET /Projects(6)?$expand=Client of a project without client expands to null', async () => {
      const entity = readEntity(await client.get('/Projects(6)?$expand=Client', { format }), 'Projects');
      expect(entity.values.Name).toBe('Interne Organisation');
      expect(entity.expanded.Client).toBeNull();
    });

    it('GET /Clients(2)?$expand=Projects/TimeEntries/Task expands three levels deep', async () => {
      const tasks = readFeed(await client.get('/Tasks', { format }), 'Tasks').records;
      const entity = readEntity(await client.get('/Clients(2)?$expand=Projects/TimeEntries/Task', { format }), 'Clients');
      const projects = many(entity, 'Projects');
      expect(projects.map((p) => p.values.Name)).toEqual(['Kundenportal', 'Energie-Dashboard']);
      for (const project of projects) {
        const inline = many(project, 'TimeEntries');
        expect(inline.map((e) => e.values.ID)).toEqual(ids(entries.filter((e) => e.ProjectID === project.values.ID)));
        for (const entry of inline) {
          const task = one(entry, 'Task');
          expect(task?.values.ID ?? null).toBe(entry.values.TaskID);
          if (task !== null) expect(task.values.Description).toBe(tasks.find((t) => t.ID === entry.values.TaskID)?.Description);
        }
      }
    });

    it('GET /TimeEntries?$top=20&$expand=Project/Client,User expands every entry of a page', async () => {
      const feed = readFeed(await client.get('/TimeEntries?$top=20&$expand=Project/Client,User', { format }), 'TimeEntries');
      expect(feed.entities).toHaveLength(20);
      for (const entry of feed.entities) {
        const project = one(entry, 'Project');
        expect(project?.values.ID).toBe(entry.values.ProjectID);
        expect(one(project as Entity, 'Client')?.values.ID ?? null).toBe(project?.values.ClientID);
        expect(one(entry, 'User')?.values.ID).toBe(entry.values.UserID);
      }
    });

    it('parameters without $ are ignored: ?orderby=Name&top=1&foo=bar is the plain list', async () => {
      const reply = await client.get('/Projects?orderby=Name&top=1&foo=bar&sap-client=100', { format });
      expectStatus(reply, 200);
      expect(ids(readFeed(reply, 'Projects').records)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    // [query, what the error message must mention]
    const refused: ReadonlyArray<readonly [string, string]> = [
      ['$foo=1', '$foo'],
      ['$top=-1', '$top'],
      ['$top=abc', '$top'],
      ['$top=1&$top=2', 'twice'],
      ['$skip=x', '$skip'],
      ['$orderby=Nope', 'Nope'],
      ['$orderby=Comment', 'sortable'],
      ['$orderby=StartTime sideways', 'sideways'],
      ['$inlinecount=some', '$inlinecount'],
      ['$select=Nope', 'Nope'],
      ['$expand=Nope', 'Nope'],
      ['$expand=Project/Nope', 'Nope'],
      ['$skiptoken=garbage', '$skiptoken'],
      // Limits against abusive URIs: each a clear 400, not a slow query.
      ['$expand=Project/TimeEntries/Task/TimeEntries', 'deeper than 3'],
      [`$orderby=${Array(11).fill('StartTime').join(',')}`, 'more than 10'],
    ];

    it("GET /TimeEntries?$filter=Comment eq 'xxx…' (5000 characters) is a 400 error document", async () => {
      const reply = await client.get(`/TimeEntries?$filter=${encodeURIComponent(`Comment eq '${'x'.repeat(5000)}'`)}`, { format });
      expect(reply.status).toBe(400);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
      expect(readError(reply).message).toContain('longer than 4096');
    });

    it.each(refused)('GET /TimeEntries?%s is a 400 error document', async (query, mentioned) => {
      const reply = await client.get(`/TimeEntries?${query.replaceAll(' ', '%20')}`, { format });
      expect(reply.status).toBe(400);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
      expect(readError(reply).message).toContain(mentioned);
    });
  });
});
