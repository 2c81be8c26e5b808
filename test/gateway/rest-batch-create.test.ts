// The REST face's bulk create (`POST /time-entries:batch`) in front of the real service: all or
// none through one upstream changeset; a refusal names the item at fault by its index; the array
// is checked before anything goes upstream (400 empty or not an array, 413 beyond 100 items, 422
// for an invalid item); each item counts against the write limit, a bulk that does not fit gets
// 429 and is not forwarded; the created items outdate the cached lists of their set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_CREATE_MAX_ITEMS } from '../../codegen/rest-surface.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestGateway } from '../helpers/gateway.js';
import { artefactsOf, startTestGateway } from '../helpers/gateway.js';
import { RestContract } from './rest-contract.js';
import { restClient } from './rest-fixture.js';

function entries(count: number, comment: string, invalidAt?: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => {
    const start = Date.UTC(2026, 9, 1 + i, 8);
    // An end before its start: only the service knows this rule.
    const end = i + 1 === invalidAt ? start - 3_600_000 : start + 3_600_000;
    return { projectId: 1, startTime: new Date(start).toISOString().replace('.000', ''), endTime: new Date(end).toISOString().replace('.000', ''), comment };
  });
}

describe.each(testDatabases)('bulk create on the REST face ($name)', (kind) => {
  let t: TestGateway;
  let contract: RestContract;
  let rest: ReturnType<typeof restClient>;
  let admin: string;

  beforeAll(async () => {
    t = await startTestGateway(kind, { config: { rateLimit: { byClass: { write: { limit: 50, windowSeconds: 600 } } } } });
    contract = new RestContract((await artefactsOf()).openapi);
    rest = restClient(t);
    admin = t.service.admin.apiKey;
  }, 60_000);
  afterAll(() => t?.close());

  const stored = (comment: string) => t.service.database.db.selectFrom('time_entries').select('id').where('comment', '=', comment).orderBy('id').execute();

  it('creates 20 time entries in one upstream $batch and answers them in order', async () => {
    const before = t.service.requestCount();
    const { body } = await contract.check('batchCreateTimeEntries', await rest.post('/time-entries:batch', admin, entries(20, 'REST-Bulk')), 201);
    expect(t.service.requestCount() - before).toBe(1);
    const items = (body as { items: Array<{ id: number; startTime: string }> }).items;
    expect(items.map((item) => item.startTime)).toEqual(entries(20, '').map((item) => item.startTime));
    expect((await stored('REST-Bulk')).map((row) => row.id)).toEqual(items.map((item) => item.id));
  });

  it('creates none when the service refuses the 20th, and names it by its index', async () => {
    const problem = await contract.problem(await rest.post('/time-entries:batch', admin, entries(20, 'REST-Bulk-Fehler', 20)), 409);
    expect(problem.detail).toMatch(/^the item at index 19 was refused, so none was created: Der Zeiteintrag kann nicht gespeichert werden/);
    expect(problem.errors?.map((e) => e.pointer)).toEqual(['/19']);
    expect(await stored('REST-Bulk-Fehler')).toEqual([]);
  });

  it('refuses what it can see is wrong before the upstream: not an array, empty, too many, an invalid item, another media type', async () => {
    const before = t.service.requestCount();
    expect((await contract.problem(await rest.post('/time-entries:batch', admin, { projectId: 1 }), 400)).detail).toMatch(/JSON array/);
    expect((await contract.problem(await rest.post('/time-entries:batch', admin, []), 400)).detail).toMatch(/no item/);
    const tooMany = await contract.problem(await rest.post('/time-entries:batch', admin, entries(BATCH_CREATE_MAX_ITEMS + 1, 'REST-Bulk-Zuviel')), 413);
    expect(tooMany.detail).toMatch(/at most 100/);
    const invalid = entries(5, 'REST-Bulk-Ungültig');
    (invalid[3] as Record<string, unknown>).startTime = 'yesterday';
    const problem = await contract.problem(await rest.post('/time-entries:batch', admin, invalid), 422);
    expect(problem.errors?.map((e) => e.pointer)).toEqual(['/3/startTime']);
    expect(problem.detail).toMatch(/^the item at index 3: /);
    await contract.problem(await rest.post('/time-entries:batch', admin, 'x', 'text/plain'), 415);
    await contract.problem(await rest.post('/time-entries:batch', undefined, entries(1, 'REST-Bulk-Anonym')), 401);
    expect(t.service.requestCount() - before).toBe(1);
    expect(await stored('REST-Bulk-Ungültig')).toEqual([]);
  });

  it('outdates the cached lists of its set', async () => {
    const list = '/time-entries?comment=REST-Bulk-Cache&limit=50';
    const first = await rest.get(list, admin);
    expect(((await first.json()) as { items: unknown[] }).items).toEqual([]);
    const cached = await rest.get(list, admin);
    expect(cached.headers.get('cache-status') ?? '').toMatch(/hit/);
    await cached.text();
    await contract.check('batchCreateTimeEntries', await rest.post('/time-entries:batch', admin, entries(2, 'REST-Bulk-Cache')), 201);
    const after = await rest.get(list, admin);
    expect(((await after.json()) as { items: unknown[] }).items).toHaveLength(2);
  });

  it('counts each item against the write limit: a bulk that does not fit gets 429 and is not forwarded', async () => {
    const jana = t.service.jana.apiKey;
    const first = await rest.post('/time-entries:batch', jana, entries(30, 'REST-Bulk-Limit'));
    expect(first.status).toBe(201);
    expect(first.headers.get('ratelimit')).toMatch(/^"write";r=20;t=\d+$/);
    await first.text();
    const before = t.service.requestCount();
    const problem = await contract.problem(await rest.post('/time-entries:batch', jana, entries(21, 'REST-Bulk-Limit')), 429);
    expect(problem.detail).toMatch(/21 operations of the rate limit "write", and 20 of its 50/);
    expect(t.service.requestCount()).toBe(before);
    expect((await rest.post('/time-entries:batch', jana, entries(20, 'REST-Bulk-Limit'))).status).toBe(201);
    expect(await stored('REST-Bulk-Limit')).toHaveLength(50);
  });
});
