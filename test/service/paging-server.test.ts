// Server paging (service-api.md §4.2 GET collection row, §8 Limits): at most 100 entities per
// page; when more exist, a next link (`<link rel="next">` in Atom, `__next` in JSON) whose
// address has `$skiptoken='<id of next resource>'`; following the links yields every entity
// exactly once, keeps the request's options, and costs no OFFSET (a row deleted on an earlier
// page does not shift the next one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdmRecord } from '../../odata/edm.js';
import { testDatabases } from '../helpers/databases.js';
import { ERROR_CONTENT_TYPE, FORMATS, ODataClient, expectStatus, readError, readFeed, readLinksPage } from '../helpers/odata-client.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const ids = (records: readonly EdmRecord[]) => records.map((r) => r.ID as number);

/** The query options of a next link, decoded (`$skiptoken` keeps its quotes). */
function optionsOf(link: string): Map<string, string> {
  const url = new URL(link);
  return new Map([...url.searchParams.entries()]);
}

describe.each(testDatabases)('server paging on $name', (kind) => {
  let service: TestService;
  let client: ODataClient;
  let all: EdmRecord[];

  beforeAll(async () => {
    service = await startTestService(kind);
    client = new ODataClient(service.root, service.admin.apiKey);
    const rows = await service.database.db.selectFrom('time_entries').selectAll().orderBy('id').execute();
    all = rows.map((row) => ({ ID: row.id, StartTime: new Date(row.start_time), ProjectID: row.project_id }));
  });
  afterAll(() => service?.close());

  it('the demo account has more than three pages of time entries', () => {
    expect(all.length).toBeGreaterThan(300);
  });

  describe.each(FORMATS)('in %s', (format) => {
    it("GET /TimeEntries: 100 per page, next link with $skiptoken='<id of next resource>'", async () => {
      const reply = await client.get('/TimeEntries', { format });
      expectStatus(reply, 200);
      const page = readFeed(reply, 'TimeEntries');
      expect(ids(page.records)).toEqual(ids(all.slice(0, 100)));
      expect(page.next).toBeDefined();
      const next = page.next as string;
      expect(next.startsWith(`${service.root}/TimeEntries?`)).toBe(true);
      expect(optionsOf(next).get('$skiptoken')).toBe(`'${all[100]?.ID}'`);
    });

    it('following every next link yields each entity once, in order, 100 per page but the last', async () => {
      const { records, pageSizes, links } = await client.readAll('/TimeEntries', 'TimeEntries', { format });
      expect(ids(records)).toEqual(ids(all));
      const full = Math.floor(all.length / 100);
      expect(pageSizes).toEqual([...Array<number>(full).fill(100), ...(all.length % 100 === 0 ? [] : [all.length % 100])]);
      expect(links.map((link) => optionsOf(link).get('$skiptoken'))).toEqual(links.map((_, i) => `'${all[(i + 1) * 100]?.ID}'`));
    });

    it('the last page has no next link; neither has a list of exactly what fits', async () => {
      const { links } = await client.readAll('/TimeEntries', 'TimeEntries', { format });
      const last = readFeed(await client.get(links[links.length - 1] as string, { format }), 'TimeEntries');
      expect(last.next).toBeUndefined();
      expect(readFeed(await client.get('/Projects', { format }), 'Projects').next).toBeUndefined();
    });

    it('next links keep $filter, $orderby, $select, $inlinecount and custom parameters', async () => {
      const query = '$filter=ProjectID%20ne%205&$orderby=StartTime%20desc&$select=ID,StartTime&$inlinecount=allpages&client=tests';
      const first = readFeed(await client.get(`/TimeEntries?${query}`, { format }), 'TimeEntries');
      const options = optionsOf(first.next as string);
      expect(options.get('$filter')).toBe('ProjectID ne 5');
      expect(options.get('$orderby')).toBe('StartTime desc');
      expect(options.get('$select')).toBe('ID,StartTime');
      expect(options.get('client')).toBe('tests');
      const expected = all.filter((e) => e.ProjectID !== 5)
        .sort((a, b) => (b.StartTime as Date).getTime() - (a.StartTime as Date).getTime() || (a.ID as number) - (b.ID as number));
      const { records } = await client.readAll(`/TimeEntries?${query}`, 'TimeEntries', { format });
      expect(ids(records)).toEqual(ids(expected));
      expect(records.every((r) => Object.keys(r).sort().join() === 'ID,StartTime')).toBe(true);
      expect(first.count).toBe(expected.length);
      expect(readFeed(await client.get(first.next as string, { format }), 'TimeEntries').count).toBe(expected.length);
    });

    it('next links keep $expand: the second page is expanded like the first', async () => {
      const first = readFeed(await client.get('/TimeEntries?$expand=Project/Client', { format }), 'TimeEntries');
      expect(optionsOf(first.next as string).get('$expand')).toBe('Project/Client');
      const second = readFeed(await client.get(first.next as string, { format }), 'TimeEntries');
      expect(second.entities).toHaveLength(100);
      for (const entity of second.entities) {
        const project = entity.expanded.Project as { values: EdmRecord; expanded: Record<string, unknown> };
        expect(project.values.ID).toBe(entity.values.ProjectID);
        expect('Client' in project.expanded).toBe(true);
      }
    });

    it('paging by related values (nulls included) without selecting them still yields each entity once, in order', async () => {
      const db = service.database.db;
      const rows = await db.selectFrom('time_entries as t').innerJoin('projects as p', 'p.id', 't.project_id')
        .leftJoin('tasks as k', 'k.id', 't.task_id').select(['t.id', 'p.name as project', 'k.description as task']).execute();
      // Task/Description desc: nulls last; then Project/Name ascending; then ID.
      const byCodePoint = (a: string, b: string) => (a === b ? 0 : a < b ? -1 : 1);
      const expected = [...rows].sort((a, b) => (a.task === b.task ? 0 : a.task === null ? 1 : b.task === null ? -1 : -byCodePoint(a.task, b.task))
        || byCodePoint(a.project, b.project) || a.id - b.id);
      const { records, pageSizes } = await client.readAll('/TimeEntries?$select=ID&$orderby=Task/Description%20desc,Project/Name', 'TimeEntries', { format });
      expect(pageSizes.length).toBeGreaterThan(3);
      expect(ids(records)).toEqual(expected.map((row) => row.id));
    });

    it('under $orderby the token holds the order values and the key of the next entity', async () => {
      const first = readFeed(await client.get('/TimeEntries?$orderby=StartTime', { format }), 'TimeEntries');
      const sorted = [...all].sort((a, b) => (a.StartTime as Date).getTime() - (b.StartTime as Date).getTime() || (a.ID as number) - (b.ID as number));
      const nextEntity = sorted[100] as EdmRecord;
      const token = optionsOf(first.next as string).get('$skiptoken') as string;
      expect(token).toContain(`${nextEntity.ID}'`);
      expect(token).toContain((nextEntity.StartTime as Date).toISOString().slice(0, 19));
    });

    it('a client authenticating by the ApiKey parameter can follow the next link as given', async () => {
      const byQuery = client.as(service.jana.apiKey, 'query');
      const first = await byQuery.get('/TimeEntries?$top=150', { format });
      const page = readFeed(first, 'TimeEntries');
      expect(page.records).toHaveLength(100);
      expect(optionsOf(page.next as string).get('ApiKey')).toBe(service.jana.apiKey);
      const second = await client.as(null).get(page.next as string, { format });
      expectStatus(second, 200);
      const rest = readFeed(second, 'TimeEntries');
      expect(rest.records.length).toBeGreaterThan(0);
      expect(rest.records.length).toBeLessThanOrEqual(50);
    });

    it('$top above the page size is served over several pages and stops at $top', async () => {
      const { records, pageSizes, links } = await client.readAll('/TimeEntries?$top=250', 'TimeEntries', { format });
      expect(ids(records)).toEqual(ids(all.slice(0, 250)));
      expect(pageSizes).toEqual([100, 100, 50]);
      expect(links.map((link) => optionsOf(link).get('$top'))).toEqual(['150', '50']);
    });

    it('$top below the page size has no next link; $skip is applied before paging', async () => {
      expect(readFeed(await client.get('/TimeEntries?$top=99', { format }), 'TimeEntries').next).toBeUndefined();
      const { records, links } = await client.readAll('/TimeEntries?$skip=150', 'TimeEntries', { format });
      expect(ids(records)).toEqual(ids(all.slice(150)));
      expect(links.every((link) => !optionsOf(link).has('$skip'))).toBe(true);
    });

    it('navigation collections page the same way: /Users(n)/TimeEntries', async () => {
      const { records, pageSizes } = await client.readAll(`/Users(${service.admin.userId})/TimeEntries`, 'TimeEntries', { format });
      const rows = await service.database.db.selectFrom('time_entries').select('id').where('user_id', '=', service.admin.userId).orderBy('id').execute();
      expect(rows.length).toBeGreaterThan(100);
      expect(ids(records)).toEqual(rows.map((r) => r.id));
      expect(pageSizes[0]).toBe(100);
    });

    it('$links page like feeds: /Users(n)/$links/TimeEntries has a next link, and following it yields every link once', async () => {
      const accept = format === 'json' ? 'application/json' : 'application/xml';
      const rows = await service.database.db.selectFrom('time_entries').select('id').where('user_id', '=', service.admin.userId).orderBy('id').execute();
      const uris: string[] = [];
      let next: string | undefined = `/Users(${service.admin.userId})/$links/TimeEntries?$inlinecount=allpages`;
      for (let pages = 0; next !== undefined; pages++) {
        expect(pages).toBeLessThan(5);
        const reply = await client.get(next, { headers: { accept } });
        expectStatus(reply, 200);
        const page = readLinksPage(reply);
        expect(page.count).toBe(rows.length);
        expect(page.uris.length).toBeLessThanOrEqual(100);
        uris.push(...page.uris);
        next = page.next;
      }
      expect(uris).toEqual(rows.map((row) => `${service.root}/TimeEntries(${row.id})`));
    });

    it('a $skiptoken the service did not write, or one for another $orderby, is a 400 error document', async () => {
      for (const query of ["$skiptoken='abc'", '$skiptoken=%27', "$orderby=StartTime&$skiptoken='101'", "$skiptoken='1,2'"]) {
        const reply = await client.get(`/TimeEntries?${query}`, { format });
        expect(reply.status, query).toBe(400);
        expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
        expect(readError(reply).message).toContain('$skiptoken');
      }
    });
  });

  it('keyset paging: deleting a row of page one does not shift page two', async () => {
    const first = readFeed(await client.get('/TimeEntries?$select=ID', { format: 'json' }), 'TimeEntries');
    await service.database.db.deleteFrom('time_entries').where('id', '=', first.records[3]?.ID as number).execute();
    const second = readFeed(await client.get(first.next as string, { format: 'json' }), 'TimeEntries');
    expect(ids(second.records)).toEqual(ids(all.slice(100, 200)));
  });
});

describe.each(testDatabases)('a configured page size on $name', (kind) => {
  let service: TestService;
  let client: ODataClient;

  beforeAll(async () => {
    service = await startTestService(kind, { pageSize: 25 });
    client = new ODataClient(service.root, service.tom.apiKey);
  });
  afterAll(() => service?.close());

  it.each(FORMATS)('pageSize 25: pages of 25 in %s, every entity once', async (format) => {
    const rows = await service.database.db.selectFrom('time_entries').select('id').where('user_id', '=', service.tom.userId).orderBy('id').execute();
    const { records, pageSizes } = await client.readAll('/TimeEntries', 'TimeEntries', { format });
    expect(ids(records)).toEqual(rows.map((r) => r.id));
    expect(pageSizes.slice(0, -1).every((size) => size === 25)).toBe(true);
    expect(pageSizes.length).toBe(Math.ceil(rows.length / 25));
  });

  it('$top=10 is smaller than a page and is honoured', async () => {
    expect(readFeed(await client.get('/Tasks?$top=2'), 'Tasks').records).toHaveLength(2);
    const page = readFeed(await client.get('/TimeEntries?$top=10'), 'TimeEntries');
    expect(page.records).toHaveLength(10);
    expect(page.next).toBeUndefined();
  });
});
