// Reading the data (service-api.md §2.1, §4.2 GET rows and rules 3-4): a collection, one entity
// by key, navigation to one and to many, a single property and its `$value`, `$count` and
// `$links`, in Atom and in JSON, checked against what the database holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import {
  CONTENT_TYPE, ERROR_CONTENT_TYPE, FORMATS, ODataClient, expectStatus, readEntry, readError, readFeed, readLinks, readProperty,
} from '../helpers/odata-client.js';
import { DEMO_NOW, startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';
import type { Format } from '../helpers/odata-client.js';

// A property and `$links` have no Atom form, only plain XML: a client working in Atom accepts
// both, as .NET's WCF client does.
const DOCUMENT_ACCEPT: Readonly<Record<Format, string>> = { atom: 'application/atom+xml,application/xml', json: 'application/json' };

describe.each(testDatabases)('reading entities on $name', (kind) => {
  let service: TestService;
  let client: ODataClient;

  beforeAll(async () => {
    service = await startTestService(kind);
    client = new ODataClient(service.root, service.admin.apiKey);
  });
  afterAll(() => service?.close());

  /** The IDs of time entries the database holds, as the oracle of what a read must show. */
  async function entryIdsWhere(column: 'project_id' | 'user_id' | 'task_id', value: number): Promise<number[]> {
    const rows = await service.database.db.selectFrom('time_entries').select('id').where(column, '=', value).orderBy('id').execute();
    return rows.map((row) => row.id);
  }

  describe.each(FORMATS)('in %s', (format) => {
    it('GET /Projects lists the six demo projects in key order', async () => {
      const reply = await client.get('/Projects', { format });
      expectStatus(reply, 200);
      expect(reply.contentType).toBe(CONTENT_TYPE[format]);
      const feed = readFeed(reply, 'Projects');
      expect(feed.records.map((p) => [p.ID, p.Name, p.Active])).toEqual([
        [1, 'Website-Relaunch', true], [2, 'Mobile App', true], [3, 'Kundenportal', true],
        [4, 'Energie-Dashboard', true], [5, 'Kassensystem', false], [6, 'Interne Organisation', true],
      ]);
      expect(feed.next).toBeUndefined();
    });

    it('GET /Projects(1) is the project with every property typed', async () => {
      const reply = await client.get('/Projects(1)', { format });
      expectStatus(reply, 200);
      expect(reply.contentType).toBe(CONTENT_TYPE[format]);
      expect(readEntry(reply, 'Projects')).toEqual({
        ID: 1, Name: 'Website-Relaunch', Active: true, Comment: null, TimeBudget: 200 * 3600, ClientID: 1, HourlyRate: '95',
        AssignedToCurrentUser: true, AssignedUsers: null, AssignedTasks: null,
        Custom1: 'KST-100', Custom2: null, Custom3: null, Custom4: null, Custom5: null,
        LastChangeTime: new Date(DEMO_NOW), LastChangeAuthor: service.admin.userId, Version: 1,
      });
    });

    it('GET /Clients, /Tasks, /Users and /AccountSettings list the demo master data', async () => {
      const names = async (set: string, property: string) => readFeed(await client.get(`/${set}`, { format }), set).records.map((r) => r[property]);
      expect(await names('Clients', 'Name')).toEqual(['Nordwind AG', 'Stadtwerke Musterstadt', 'Bäckerei Sonnenschein']);
      expect(await names('Tasks', 'Description')).toEqual(['Konzeption', 'Entwicklung', 'Besprechung', 'Support', 'Verwaltung']);
      expect(await names('Tasks', 'Billable')).toEqual([true, true, true, true, false]);
      expect(await names('Users', 'Email')).toEqual(['alex.berger@demo.example', 'jana.schmidt@demo.example', 'tom.weber@demo.example']);
      expect(await names('Users', 'AccessRights')).toEqual([20, 10, 10]);
      const settings = readFeed(await client.get('/AccountSettings', { format }), 'AccountSettings').records;
      expect(settings).toHaveLength(1);
      expect(settings[0]).toMatchObject({ CompanyName: 'Demo GmbH', ProjectCustom1Label: 'Kostenstelle', TimeEntryCustom1Label: 'Ticket' });
    });

    it('GET /TimeEntries(n) carries the computed duration and revenue', async () => {
      const row = await service.database.db.selectFrom('time_entries').selectAll().where('project_id', '=', 1)
        .where('billable', '=', 1).where('end_time', 'is not', null).orderBy('id').executeTakeFirstOrThrow();
      const entry = readEntry(await client.get(`/TimeEntries(${row.id})`, { format }), 'TimeEntries');
      const seconds = ((row.end_time as number) - row.start_time) / 1000;
      expect(entry).toMatchObject({
        ID: row.id, ProjectID: 1, UserID: row.user_id, StartTime: new Date(row.start_time), EndTime: new Date(row.end_time as number),
        DurationSeconds: seconds, Billable: true, RevenuePerHour: '95',
        DurationString: `${String(Math.floor(seconds / 3600)).padStart(2, '0')}:${String(Math.floor(seconds / 60) % 60).padStart(2, '0')}`,
      });
      expect(Number(entry.RevenueTotal)).toBeCloseTo((95 * seconds) / 3600, 2);
    });

    it("GET /TimeEntries(n) of Tom's running stopwatch has no EndTime and the time elapsed so far", async () => {
      const running = await service.database.db.selectFrom('time_entries').select(['id', 'start_time'])
        .where('end_time', 'is', null).executeTakeFirstOrThrow();
      const before = Date.now();
      const entry = readEntry(await client.get(`/TimeEntries(${running.id})`, { format }), 'TimeEntries');
      expect(entry.EndTime).toBeNull();
      expect(entry.Comment).toBe('Stoppuhr läuft');
      expect(entry.DurationSeconds).toBeGreaterThanOrEqual(Math.floor((before - running.start_time) / 1000) - 1);
    });

    it('GET /Projects(2)/Client navigates to one', async () => {
      const reply = await client.get('/Projects(2)/Client', { format });
      expectStatus(reply, 200);
      expect(reply.contentType).toBe(CONTENT_TYPE[format]);
      expect(readEntry(reply, 'Clients')).toMatchObject({ ID: 1, Name: 'Nordwind AG' });
    });

    it('GET /Projects(6)/Client of a project without client is a 404 error document', async () => {
      const reply = await client.get('/Projects(6)/Client', { format });
      expect(reply.status).toBe(404);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
      expect(readError(reply).message).toContain('Client');
    });

    it('GET /Projects(1)/TimeEntries navigates to many: exactly the entries booked on it', async () => {
      const { records } = await client.readAll('/Projects(1)/TimeEntries', 'TimeEntries', { format });
      expect(records.map((r) => r.ID)).toEqual(await entryIdsWhere('project_id', 1));
      expect(new Set(records.map((r) => r.ProjectID))).toEqual(new Set([1]));
    });

    it('GET /Clients(2)/Projects, /Users(2)/TimeEntries and /Tasks(5)/TimeEntries navigate to many', async () => {
      const projects = readFeed(await client.get('/Clients(2)/Projects', { format }), 'Projects').records;
      expect(projects.map((p) => p.Name)).toEqual(['Kundenportal', 'Energie-Dashboard']);
      const jana = await client.readAll(`/Users(${service.jana.userId})/TimeEntries`, 'TimeEntries', { format });
      expect(jana.records.map((r) => r.ID)).toEqual(await entryIdsWhere('user_id', service.jana.userId));
      const admin = await client.readAll('/Tasks(5)/TimeEntries', 'TimeEntries', { format });
      expect(admin.records.map((r) => r.ID)).toEqual(await entryIdsWhere('task_id', 5));
      expect(admin.records.every((r) => r.Billable === false)).toBe(true);
    });

    it('GET /TimeEntries(n)/Project, /Task and /User navigate back to one', async () => {
      const row = await service.database.db.selectFrom('time_entries').select(['id', 'project_id', 'task_id', 'user_id'])
        .where('task_id', 'is not', null).orderBy('id').executeTakeFirstOrThrow();
      expect(readEntry(await client.get(`/TimeEntries(${row.id})/Project`, { format }), 'Projects').ID).toBe(row.project_id);
      expect(readEntry(await client.get(`/TimeEntries(${row.id})/Task`, { format }), 'Tasks').ID).toBe(row.task_id);
      expect(readEntry(await client.get(`/TimeEntries(${row.id})/User`, { format }), 'Users').ID).toBe(row.user_id);
    });

    it('GET /Projects(2)/Client/Projects(1) goes on through a second navigation', async () => {
      const reply = await client.get('/Projects(2)/Client/Projects(1)', { format });
      expectStatus(reply, 200);
      expect(readEntry(reply, 'Projects').Name).toBe('Website-Relaunch');
      const missing = await client.get('/Projects(2)/Client/Projects(3)', { format });
      expect(missing.status).toBe(404);
    });

    it('GET /Projects(1)/Name and other single properties read typed values', async () => {
      const property = async (path: string, name: string) => {
        const reply = await client.get(`${path}/${name}`, { headers: { accept: DOCUMENT_ACCEPT[format] } });
        expectStatus(reply, 200);
        expect(reply.contentType).toBe(format === 'json' ? CONTENT_TYPE.json : 'application/xml;charset=utf-8');
        return readProperty(reply, 'Projects', name);
      };
      expect(await property('/Projects(1)', 'Name')).toBe('Website-Relaunch');
      expect(await property('/Projects(1)', 'TimeBudget')).toBe(720000);
      expect(await property('/Projects(1)', 'HourlyRate')).toBe('95');
      expect(await property('/Projects(1)', 'Active')).toBe(true);
      expect(await property('/Projects(1)', 'Comment')).toBeNull();
      expect(await property('/Projects(1)', 'LastChangeTime')).toEqual(new Date(DEMO_NOW));
    });

    it('GET /Projects(2)/Client/Name reads a property through navigation', async () => {
      const reply = await client.get('/Projects(2)/Client/Name', { headers: { accept: DOCUMENT_ACCEPT[format] } });
      expectStatus(reply, 200);
      expect(readProperty(reply, 'Clients', 'Name')).toBe('Nordwind AG');
    });

    it('GET /Projects(1)/$links/TimeEntries lists the URIs of the entries booked on it', async () => {
      const reply = await client.get('/Projects(1)/$links/TimeEntries', { headers: { accept: DOCUMENT_ACCEPT[format] } });
      expectStatus(reply, 200);
      expect(reply.contentType).toBe(format === 'json' ? CONTENT_TYPE.json : 'application/xml;charset=utf-8');
      const ids = (await entryIdsWhere('project_id', 1)).slice(0, 100);
      expect(readLinks(reply)).toEqual(ids.map((id) => `${service.root}/TimeEntries(${id})`));
    });

    it('GET /TimeEntries(n)/$links/Project is the URI of its project', async () => {
      const [first] = await entryIdsWhere('project_id', 3);
      const reply = await client.get(`/TimeEntries(${first})/$links/Project`, { headers: { accept: DOCUMENT_ACCEPT[format] } });
      expectStatus(reply, 200);
      expect(readLinks(reply)).toEqual([`${service.root}/Projects(3)`]);
    });

    it('GET /Projects(999) is a 404 error document', async () => {
      const reply = await client.get('/Projects(999)', { format });
      expect(reply.status).toBe(404);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
      expect(readError(reply).message).toContain('Projects(999)');
    });

    it("GET /Projects('1') and /Projects(1.5): a key of the wrong type is a 400 error document", async () => {
      for (const key of ["'1'", '1.5', '1L', 'x', '2147483648', "ID='1'"]) {
        const reply = await client.get(`/Projects(${key})`, { format });
        expect(reply.status, key).toBe(400);
        expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
        expect(readError(reply).message.length).toBeGreaterThan(0);
      }
    });

    it('GET /Projects(1)/Nope: an unknown navigation or property is a 404 error document', async () => {
      const reply = await client.get('/Projects(1)/Nope', { format });
      expect(reply.status).toBe(404);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
    });
  });

  describe('$count and $value (plain text whatever the format asked)', () => {
    it('GET /Projects/$count is a bare integer as text/plain', async () => {
      const reply = await client.get('/Projects/$count');
      expectStatus(reply, 200);
      expect(reply.contentType).toBe('text/plain;charset=utf-8');
      expect(reply.text).toBe('6');
    });

    it('GET /TimeEntries/$count, /Projects(1)/TimeEntries/$count and with $filter count what the database holds', async () => {
      const all = await service.database.db.selectFrom('time_entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect((await client.get('/TimeEntries/$count')).text).toBe(String(all.n));
      const ofProject = (await entryIdsWhere('project_id', 1)).length;
      expect((await client.get('/Projects(1)/TimeEntries/$count')).text).toBe(String(ofProject));
      expect((await client.get('/TimeEntries/$count?$filter=ProjectID eq 1')).text).toBe(String(ofProject));
      expect((await client.get('/Projects(1)/$links/TimeEntries/$count')).text).toBe(String(ofProject));
    });

    it('$count counts what $filter leaves and ignores $top, $skip and $orderby (as the SAP Cloud SDK expects)', async () => {
      const all = (await client.get('/TimeEntries/$count')).text;
      for (const query of ['$top=5', '$skip=300', '$orderby=StartTime desc', '$top=1&$skip=1']) {
        expect((await client.get(`/TimeEntries/$count?${query.replaceAll(' ', '%20')}`)).text, query).toBe(all);
      }
    });

    it('GET /Projects(1)/Name/$value is the raw text', async () => {
      const reply = await client.get('/Projects(1)/Name/$value');
      expectStatus(reply, 200);
      expect(reply.contentType).toBe('text/plain;charset=utf-8');
      expect(reply.text).toBe('Website-Relaunch');
    });

    it('GET $value of numbers, booleans and dates is their plain text', async () => {
      expect((await client.get('/Projects(1)/TimeBudget/$value')).text).toBe('720000');
      expect((await client.get('/Projects(5)/Active/$value')).text).toBe('false');
      expect((await client.get('/Projects(1)/HourlyRate/$value')).text).toBe('95.00');
      expect(new Date(`${(await client.get('/Projects(1)/LastChangeTime/$value')).text}Z`).getTime()).toBe(DEMO_NOW);
    });

    it('GET $value of a null property is a 404 error document (a null has no raw value)', async () => {
      const reply = await client.get('/Projects(1)/Comment/$value', { format: 'json' });
      expect(reply.status).toBe(404);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE.json);
      expect(readError(reply).message).toContain('Comment');
    });
  });

  describe('the shape of Atom entries (rule 3)', () => {
    it('every property carries m:type, null is m:null="true", the category term is the entity type', async () => {
      const { text } = await client.get('/Projects(1)');
      expect(text).toContain('<category term="Service.Project" scheme="http://schemas.microsoft.com/ado/2007/08/dataservices/scheme"/>');
      expect(text).toContain('<d:ID m:type="Edm.Int32">1</d:ID>');
      expect(text).toContain('<d:Active m:type="Edm.Boolean">true</d:Active>');
      expect(text).toContain('<d:LastChangeTime m:type="Edm.DateTime">2026-11-20T15:30:00.000</d:LastChangeTime>');
      expect(text).toMatch(/<d:Comment m:type="Edm.String" m:null="true"\/>/);
      const properties = [...text.matchAll(/<d:(\w+)( [^>]*)?>/g)];
      expect(properties.length).toBeGreaterThan(10);
      expect(properties.filter((m) => !(m[2] ?? '').includes('m:type="Edm.'))).toEqual([]);
    });

    it('navigation properties are links with the related rel, the entry has an edit link', async () => {
      const { text } = await client.get('/Projects(1)');
      expect(text).toContain('<link href="Projects(1)" rel="edit" title="Project"/>');
      expect(text).toContain('rel="http://schemas.microsoft.com/ado/2007/08/dataservices/related/Client"');
      expect(text).toContain('rel="http://schemas.microsoft.com/ado/2007/08/dataservices/related/TimeEntries"');
    });
  });

  describe('the shape of JSON entries (rule 4)', () => {
    it('each entity has __metadata (absolute uri, type, etag) and a __deferred uri per navigation property', async () => {
      const reply = await client.get('/TimeEntries?$top=1', { format: 'json' });
      const [entry] = JSON.parse(reply.text).d.results;
      const id = entry.ID as number;
      expect(entry.__metadata).toEqual({ uri: `${service.root}/TimeEntries(${id})`, type: 'Service.TimeEntry', etag: 'W/"1"' });
      for (const navigation of ['Project', 'Task', 'User']) {
        expect(entry[navigation]).toEqual({ __deferred: { uri: `${service.root}/TimeEntries(${id})/${navigation}` } });
      }
      expect(entry.StartTime).toMatch(/^\/Date\(\d+\)\/$/);
    });

    it('a single entity is {"d":{...}}, a list {"d":{"results":[...]}}', async () => {
      const single = JSON.parse((await client.get('/Clients(1)', { format: 'json' })).text);
      expect(single.d.Name).toBe('Nordwind AG');
      const list = JSON.parse((await client.get('/Clients', { format: 'json' })).text);
      expect(list.d.results).toHaveLength(3);
    });
  });
});
