// Every operation of generated/openapi.json through the gateway in front of the real service, on
// SQLite and PostgreSQL, with the gateway speaking JSON and Atom upstream: each answer validated
// against the document, and its data checked against the service's own answer over OData.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRestSurface } from '../../codegen/rest-surface.js';
import { model } from '../../generated/model.js';
import type { TestDatabaseKind } from '../helpers/databases.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestGateway } from '../helpers/gateway.js';
import { artefactsOf, startTestGateway } from '../helpers/gateway.js';
import { RestContract } from './rest-contract.js';
import { sweepSelections } from './selection-sweep.js';
import type { Json } from './rest-fixture.js';
import { comparableRest, expectedRest, odata, odataList, restClient, restListAll } from './rest-fixture.js';

const surface = describeRestSurface(model);
const combinations = testDatabases.flatMap((kind) => (['json', 'atom'] as const).map((format) => ({ kind, format, name: `${kind.name}, upstream ${format}` })));

describe.each(combinations)('REST face on $name', ({ kind, format }: { kind: TestDatabaseKind; format: 'json' | 'atom' }) => {
  let t: TestGateway;
  let contract: RestContract;
  let rest: ReturnType<typeof restClient>;
  let admin: string;

  beforeAll(async () => {
    // The REST face alone: the edge features (cache, limits, shedding) have suites of their own.
    t = await startTestGateway(kind, { format, features: [] });
    contract = new RestContract((await artefactsOf()).openapi);
    rest = restClient(t);
    admin = t.service.admin.apiKey;
  });
  afterAll(() => t?.close());

  it('lists and gets every entity set as the service holds it, walking every page', async () => {
    for (const resource of surface.sets) {
      const expected = await odataList(t, resource.set.name, admin);
      const first = await contract.check(resource.operationIds.list as string, await rest.get(`${resource.collectionPath}?limit=50&count=true`, admin), 200);
      expect((first.body as { total: number }).total).toBe(expected.length);
      const all = await restListAll(t, `${resource.collectionPath}?limit=50`, admin);
      expect(all.pages).toBe(Math.max(1, Math.ceil(expected.length / 50)) + (expected.length % 50 === 0 && expected.length > 0 ? 1 : 0));
      expect(all.items.map((item) => comparableRest(resource.set.name, item))).toEqual(expected.map((e) => expectedRest(resource.set.name, e)));
      const one = expected[0] as Json;
      const id = one[resource.keys[0]?.name as string];
      const got = await contract.check(resource.operationIds.get, await rest.get(`${resource.collectionPath}/${String(id)}`, admin), 200);
      expect(comparableRest(resource.set.name, got.body as Json)).toEqual(expectedRest(resource.set.name, one));
      expect(got.headers.get('etag')).toMatch(/^(W\/)?"[^"]+"$/);
    }
  });

  it('translates equality parameters, filter, orderBy, select and expand', async () => {
    const active = await odataList(t, `Projects?$filter=${encodeURIComponent('Active eq true and ClientID eq 1')}&$orderby=${encodeURIComponent('Name desc')}`, admin);
    const page = await contract.check('listProjects', await rest.get(`/projects?active=true&filter=${encodeURIComponent('clientId eq 1')}&orderBy=${encodeURIComponent('name desc')}`, admin), 200);
    const items = (page.body as { items: Json[] }).items;
    expect(items.map((p) => p.id)).toEqual(active.map((p) => p.ID));
    expect(items.length).toBeGreaterThan(0);

    const expanded = await contract.check('listProjects', await rest.get('/projects?expand=client,timeEntries&limit=3', admin), 200);
    for (const item of (expanded.body as { items: Json[] }).items) {
      const client = item.clientId === null ? null : expectedRest('Clients', (await odata(t, `Clients(${String(item.clientId)})`, admin)) as Json);
      expect(item.client === null ? null : comparableRest('Clients', item.client as Json)).toEqual(client);
      const entries = await odataList(t, `Projects(${String(item.id)})/TimeEntries`, admin);
      expect((item.timeEntries as Json[]).map((e) => e.id)).toEqual(entries.map((e) => e.ID));
    }
    // A select answer is held to the document's ProjectSelectionList: what it names, and only that.
    const selected = await contract.check('listProjectsSelection', await rest.get('/projects:select?select=id,name&expand=client&limit=3', admin), 200);
    const selectedItems = (selected.body as { items: Json[] }).items;
    expect(selectedItems.length).toBeGreaterThan(0);
    for (const item of selectedItems) {
      expect(Object.keys(item).sort()).toEqual(['client', 'id', 'name']);
      if (item.client !== null) expect(item.client).toHaveProperty('name');
    }
    // A nested select: the related items are ClientSelections, with only what was named.
    const nested = await contract.check('listProjectsSelection', await rest.get('/projects:select?select=name,client/name&expand=client&limit=5', admin), 200);
    const nestedItems = (nested.body as { items: Json[] }).items;
    expect(nestedItems.some((item) => item.client !== null)).toBe(true);
    for (const item of nestedItems) {
      expect(Object.keys(item).sort()).toEqual(['client', 'name']);
      if (item.client !== null) expect(Object.keys(item.client as Json)).toEqual(['name']);
    }
    // Narrowed at one level, expanded whole below it: the project's name and its whole client.
    const deeper = await contract.check('listTimeEntriesSelection', await rest.get('/time-entries:select?select=id,project/name&expand=project/client&limit=3', admin), 200);
    for (const item of (deeper.body as { items: Json[] }).items) {
      expect(Object.keys(item).sort()).toEqual(['id', 'project']);
      const project = item.project as Json;
      expect(Object.keys(project).sort()).toEqual(['client', 'name']);
      if (project.client !== null) expect(project.client).toHaveProperty('lastChangeTime');
    }
    const since = await contract.check('listTimeEntries', await rest.get(`/time-entries?filter=${encodeURIComponent("startTime ge datetime'2026-11-19T00:00:00' and billable eq true")}&orderBy=startTime&limit=1000`, admin), 200);
    const expected = await odataList(t, `TimeEntries?$filter=${encodeURIComponent("StartTime ge datetime'2026-11-19T00:00:00' and Billable eq true")}&$orderby=StartTime`, admin);
    const sinceItems = (since.body as { items: Json[] }).items;
    expect(sinceItems.map((e) => e.id)).toEqual(expected.map((e) => e.ID));
    // Money as the service writes it, with both places of its Scale (`95.00`, not `95`); a
    // running entry's total moves with the clock between the two reads.
    const money = (rate: unknown, total: unknown, end: unknown) => [rate, end === null ? 'running' : total];
    const rates = sinceItems.map((e) => money(e.revenuePerHour, e.revenueTotal, e.endTime));
    expect(rates).toEqual(expected.map((e) => money(e.RevenuePerHour, e.RevenueTotal, e.EndTime)));
    expect(rates.some(([rate]) => typeof rate === 'string' && rate.endsWith('.00'))).toBe(true);
  });

  it('follows navigation to one and to many, with their own cursors', async () => {
    const client = await contract.check('getProjectClient', await rest.get('/projects/1/client', admin), 200);
    expect(comparableRest('Clients', client.body as Json)).toEqual(expectedRest('Clients', (await odata(t, 'Projects(1)/Client', admin)) as Json));
    const entries = await odataList(t, 'Projects(1)/TimeEntries', admin);
    const first = await contract.check('listProjectTimeEntries', await rest.get('/projects/1/time-entries?limit=7', admin), 200);
    expect((first.body as { next: string }).next).toMatch(/^\/api\/v1\/projects\/1\/time-entries\?cursor=/);
    const all = await restListAll(t, '/projects/1/time-entries?limit=7', admin);
    expect(all.items.map((e) => e.id)).toEqual(entries.map((e) => e.ID));
    for (const [operationId, path, odataPath, setName] of [
      ['listClientProjects', '/clients/1/projects', 'Clients(1)/Projects', 'Projects'],
      ['listTaskTimeEntries', '/tasks/1/time-entries?limit=1000', 'Tasks(1)/TimeEntries', 'TimeEntries'],
      ['listUserTimeEntries', `/users/${t.service.jana.userId}/time-entries?limit=1000`, `Users(${t.service.jana.userId})/TimeEntries`, 'TimeEntries'],
    ] as const) {
      await contract.check(operationId, await rest.get(path, admin), 200);
      const expectedItems = (await odataList(t, odataPath, admin)).map((e) => expectedRest(setName, e));
      // A REST page is at most one upstream page (the service's hold 100): walk them all.
      expect((await restListAll(t, path, admin)).items.map((e) => comparableRest(setName, e))).toEqual(expectedItems);
    }
    const entry = (await odataList(t, 'TimeEntries?$top=1&$filter=TaskID ne null', admin))[0] as Json;
    for (const [operationId, segment, nav, setName] of [
      ['getTimeEntryProject', 'project', 'Project', 'Projects'],
      ['getTimeEntryTask', 'task', 'Task', 'Tasks'],
      ['getTimeEntryUser', 'user', 'User', 'Users'],
    ] as const) {
      const got = await contract.check(operationId, await rest.get(`/time-entries/${String(entry.ID)}/${segment}`, admin), 200);
      expect(comparableRest(setName, got.body as Json)).toEqual(expectedRest(setName, (await odata(t, `TimeEntries(${String(entry.ID)})/${nav}`, admin)) as Json));
    }
  });

  it('creates, updates and deletes clients, tasks, projects and time entries, and the service holds the result', async () => {
    const created: Record<string, Json> = {};
    for (const [operationId, path, setName, body] of [
      ['createClient', '/clients', 'Clients', { name: `Client ${format}`, comment: 'via REST' }],
      ['createTask', '/tasks', 'Tasks', { description: `Task ${format}`, billable: true }],
      ['createProject', '/projects', 'Projects', { name: `Project ${format}`, active: true, hourlyRate: '87.50', timeBudget: 3600 }],
      ['createTimeEntry', '/time-entries', 'TimeEntries', { projectId: 1, startTime: '2026-11-18T08:00:00Z', endTime: '2026-11-18T09:30:00Z', comment: 'REST' }],
    ] as const) {
      const response = await contract.check(operationId, await rest.post(path, admin, body), 201);
      const item = response.body as Json;
      const location = response.headers.get('location') as string;
      expect(location).toBe(`/api/v1${path}/${String(item.id)}`);
      const stored = (await odata(t, `${setName}(${String(item.id)})`, admin)) as Json;
      expect(comparableRest(setName, item)).toEqual(expectedRest(setName, stored));
      created[setName] = item;
    }
    expect(created.Projects?.hourlyRate).toBe('87.50');
    expect(created.TimeEntries?.startTime).toBe('2026-11-18T08:00:00Z');

    for (const [operationId, setName, path, change] of [
      ['updateClient', 'Clients', `/clients/${String(created.Clients?.id)}`, { comment: null, active: false }],
      ['updateTask', 'Tasks', `/tasks/${String(created.Tasks?.id)}`, { description: 'Renamed task' }],
      ['updateProject', 'Projects', `/projects/${String(created.Projects?.id)}`, { comment: 'changed', clientId: 1 }],
      ['updateTimeEntry', 'TimeEntries', `/time-entries/${String(created.TimeEntries?.id)}`, { comment: 'changed', endTime: '2026-11-18T10:00:00Z' }],
    ] as const) {
      const current = await rest.get(path, admin);
      const etag = current.headers.get('etag') as string;
      await current.text();
      const updated = await contract.check(operationId, await rest.patch(path, admin, change, { 'if-match': etag }), 200);
      const stored = (await odata(t, `${setName}(${path.split('/').pop() as string})`, admin)) as Json;
      expect(comparableRest(setName, updated.body as Json)).toEqual(expectedRest(setName, stored));
      for (const [name, value] of Object.entries(change)) expect((updated.body as Json)[name], name).toEqual(value);
    }

    for (const [operationId, setName, path] of [
      ['deleteTimeEntry', 'TimeEntries', `/time-entries/${String(created.TimeEntries?.id)}`],
      ['deleteProject', 'Projects', `/projects/${String(created.Projects?.id)}`],
      ['deleteTask', 'Tasks', `/tasks/${String(created.Tasks?.id)}`],
      ['deleteClient', 'Clients', `/clients/${String(created.Clients?.id)}`],
    ] as const) {
      await contract.check(operationId, await rest.delete(path, admin), 204);
      const gone = await fetch(`${t.service.root}/${setName}(${path.split('/').pop() as string})?$format=json`, { headers: { 'x-serviceapikey': admin } });
      expect(gone.status).toBe(404);
      await contract.check(operationId.replace('delete', 'get'), await rest.get(path, admin), 404);
    }
  });

  it('answers If-None-Match with 304 and refuses a stale If-Match with 412 without writing', async () => {
    const first = await rest.get('/projects/2', admin);
    const etag = first.headers.get('etag') as string;
    await first.text();
    await contract.check('getProject', await rest.get('/projects/2', admin, { 'if-none-match': etag }), 304);
    await contract.check('getProject', await rest.get('/projects/2', admin, { 'if-none-match': '"v1"' }), 200);
    // A partial read carries the entity's own ETag, and leaves out what it did not select.
    const partial = await contract.check('getProjectSelection', await rest.get('/projects/2:select?select=name', admin), 200);
    expect(partial.headers.get('etag')).toBe(etag);
    expect(partial.body).toEqual({ name: expect.any(String) });
    const partialClient = await contract.check('getProjectClientSelection', await rest.get('/projects/1/client:select?select=name', admin), 200);
    expect(partialClient.body).toEqual({ name: expect.any(String) });
    const partialEntries = await contract.check('listProjectTimeEntriesSelection', await rest.get('/projects/2/time-entries:select?select=id,comment&limit=3', admin), 200);
    for (const entry of (partialEntries.body as { items: Json[] }).items) expect(Object.keys(entry).sort()).toEqual(['comment', 'id']);
    const before = (await odata(t, 'Projects(2)', admin)) as Json;
    // The model declares concurrency tokens: If-Match goes to the service, which refuses the write.
    const writes = () => t.service.answered().filter((r) => r.method !== 'GET' && r.status < 400).length;
    const writesBefore = writes();
    const refused = await contract.check('updateProject', await rest.patch('/projects/2', admin, { comment: 'lost update' }, { 'if-match': '"v1"' }), 412);
    expect((refused.body as Json).type).toBe('urn:timegate:problem:precondition-failed');
    await contract.check('deleteProject', await rest.delete('/projects/2', admin, { 'if-match': '"v1"' }), 412);
    expect(writes()).toBe(writesBefore);
    expect(await odata(t, 'Projects(2)', admin)).toEqual(before);
    await contract.check('updateProject', await rest.patch('/projects/2', admin, { comment: 'current' }, { 'if-match': etag }), 200);
  });

  it('drives the stopwatch and the changes digest through their function imports', async () => {
    const tom = t.service.tom.apiKey;
    const running = await contract.check('currentStopWatch', await rest.get('/stopwatch', tom), 200);
    expect((running.body as Json).endTime).toBeNull();
    const halted = await contract.check('haltStopWatch', await rest.post('/stopwatch/halt', tom), 200);
    expect((halted.body as Json).id).toBe((running.body as Json).id);
    expect(typeof (halted.body as Json).endTime).toBe('string');
    const none = await contract.check('currentStopWatch', await rest.get('/stopwatch', tom), 404);
    expect((none.body as Json).status).toBe(404);
    const started = await contract.check('startStopWatch', await rest.post('/stopwatch', tom, { projectId: 1, comment: 'from REST', billable: false }), 200);
    expect(started.body).toMatchObject({ projectId: 1, comment: 'from REST', billable: false, endTime: null, userId: t.service.tom.userId });
    const current = (await odata(t, 'CurrentStopWatch', tom)) as Json;
    expect(current.ID).toBe((started.body as Json).id);

    const digest = await contract.check('getChangesDigest', await rest.get('/changes-digest?lastSynchronizationTime=2026-01-01T00:00:00Z', admin), 200);
    const upstream = (await odata(t, `GetChangesDigest?LastSynchronizationTime=datetime'2026-01-01T00:00:00'`, admin)) as Json;
    const inner = (upstream.GetChangesDigest ?? upstream) as Json;
    expect((digest.body as Json).totalProjects).toBe(inner.TotalProjects);
    expect((digest.body as Json).changedTimeEntries).toBe(inner.ChangedTimeEntries);
  });

  it('creates several clients, tasks, projects and time entries at once, and the service holds them', async () => {
    const batches: [string, string, string, Json[]][] = [
      ['batchCreateClients', '/clients', 'Clients', [{ name: `Bulk client A ${format}` }, { name: `Bulk client B ${format}`, comment: 'bulk' }]],
      ['batchCreateTasks', '/tasks', 'Tasks', [{ description: `Bulk task ${format}` }]],
      ['batchCreateProjects', '/projects', 'Projects', [{ name: `Bulk project ${format}`, active: true, hourlyRate: '90.00' }]],
      ['batchCreateTimeEntries', '/time-entries', 'TimeEntries', [
        { projectId: 1, startTime: '2026-11-20T08:00:00Z', endTime: '2026-11-20T09:00:00Z', comment: `Bulk ${format}` },
        { projectId: 1, startTime: '2026-11-21T08:00:00Z', endTime: '2026-11-21T10:00:00Z', comment: `Bulk ${format}` },
      ]],
    ];
    for (const [operationId, path, setName, items] of batches) {
      const { body } = await contract.check(operationId, await rest.post(`${path}:batch`, admin, items), 201);
      const created = (body as { items: Json[] }).items;
      expect(created).toHaveLength(items.length);
      for (const [i, item] of created.entries()) {
        expect(item).toMatchObject(items[i] as Json);
        expect(comparableRest(setName, item)).toEqual(comparableRest(setName, expectedRest(setName, (await odata(t, `${setName}(${String(item.id)})`, admin)) as Json)));
      }
    }
  });

  it('answers every `:select` read with only what it selected', async () => {
    await sweepSelections(surface, contract, (path) => rest.get(path, admin));
  });

  it('still narrows a plain read by `select`, as before `:select` existed, and refuses a `:select` read without it', async () => {
    expect(await (await rest.get('/projects/2?select=name', admin)).json()).toEqual({ name: expect.any(String) });
    const refused = await contract.problem(await rest.get('/projects/2:select', admin), 400);
    expect(refused.errors?.[0]?.pointer).toBe('/select');
    await contract.problem(await rest.request('PUT', '/projects/2:select', admin, { body: {} }), 405);
  });

  it('has exercised every operation of openapi.json', () => {
    expect(contract.unexercised()).toEqual([]);
  });
});
