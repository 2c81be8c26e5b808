// The generated client (generated/client.ts) against the gateway in front of the real service:
// paging, conditional reads, reads with select on their `:select` twins, CRUD with ETags, bulk
// create naming the refused item, the stopwatch and the digest, problems as ProblemError, and
// each way the client can send the key.
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { BatchItemError, ProblemError, createClient, etagOf } from '../../generated/client.js';
import type * as T from '../../generated/types.js';
import type { TestDatabaseKind } from '../helpers/databases.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startTestGateway } from '../helpers/gateway.js';
import { ODataClient } from '../helpers/odata-client.js';
import { otherAccount } from '../helpers/odata-payloads.js';
import { odataList } from './rest-fixture.js';

/** The generated client, recording the path and query of every request it sends. */
function recordingClient(t: TestGateway, apiKey: string): { client: ReturnType<typeof createClient>; sent: string[] } {
  const sent: string[] = [];
  const client = createClient({
    baseUrl: t.restRoot,
    apiKey,
    fetch: (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input);
      sent.push(decodeURIComponent(url.pathname.replace('/api/v1', '') + url.search));
      return fetch(input, init);
    },
  });
  return { client, sent };
}

/** Bookings of one hour on consecutive days of October 2026; the one at `refusedAt` ends before it starts. */
function bookings(count: number, comment: string, refusedAt?: number): T.TimeEntryCreate[] {
  return Array.from({ length: count }, (_, i) => {
    const start = Date.UTC(2026, 9, 1 + i, 8);
    const end = i === refusedAt ? start - 3_600_000 : start + 3_600_000;
    const iso = (ms: number) => new Date(ms).toISOString().replace('.000', '');
    return { projectId: 1, startTime: iso(start), endTime: iso(end), comment };
  });
}

