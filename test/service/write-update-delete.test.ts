// MERGE, PATCH, PUT and DELETE on entities (service-api.md §4.2): MERGE and PATCH change only the
// properties given (204, empty body), PUT resets every property not given to its default, DELETE
// answers 204; POST with X-HTTP-Method tunnels each of them; an entity others still refer to
// cannot be deleted (a clear 409, nothing half-deleted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { Format } from '../helpers/odata-client.js';
import { FORMATS, ODataClient, expectStatus, payload, rawPayload } from '../helpers/odata-client.js';
import type { DemoCatalogue } from '../helpers/odata-payloads.js';
import { booking, create, demoCatalogue, expectError, expectUnchanged, readBack, snapshot } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

describe.each(testDatabases)('MERGE, PATCH, PUT and DELETE on $name', (kind) => {
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

  /** A project with every optional property set, to see what an update keeps and resets. */
  const fullProject = (name: string) => create(alex, 'Projects', {
    Name: name, Active: true, Comment: 'Kommentar', TimeBudget: 3600, ClientID: demo.clients.stadtwerke, HourlyRate: '99.90', Custom1: 'KST-1',
  });

  function expectNoContent(reply: { status: number; text: string; contentType: string }): void {
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
  }

  describe.each(FORMATS)('with %s payloads', (format: Format) => {
    it.each(['MERGE', 'PATCH'])('%s changes only the properties given and answers 204 with an empty body', async (method) => {
      const project = await fullProject(`${method} ${format}`);
      const path = `/Projects(${project.ID as number})`;
      const reply = await alex.send(method, path, payload(format, { Comment: 'geändert', TimeBudget: null }), { format });
      expectNoContent(reply);
      const after = await readBack(alex, path, 'Projects');
      expect(after).toEqual({ ...project, Comment: 'geändert', TimeBudget: null, LastChangeTime: after.LastChangeTime, Version: (project.Version as number) + 1 });
      expect((after.LastChangeTime as Date).getTime()).toBeGreaterThanOrEqual((project.LastChangeTime as Date).getTime());
    });

    it('PUT resets every property not given to its default (Project Active false, optional ones null)', async () => {
      const project = await fullProject(`PUT ${format}`);
      const path = `/Projects(${project.ID as number})`;
      expectNoContent(await alex.send('PUT', path, payload(format, { Name: `Ersetzt ${format}` }), { format }));
      expect(await readBack(alex, path, 'Projects')).toMatchObject({
        ID: project.ID, Name: `Ersetzt ${format}`, Active: false, Comment: null, TimeBudget: null, ClientID: null, HourlyRate: null, Custom1: null,
      });
    });

    it('PUT resets a task to billable and active, and a time entry to its defaults while keeping its owner', async () => {
      const task = await create(alex, 'Tasks', { Description: `Reset ${format}`, Billable: false, Active: false, Comment: 'x' });
      expectNoContent(await alex.send('PUT', `/Tasks(${task.ID as number})`, payload(format, { Description: `Reset ${format}` }), { format }));
      expect(await readBack(alex, `/Tasks(${task.ID as number})`, 'Tasks')).toMatchObject({ Billable: true, Active: true, Comment: null });

      const entry = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-02', { TaskID: demo.tasks.verwaltung, Comment: 'alt', Custom2: 'c2' }));
      expect(entry.Billable).toBe(false);
      const path = `/TimeEntries(${entry.ID as number})`;
      expectNoContent(await alex.send('PUT', path, payload(format, booking(demo.projects.kundenportal, '2026-11-03')), { format }));
      expect(await readBack(jana, path, 'TimeEntries')).toMatchObject({
        UserID: service.jana.userId, ProjectID: demo.projects.kundenportal, TaskID: null, Comment: null, Custom2: null,
        Billable: true, TypeID: 2, Locked: false, DurationSeconds: 3600, LastChangeAuthor: service.admin.userId,
      });
    });

    it('PUT without a required property is a 409 and changes nothing', async () => {
      const project = await fullProject(`PUT ohne Name ${format}`);
      const before = await snapshot(service);
      const reply = await alex.send('PUT', `/Projects(${project.ID as number})`, payload(format, { Comment: 'nur Kommentar' }), { format });
      expect(expectError(reply, 409, format).message).toMatch(/Name/);
      await expectUnchanged(service, before);
    });

    it('MERGE of a time entry recomputes what is derived from it and stamps the change', async () => {
      const entry = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-10-28'));
      const path = `/TimeEntries(${entry.ID as number})`;
      expectNoContent(await jana.send('MERGE', path, payload(format, { EndTime: new Date('2026-10-28T12:00:00Z') }), { format }));
      expect(await readBack(jana, path, 'TimeEntries')).toMatchObject({ DurationSeconds: 3 * 3600, DurationString: '03:00', RevenueTotal: '285' });
      const before = Date.now();
      expectNoContent(await alex.send('MERGE', path, payload(format, { Comment: 'vom Admin' }), { format }));
      const after = await readBack(jana, path, 'TimeEntries');
      expect(after).toMatchObject({ Comment: 'vom Admin', UserID: service.jana.userId, LastChangeAuthor: service.admin.userId });
      expect((after.LastChangeTime as Date).getTime()).toBeGreaterThanOrEqual(before);
    });

    it('MERGE may repeat the key of the URI but not change it (400, nothing changed)', async () => {
      const project = await fullProject(`Schlüssel ${format}`);
      const path = `/Projects(${project.ID as number})`;
      expectNoContent(await alex.send('MERGE', path, payload(format, { ID: project.ID as number, Comment: 'gleicher Schlüssel' }), { format }));
      const before = await snapshot(service);
      const reply = await alex.send('MERGE', path, payload(format, { ID: (project.ID as number) + 1000, Comment: 'anderer Schlüssel' }), { format });
      expect(expectError(reply, 400, format).message).toMatch(/ID/);
      await expectUnchanged(service, before);
    });

    it('DELETE answers 204; the entity is gone and a second DELETE is a 404', async () => {
      const entry = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-10-27'));
      const path = `/TimeEntries(${entry.ID as number})`;
      expectNoContent(await jana.delete(path, { format }));
      expectError(await jana.get(path, { format }), 404, format);
      expectError(await jana.delete(path, { format }), 404, format);
      const project = await create(alex, 'Projects', { Name: `Weg ${format}` });
      expectNoContent(await alex.delete(`/Projects(${project.ID as number})`, { format }));
      expectError(await alex.get(`/Projects(${project.ID as number})`, { format }), 404, format);
    });

    it.each(['MERGE', 'PATCH', 'PUT', 'DELETE'])('%s of an entity that does not exist is a 404', async (method) => {
      const before = await snapshot(service);
      const reply = method === 'DELETE'
        ? await alex.delete('/Projects(999999)', { format })
        : await alex.send(method, '/Projects(999999)', payload(format, { Name: 'nirgends' }), { format });
      expectError(reply, 404, format);
      await expectUnchanged(service, before);
    });
  });

  describe('X-HTTP-Method on POST', () => {
    it.each(['MERGE', 'PATCH', 'merge'])('tunnels %s: only the given properties change', async (verb) => {
      const project = await fullProject(`Tunnel ${verb}`);
      const path = `/Projects(${project.ID as number})`;
      const reply = await alex.send('POST', path, payload('json', { Comment: `per ${verb}` }), { headers: { 'x-http-method': verb } });
      expectNoContent(reply);
      expect(await readBack(alex, path, 'Projects')).toMatchObject({ Comment: `per ${verb}`, TimeBudget: 3600, Active: true });
    });

    it('tunnels PUT: what is not given is reset', async () => {
      const project = await fullProject('Tunnel PUT');
      const path = `/Projects(${project.ID as number})`;
      expectNoContent(await alex.send('POST', path, payload('atom', { Name: 'Tunnel PUT' }), { headers: { 'X-HTTP-Method': 'PUT' } }));
      expect(await readBack(alex, path, 'Projects')).toMatchObject({ Active: false, Comment: null, TimeBudget: null });
    });

    it('DELETE needs no Content-Type and ignores a body it does not read', async () => {
      const project = await create(alex, 'Projects', { Name: 'Löschen mit Körper' });
      const reply = await alex.request(`/Projects(${project.ID as number})`, { method: 'DELETE', body: 'egal', contentType: 'text/plain' });
      expectNoContent(reply);
    });

    it('tunnels DELETE without a body', async () => {
      const project = await create(alex, 'Projects', { Name: 'Tunnel DELETE' });
      const path = `/Projects(${project.ID as number})`;
      expectNoContent(await alex.request(path, { method: 'POST', headers: { 'x-http-method': 'DELETE' } }));
      expectStatus(await alex.get(path), 404);
    });

    it('is only read on POST: a GET that carries X-HTTP-Method: DELETE reads and deletes nothing', async () => {
      const project = await create(alex, 'Projects', { Name: 'Kein Tunnel per GET' });
      const path = `/Projects(${project.ID as number})`;
      const before = await snapshot(service);
      expectStatus(await alex.get(path, { headers: { 'x-http-method': 'DELETE' } }), 200);
      await expectUnchanged(service, before);
    });

    it.each(['GET', 'POST', 'TRACE'])('refuses to tunnel %s with a 400 and changes nothing', async (verb) => {
      const before = await snapshot(service);
      const reply = await alex.send('POST', `/Projects(${demo.projects.websiteRelaunch})`, payload('json', { Comment: 'nein' }), { format: 'json', headers: { 'x-http-method': verb } });
      expect(expectError(reply, 400, 'json').message).toMatch(/X-HTTP-Method/);
      await expectUnchanged(service, before);
    });
  });

  describe('deleting what others still refer to', () => {
    it.each(FORMATS)('a client with projects: 409 in %s naming the dependants, client and projects intact', async (format) => {
      const before = await snapshot(service);
      const reply = await alex.delete(`/Clients(${demo.clients.nordwind})`, { format });
      const error = expectError(reply, 409, format);
      expect(error.lang).toBe('de-DE');
      expect(error.message).toMatch(/^Der Kunde kann nicht gelöscht werden, weil noch \d+ Projekte darauf verweisen\.$/);
      await expectUnchanged(service, before);
      expect((await readBack(alex, `/Clients(${demo.clients.nordwind})`, 'Clients')).Name).toBe('Nordwind AG');
    });

    it.each(FORMATS)('a project with time entries: 409 in %s, not one entry lost', async (format) => {
      const before = await snapshot(service);
      const reply = await alex.delete(`/Projects(${demo.projects.kundenportal})`, { format });
      expect(expectError(reply, 409, format).message).toMatch(/^Das Projekt kann nicht gelöscht werden, weil noch \d+ Zeiteinträge darauf verweisen\.$/);
      await expectUnchanged(service, before);
    });

    it('a task with time entries: 409, also through X-HTTP-Method', async () => {
      const before = await snapshot(service);
      const reply = await alex.request(`/Tasks(${demo.tasks.entwicklung})`, { method: 'POST', headers: { 'x-http-method': 'DELETE' }, format: 'json' });
      expect(expectError(reply, 409, 'json').message).toMatch(/^Die Tätigkeit kann nicht gelöscht werden/);
      await expectUnchanged(service, before);
    });

    it('a task a project\'s AssignedTasks still lists: 409, deletable once the list lets go of it', async () => {
      const task = await create(alex, 'Tasks', { Description: 'Nur für ein Projekt' });
      const project = await create(alex, 'Projects', { Name: 'Mit Tätigkeitsliste', Active: true, AssignedTasks: `${demo.tasks.konzeption},${task.ID as number}` });
      const before = await snapshot(service);
      const reply = await alex.delete(`/Tasks(${task.ID as number})`, { format: 'json' });
      expect(expectError(reply, 409, 'json').message).toBe('Die Tätigkeit kann nicht gelöscht werden, weil noch 1 Projekt darauf verweist.');
      await expectUnchanged(service, before);
      expectNoContent(await alex.send('MERGE', `/Projects(${project.ID as number})`, payload('json', { AssignedTasks: String(demo.tasks.konzeption) })));
      expectNoContent(await alex.delete(`/Tasks(${task.ID as number})`));
    });

    it('the same client can be deleted once its projects are gone', async () => {
      const client = await create(alex, 'Clients', { Name: 'Kurzzeitkunde' });
      const project = await create(alex, 'Projects', { Name: 'Kurzzeitprojekt', ClientID: client.ID as number });
      expectStatus(await alex.delete(`/Clients(${client.ID as number})`), 409);
      expectStatus(await alex.delete(`/Projects(${project.ID as number})`), 204);
      expectStatus(await alex.delete(`/Clients(${client.ID as number})`), 204);
      expectStatus(await alex.get(`/Clients(${client.ID as number})`), 404);
    });
  });

  it('an update body in Atom may leave out everything but the changed property', async () => {
    const project = await fullProject('Atom MERGE');
    const path = `/Projects(${project.ID as number})`;
    const body = '<entry xmlns="http://www.w3.org/2005/Atom" xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices" '
      + 'xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"><content type="application/xml">'
      + '<m:properties><d:Active>false</d:Active></m:properties></content></entry>';
    expectNoContent(await alex.send('MERGE', path, rawPayload(body, 'application/atom+xml')));
    expect(await readBack(alex, path, 'Projects')).toMatchObject({ Active: false, Comment: 'Kommentar', HourlyRate: '99.9' });
  });
});
