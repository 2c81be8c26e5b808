// The generated client (generated/client.ts) against the gateway in front of the real service:
// paging, conditional reads, CRUD with ETags, the stopwatch and the digest, problems as
// ProblemError, and each way the client can send the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProblemError, createClient, etagOf } from '../../generated/client.js';
import type * as T from '../../generated/types.js';
import type { TestDatabaseKind } from '../helpers/databases.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startTestGateway } from '../helpers/gateway.js';
import { odataList } from './rest-fixture.js';

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