describe.each(testDatabases)('generated client.ts through the gateway on $name', (kind: TestDatabaseKind) => {
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway(kind, { features: [] });
  });
  afterAll(() => t?.close());

  it('reads every page, reads conditionally, and authenticates by header, bearer and basic', async () => {
    for (const auth of ['header', 'bearer', 'basic'] as const) {
      const client = createClient({ baseUrl: t.restRoot, apiKey: t.service.admin.apiKey, auth });
      const ids: number[] = [];
      for await (const page of client.timeEntries.pages({ limit: 40, orderBy: 'id' })) ids.push(...page.items.map((e) => e.id));
      expect(ids).toEqual((await odataList(t, 'TimeEntries?$orderby=ID', t.service.admin.apiKey)).map((e) => e.ID));
    }
    const client = createClient({ baseUrl: t.restRoot, apiKey: t.service.jana.apiKey });
    const project = await client.projects.get(1, { expand: 'client' });
    expect(project.client?.id).toBe(project.clientId);
    const etag = etagOf(project) as string;
    expect(etag).toMatch(/^W\/"\d+"$/);
    expect(await client.projects.get(1, { ifNoneMatch: etag })).toBeNull();
    const client1 = await client.projects.client(1);
    expect(client1.id).toBe(project.clientId);
    // With `select` the answer is typed as a Selection (every property optional), and holds only
    // what was named: assigning it to the full type would not compile.
    const named: T.ProjectSelection = await client.projects.get(1, { select: 'name' });
    // @ts-expect-error a selected read is not a full Project
    const full: T.Project = await client.projects.get(1, { select: 'name' });
    expect(named).toEqual({ name: project.name });
    expect(full.id).toBeUndefined();
    const page: T.ProjectSelectionList = await client.projects.list({ select: 'id,clientId', limit: 2 });
    expect(page.items.map((p) => Object.keys(p).sort())).toEqual([['clientId', 'id'], ['clientId', 'id']]);
  });

  it('reads whole entities on the plain paths and sends select to the :select twins', async () => {
    const { client, sent } = recordingClient(t, t.service.jana.apiKey);
    const project = await client.projects.get(1);
    expectTypeOf(project.name).toEqualTypeOf<string>();
    expectTypeOf(project.clientId).toEqualTypeOf<number | null>();
    expect(typeof project.name).toBe('string');
    const named = await client.projects.get(1, { select: 'name,client/name', expand: 'client' });
    expectTypeOf(named.name).toEqualTypeOf<string | undefined>();
    expect(named).toEqual({ name: project.name, client: { name: expect.any(String) } });
    const ids: number[] = [];
    for await (const page of client.projects.pages({ select: 'id', limit: 1 })) ids.push(...page.items.map((p) => p.id ?? 0));
    expect(ids.length).toBeGreaterThan(1);
    const entries = await client.projects.timeEntries(1, { select: 'id', limit: 2 });
    expect(entries.items.map((e) => Object.keys(e))).toEqual([['id'], ['id']]);
    const owner = await client.projects.client(1, { select: 'name' });
    expect(Object.keys(owner)).toEqual(['name']);
    const whole = await client.projects.list({ limit: 1 });
    expectTypeOf(whole.items[0]!.name).toEqualTypeOf<string>();
    expect(Object.keys(whole.items[0] ?? {})).toEqual(Object.keys(project));
    expect(sent.slice(0, 3)).toEqual([
      '/projects/1',
      '/projects/1:select?select=name,client/name&expand=client',
      '/projects:select?select=id&limit=1',
    ]);
    expect(sent.slice(3, 3 + ids.length - 1).every((path) => /^\/projects:select\?cursor=/.test(path))).toBe(true);
    expect(sent.slice(-3)).toEqual(['/projects/1/time-entries:select?select=id&limit=2', '/projects/1/client:select?select=name', '/projects?limit=1']);
  });

  it('bulk-creates all or none, and names the item the service refused by its index', async () => {
    const client = createClient({ baseUrl: t.restRoot, apiKey: t.service.admin.apiKey });
    const stored = (comment: string) => client.timeEntries.list({ comment, orderBy: 'id' });
    const created = await client.timeEntries.createAll(bookings(3, 'Client-Bulk'));
    expectTypeOf(created).toEqualTypeOf<T.TimeEntry[]>();
    expect(created.map((e) => e.startTime)).toEqual(['2026-10-01T08:00:00Z', '2026-10-02T08:00:00Z', '2026-10-03T08:00:00Z']);
    expect((await stored('Client-Bulk')).items.map((e) => e.id)).toEqual(created.map((e) => e.id));

    const refused = await client.timeEntries.createAll(bookings(5, 'Client-Bulk-Refused', 3)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BatchItemError);
    expect(refused).toMatchObject({ index: 3, status: 409, problem: { errors: [{ pointer: '/3' }] } });
    expect((await stored('Client-Bulk-Refused')).items).toEqual([]);

    const invalid = bookings(2, 'Client-Bulk-Invalid');
    invalid[1] = { ...invalid[1]!, startTime: 'yesterday' };
    const unchecked = await client.timeEntries.createAll(invalid).catch((e: unknown) => e);
    expect(unchecked).toMatchObject({ name: 'BatchItemError', index: 1, status: 422, problem: { errors: [{ pointer: '/1/startTime' }] } });
    expect((await stored('Client-Bulk-Invalid')).items).toEqual([]);
  });

  it('bulk create refuses no key, a wrong key, an empty array and another account\'s project as problems', async () => {
    const admin = t.service.admin.apiKey;
    for (const apiKey of [undefined, 'not-a-key']) {
      const error = await createClient({ baseUrl: t.restRoot, ...(apiKey ? { apiKey } : {}) }).timeEntries.createAll(bookings(1, 'Client-Bulk-Anon')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProblemError);
      expect(error).not.toBeInstanceOf(BatchItemError);
      expect((error as ProblemError).status).toBe(401);
    }
    const client = createClient({ baseUrl: t.restRoot, apiKey: admin });
    const empty = (await client.timeEntries.createAll([]).catch((e: unknown) => e)) as ProblemError;
    expect(empty).not.toBeInstanceOf(BatchItemError);
    expect(empty.status).toBe(400);
    const other = await otherAccount(t.service, new ODataClient(t.service.root, admin));
    const foreign = [...bookings(2, 'Client-Bulk-Foreign'), { ...bookings(1, 'Client-Bulk-Foreign')[0]!, projectId: other.projectId }];
    const error = await client.timeEntries.createAll(foreign).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchItemError);
    expect((error as BatchItemError).index).toBe(2);
    // Another account's project is, to this account, one that does not exist.
    expect((error as BatchItemError).status).toBe(409);
    expect((error as BatchItemError).problem.detail).toMatch(/^the item at index 2 was refused, so none was created: .*verweist auf keinen vorhandenen Eintrag/);
    expect((await client.timeEntries.list({ comment: 'Client-Bulk-Foreign' })).items).toEqual([]);
  });

  it('creates, updates under If-Match, refuses a stale one, and deletes; problems are ProblemErrors', async () => {
    const client = createClient({ baseUrl: t.restRoot, apiKey: t.service.admin.apiKey });
    const created = await client.projects.create({ name: 'Client-made', hourlyRate: '120.25', clientId: 2 });
    expect(created).toMatchObject({ name: 'Client-made', hourlyRate: '120.25', clientId: 2, active: false });
    const updated = await client.projects.update(created.id, { active: true, comment: 'on' }, { ifMatch: etagOf(created) as string });
    expect(updated).toMatchObject({ id: created.id, active: true, comment: 'on' });
    expect(etagOf(updated)).toMatch(/^W\/"\d+"$/);
    const stale = await client.projects.update(created.id, { comment: 'lost' }, { ifMatch: '"v0"' }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ProblemError);
    expect((stale as ProblemError).status).toBe(412);
    expect((await client.projects.get(created.id)).comment).toBe('on');
    const invalid = await client.projects.create({ name: 'x'.repeat(60) }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ProblemError);
    expect((invalid as ProblemError).status).toBe(422);
    expect((invalid as ProblemError).problem.errors?.[0]?.pointer).toBe('/name');
    await client.projects.delete(created.id);
    const gone = await client.projects.get(created.id).catch((e: unknown) => e);
    expect((gone as ProblemError).status).toBe(404);
  });

  it('halts and starts the stopwatch and reads the digest', async () => {
    const client = createClient({ baseUrl: t.restRoot, apiKey: t.service.tom.apiKey });
    const running = await client.currentStopWatch();
    expect(running.endTime).toBeNull();
    const halted = await client.haltStopWatch();
    expect(halted.id).toBe(running.id);
    expect(halted.endTime).not.toBeNull();
    expect(((await client.currentStopWatch().catch((e: unknown) => e)) as ProblemError).status).toBe(404);
    const started = await client.startStopWatch({ projectId: 1, comment: 'generated client' });
    expect(started).toMatchObject({ projectId: 1, comment: 'generated client', endTime: null });
    const digest = await client.getChangesDigest({ lastSynchronizationTime: '2026-01-01T00:00:00Z' });
    expect(digest.totalProjects).toBeGreaterThan(0);
  });
});
