// POST creates an entity (service-api.md §4.2, data-model.md): 201, a Location header with the
// new entity's address, the created entity in the negotiated format with the ID the service
// assigned; an ID in the payload is refused; omitted properties get their defaults; the service
// sets LastChangeTime and LastChangeAuthor and computes what time entries derive.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NS_ATOM, NS_DATA, NS_METADATA } from '../../odata/namespaces.js';
import { escapeXmlText } from '../../odata/xml-escape.js';
import { testDatabases } from '../helpers/databases.js';
import type { Format } from '../helpers/odata-client.js';
import { CONTENT_TYPE, FORMATS, ODataClient, expectStatus, idOf, payload, rawPayload, readEntry } from '../helpers/odata-client.js';
import type { DataSnapshot, DemoCatalogue } from '../helpers/odata-payloads.js';
import { booking, create, demoCatalogue, expectError, expectUnchanged, readBack, snapshot } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

describe.each(testDatabases)('POST creates entities on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;
  let jana: ODataClient;
  let demo: DemoCatalogue;

  beforeAll(async () => {
    service = await startTestService(kind);
    alex = new ODataClient(service.root, service.admin.apiKey);
    jana = alex.as(service.jana.apiKey);
    demo = await demoCatalogue(service);
  });

  afterAll(() => service?.close());

  describe.each(FORMATS)('in %s', (format: Format) => {
    it('answers 201 with the created project, its new ID and its address in Location', async () => {
      const reply = await alex.send('POST', '/Projects', payload(format, { Name: `Neu ${format}`, Active: true, Comment: 'angelegt', TimeBudget: 36_000, ClientID: demo.clients.nordwind, HourlyRate: '120.50' }), { format });

      expectStatus(reply, 201);
      expect(reply.contentType).toBe(CONTENT_TYPE[format]);
      const location = reply.headers.get('location');
      expect(location).toMatch(new RegExp(`^${service.root.replaceAll('.', '\\.')}/Projects\\(\\d+\\)$`));
      const created = readEntry(reply, 'Projects');
      expect(created).toMatchObject({ ID: idOf(location), Name: `Neu ${format}`, Active: true, Comment: 'angelegt', TimeBudget: 36_000, ClientID: demo.clients.nordwind, HourlyRate: '120.5' });
      // Decimals go over the wire with their scale of two places (the reader above canonicalises).
      if (format === 'atom') {
        expect(reply.text).toContain('<category term="Service.Project"');
        expect(reply.text).toContain('<d:HourlyRate m:type="Edm.Decimal">120.50</d:HourlyRate>');
      } else {
        expect(JSON.parse(reply.text).d.__metadata).toEqual({ uri: location, type: 'Service.Project', etag: 'W/"1"' });
        expect(reply.headers.get('etag')).toBe('W/"1"');
        expect(reply.text).toContain('"HourlyRate":"120.50"');
      }
      // The address in Location serves the same entity, in the same document but the feed time.
      expect(await readBack(alex, `/Projects(${idOf(location)})`, 'Projects')).toEqual(created);
      const read = await alex.get(location ?? '', { format });
      const withoutUpdated = (text: string) => text.replace(/<updated>[^<]*<\/updated>/, '');
      expect(withoutUpdated(read.text)).toBe(withoutUpdated(reply.text));
    });

    it('stores a project without Active as inactive and every omitted optional property as null', async () => {
      const created = await create(alex, 'Projects', { Name: `Minimal ${format}` }, format);
      expect(created).toMatchObject({
        Active: false, Comment: null, TimeBudget: null, ClientID: null, HourlyRate: null, AssignedUsers: null, AssignedTasks: null,
        Custom1: null, Custom5: null, AssignedToCurrentUser: true,
      });
    });

    it('sets LastChangeTime and LastChangeAuthor itself, whatever the payload says', async () => {
      const before = Date.now();
      const created = await create(alex, 'Clients', { Name: `Kunde ${format}`, LastChangeTime: new Date(Date.UTC(2001, 0, 1)), LastChangeAuthor: 4711 }, format);
      const after = Date.now();
      expect(created.LastChangeAuthor).toBe(service.admin.userId);
      const changed = (created.LastChangeTime as Date).getTime();
      expect(changed).toBeGreaterThanOrEqual(before);
      expect(changed).toBeLessThanOrEqual(after);
    });

    it('refuses an ID in the payload with 400 and stores nothing', async () => {
      const before: DataSnapshot = await snapshot(service);
      const reply = await alex.send('POST', '/Projects', payload(format, { ID: 4242, Name: 'Mit ID' }), { format });
      const error = expectError(reply, 400, format);
      expect(error.message).toMatch(/\bID\b/);
      await expectUnchanged(service, before);
    });

    it('creates clients inactive and tasks billable and active unless told otherwise', async () => {
      const client = await create(alex, 'Clients', { Name: `Kunde ohne Flag ${format}` }, format);
      expect(client).toMatchObject({ Active: false, Comment: null });
      const task = await create(alex, 'Tasks', { Description: `Tätigkeit ${format}` }, format);
      expect(task).toMatchObject({ Billable: true, Active: true, Comment: null });
      const unbillable = await create(alex, 'Tasks', { Description: `Intern ${format}`, Billable: false, Active: false }, format);
      expect(unbillable).toMatchObject({ Billable: false, Active: false });
    });

    it('books a time entry for the caller with the defaults and computed values of data-model.md', async () => {
      const before = Date.now();
      const entry = await create(jana, 'TimeEntries', {
        ProjectID: demo.projects.websiteRelaunch, TaskID: demo.tasks.entwicklung,
        StartTime: new Date('2026-11-16T08:00:00Z'), EndTime: new Date('2026-11-16T09:30:00Z'), Comment: `Umsetzung ${format}`,
      }, format);
      expect(entry).toMatchObject({
        UserID: service.jana.userId, TypeID: 2, Billable: true, Locked: false, IsEditable: true,
        DurationSeconds: 5400, DurationString: '01:30', RevenuePerHour: '95', RevenueTotal: '142.5',
        Custom1: null, LastChangeAuthor: service.jana.userId,
      });
      expect((entry.LastChangeTime as Date).getTime()).toBeGreaterThanOrEqual(before);
      expect(await readBack(jana, `/TimeEntries(${entry.ID as number})`, 'TimeEntries')).toEqual(entry);
    });

    it('takes Billable from the task, true without a task, and the payload\'s Billable over both', async () => {
      const fromTask = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-09', { TaskID: demo.tasks.verwaltung }), format);
      expect(fromTask).toMatchObject({ Billable: false, RevenuePerHour: '95', RevenueTotal: null });
      const noTask = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-10'), format);
      expect(noTask).toMatchObject({ TaskID: null, Billable: true, RevenueTotal: '95' });
      const given = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-11', { TaskID: demo.tasks.verwaltung, Billable: true }), format);
      expect(given.Billable).toBe(true);
      const noRate = await create(jana, 'TimeEntries', booking(demo.projects.interneOrganisation, '2026-11-12'), format);
      expect(noRate).toMatchObject({ RevenuePerHour: null, RevenueTotal: null });
    });

    it('books a duration entry (TypeID 1) and drops the read-only values a client sends back', async () => {
      const entry = await create(jana, 'TimeEntries', {
        TypeID: 1, ProjectID: demo.projects.kundenportal, StartTime: new Date('2026-11-13T00:00:00Z'), EndTime: new Date('2026-11-13T02:15:00Z'),
        DurationSeconds: 1, DurationString: '99:99', IsEditable: false, RevenueTotal: '1.00',
      }, format);
      expect(entry).toMatchObject({ TypeID: 1, DurationSeconds: 8100, DurationString: '02:15', IsEditable: true, RevenuePerHour: '85.5', RevenueTotal: '192.38' });
    });

    it('keeps text exactly as sent: blanks, line breaks, markup characters, umlauts, emoji', async () => {
      const comment = '  Zeile 1\r\nZeile 2\n\tEingerückt <b>&amp;</b> "zitiert" \'einfach\' ]]> ÄÖÜß € 😀  ';
      // In Atom a carriage return travels as &#xD; (a raw one is a line end XML normalises away).
      const body = format === 'json'
        ? payload('json', { Name: '  Leerzeichen  ', Comment: comment })
        : rawPayload(`<entry xmlns="${NS_ATOM}" xmlns:d="${NS_DATA}" xmlns:m="${NS_METADATA}"><content type="application/xml"><m:properties>`
          + `<d:Name>  Leerzeichen  </d:Name><d:Comment>${escapeXmlText(comment)}</d:Comment></m:properties></content></entry>`, 'application/atom+xml');
      const reply = await alex.send('POST', '/Projects', body, { format });
      expectStatus(reply, 201);
      const created = readEntry(reply, 'Projects');
      expect(created).toMatchObject({ Name: '  Leerzeichen  ', Comment: comment });
      for (const readFormat of FORMATS) {
        const reply = await alex.get(`/Projects(${created.ID as number})`, { format: readFormat });
        expect(readEntry(reply, 'Projects')).toMatchObject({ Name: '  Leerzeichen  ', Comment: comment });
      }
    });

    it('lets an administrator book for another user, who then owns the entry', async () => {
      const entry = await create(alex, 'TimeEntries', booking(demo.projects.mobileApp, '2026-11-05', { UserID: service.jana.userId }), format);
      expect(entry).toMatchObject({ UserID: service.jana.userId, LastChangeAuthor: service.admin.userId });
      expect((await readBack(jana, `/TimeEntries(${entry.ID as number})`, 'TimeEntries')).UserID).toBe(service.jana.userId);
    });

    it('creates a time entry below its project (POST Projects(id)/TimeEntries) with ProjectID from the URI', async () => {
      const { ProjectID: _omitted, ...withoutProject } = booking(demo.projects.kundenportal, '2026-11-04');
      const reply = await jana.send('POST', `/Projects(${demo.projects.kundenportal})/TimeEntries`, payload(format, withoutProject), { format });
      expectStatus(reply, 201);
      expect(readEntry(reply, 'TimeEntries')).toMatchObject({ ProjectID: demo.projects.kundenportal, UserID: service.jana.userId });
      expect(reply.headers.get('location')).toMatch(/\/TimeEntries\(\d+\)$/);
    });
  });

  it('writes Location and the entity\'s URIs on the host the request came in on, with the canonical root path', async () => {
    const { port } = new URL(service.origin);
    const body = JSON.stringify({ Name: 'Anderer Host' });
    const answer = await new Promise<{ status: number; location: string | undefined; text: string }>((resolve, reject) => {
      const request = httpRequest({
        host: '127.0.0.1', port: Number(port), method: 'POST', path: '/v1/api.svc/Clients',
        headers: { host: `localhost:${port}`, 'content-type': 'application/json', accept: 'application/json', 'x-serviceapikey': service.admin.apiKey, 'content-length': Buffer.byteLength(body) },
      }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, location: response.headers.location, text }));
      });
      request.on('error', reject);
      request.end(body);
    });
    expect(answer.status).toBe(201);
    expect(answer.location).toMatch(new RegExp(`^http://localhost:${port}/V1/Api\\.svc/Clients\\(\\d+\\)$`));
    expect(JSON.parse(answer.text).d.__metadata.uri).toBe(answer.location);
  });

  it('shows no revenue while the account has hourly rates switched off', async () => {
    const { db } = service.database;
    await db.updateTable('account_settings').set({ hourly_rates_enabled: 0 }).where('account_id', '=', service.accountId).execute();
    try {
      const entry = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-06'));
      expect(entry).toMatchObject({ Billable: true, RevenuePerHour: null, RevenueTotal: null, DurationSeconds: 3600 });
    } finally {
      await db.updateTable('account_settings').set({ hourly_rates_enabled: 1 }).where('account_id', '=', service.accountId).execute();
    }
  });

  it.each(['header', 'basic', 'bearer'] as const)('takes the key of a write as %s (§5: no restriction)', async (keyForm) => {
    const reply = await alex.as(service.admin.apiKey, keyForm).send('POST', '/Clients', payload('json', { Name: `Schlüssel als ${keyForm}` }), { format: 'json' });
    expectStatus(reply, 201);
    expect(readEntry(reply, 'Clients').LastChangeAuthor).toBe(service.admin.userId);
  });

  it('reads the minimal Atom payload of §4.2 rule 2: entry, content and properties, no feed metadata', async () => {
    const body = `<entry xmlns="${NS_ATOM}" xmlns:d="${NS_DATA}" xmlns:m="${NS_METADATA}"><content type="application/xml"><m:properties>`
      + '<d:Name>Kleinstmöglich</d:Name><d:Active>true</d:Active><d:TimeBudget>7200</d:TimeBudget></m:properties></content></entry>';
    const reply = await alex.send('POST', '/Projects', rawPayload(body, 'application/atom+xml'));
    expectStatus(reply, 201);
    expect(readEntry(reply, 'Projects')).toMatchObject({ Name: 'Kleinstmöglich', Active: true, TimeBudget: 7200 });
  });

  it('reads a full Atom entry as WCF clients send it (feed metadata, m:type attributes, m:null)', async () => {
    const body = `<?xml version="1.0" encoding="utf-8" standalone="yes"?>`
      + `<entry xmlns="${NS_ATOM}" xmlns:d="${NS_DATA}" xmlns:m="${NS_METADATA}">`
      + '<category scheme="http://schemas.microsoft.com/ado/2007/08/dataservices/scheme" term="Service.Task" />'
      + '<title /><author><name /></author><updated>2026-11-20T10:00:00Z</updated><id />'
      + '<content type="application/xml"><m:properties><d:Description m:type="Edm.String">Voll ausgeschrieben</d:Description>'
      + '<d:Billable m:type="Edm.Boolean">false</d:Billable><d:Comment m:null="true" /></m:properties></content></entry>';
    const reply = await alex.send('POST', '/Tasks', rawPayload(body, 'application/atom+xml;type=entry;charset=utf-8'), { format: 'json' });
    expectStatus(reply, 201);
    expect(readEntry(reply, 'Tasks')).toMatchObject({ Description: 'Voll ausgeschrieben', Billable: false, Comment: null, Active: true });
  });

  it.each([
    ['JSON \\/Date(ms)\\/', 'json', '"\\/Date(1794992400000)\\/"'],
    ['JSON \\/Date(ms+offset)\\/', 'json', '"\\/Date(1794992400000+0060)\\/"'],
    ['JSON ISO 8601 without offset', 'json', '"2026-11-18T09:00:00"'],
    ['Atom ISO 8601 without fraction or offset', 'atom', '2026-11-18T09:00:00'],
    ['Atom ISO 8601 with fraction and Z', 'atom', '2026-11-18T09:00:00.000Z'],
    ['Atom ISO 8601 with an offset', 'atom', '2026-11-18T10:00:00+01:00'],
  ])('reads StartTime as %s', async (_name, format, startTime) => {
    const end = format === 'json' ? '"\\/Date(1794996000000)\\/"' : '2026-11-18T10:00:00Z';
    const body = format === 'json'
      ? `{"ProjectID":${demo.projects.websiteRelaunch},"StartTime":${startTime},"EndTime":${end}}`
      : `<entry xmlns="${NS_ATOM}" xmlns:d="${NS_DATA}" xmlns:m="${NS_METADATA}"><content type="application/xml"><m:properties>`
        + `<d:ProjectID>${demo.projects.websiteRelaunch}</d:ProjectID><d:StartTime>${startTime}</d:StartTime><d:EndTime>${end}</d:EndTime></m:properties></content></entry>`;
    const reply = await jana.send('POST', '/TimeEntries', rawPayload(body, format === 'json' ? 'application/json' : 'application/atom+xml'), { format: 'json' });
    expectStatus(reply, 201);
    const entry = readEntry(reply, 'TimeEntries');
    expect((entry.StartTime as Date).toISOString()).toBe('2026-11-18T09:00:00.000Z');
    expect(entry.DurationSeconds).toBe(3600);
  });
});
