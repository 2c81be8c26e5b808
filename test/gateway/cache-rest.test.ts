// The read cache on the REST face, in front of the real service: hits without upstream calls,
// one partition per credential, invalidation by writes for every credential, 304s, no-cache,
// coalesced misses and stale-if-error.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { EdgeGateway, RecordedMetrics } from './cache-fixture.js';
import { recordedMetrics, startEdgeGateway, uniqueKeyPrefix } from './cache-fixture.js';

/** Every database, with the in-process store and with the Redis store. */
const cases = testDatabases.flatMap((kind) =>
  (['memory', 'redis'] as const).map((store) => ({ kind, store, name: `${kind.name}, ${store} store` })),
);
const storeOptions = (store: 'memory' | 'redis') => (store === 'redis' ? { redisKeyPrefix: uniqueKeyPrefix() } : {});

interface Item {
  readonly id: number;
  readonly userId?: number;
  readonly comment?: string | null;
  readonly name?: string;
}

/**
 * A GET by undici's request(): fetch() turns a request with If-None-Match into one with
 * Cache-Control: no-cache (the Fetch standard's cache mode), which the cache rightly obeys.
 */
async function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await request(url, { headers });
  const flat = new Headers();
  for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') flat.set(name, value);
  return { status: response.statusCode, headers: flat, text: await response.body.text() };
}

function keyHeader(key: string): Record<string, string> {
  return { 'X-ServiceApiKey': key };
}

describe.each(cases)('read cache on the REST face ($name)', ({ kind, store }) => {
  let t: EdgeGateway;
  let metrics: RecordedMetrics;

  beforeAll(async () => {
    metrics = recordedMetrics();
    t = await startEdgeGateway(kind, { cache: { defaultTtlSeconds: 60 }, metrics, ...storeOptions(store) });
  });
  afterAll(() => t.close());

  test('a repeated read is answered from the cache: same bytes, X-Cache HIT, no upstream call', async () => {
    const url = `${t.restRoot}/projects?limit=5`;
    const first = await fetch(url, { headers: keyHeader(t.service.admin.apiKey) });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('MISS');
    const firstBody = await first.text();
    const calls = t.service.requestCount();

    const second = await fetch(url, { headers: keyHeader(t.service.admin.apiKey) });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await second.text()).toBe(firstBody);
    expect(t.service.requestCount()).toBe(calls);
    expect(metrics.lookups.slice(-2)).toEqual([
      { face: 'rest', outcome: 'miss' },
      { face: 'rest', outcome: 'hit' },
    ]);
  });

  test("key B never gets key A's cached body; the same key in another form shares A's partition", async () => {
    const url = `${t.restRoot}/time-entries?limit=100`;
    const jana = await fetch(url, { headers: keyHeader(t.service.jana.apiKey) });
    expect(jana.headers.get('x-cache')).toBe('MISS');
    const janaItems = ((await jana.json()) as { items: Item[] }).items;
    expect(janaItems.length).toBeGreaterThan(0);
    expect(new Set(janaItems.map((i) => i.userId))).toEqual(new Set([t.service.jana.userId]));

    const tom = await fetch(url, { headers: keyHeader(t.service.tom.apiKey) });
    expect(tom.status).toBe(200);
    expect(tom.headers.get('x-cache')).toBe('MISS');
    const tomItems = ((await tom.json()) as { items: Item[] }).items;
    expect(new Set(tomItems.map((i) => i.userId))).toEqual(new Set([t.service.tom.userId]));

    const basic = `Basic ${Buffer.from(`anyone:${t.service.jana.apiKey}`).toString('base64')}`;
    const janaAgain = await fetch(url, { headers: { Authorization: basic } });
    expect(janaAgain.headers.get('x-cache')).toBe('HIT');
    expect(((await janaAgain.json()) as { items: Item[] }).items).toEqual(janaItems);

    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-cache')).toBe('MISS');
  });

  test('a write through the gateway outdates the set for every credential of the account', async () => {
    const url = `${t.restRoot}/projects/1`;
    for (const key of [t.service.admin.apiKey, t.service.jana.apiKey]) {
      await fetch(url, { headers: keyHeader(key) });
      const cached = await fetch(url, { headers: keyHeader(key) });
      expect(cached.headers.get('x-cache')).toBe('HIT');
    }
    const comment = `changed ${kind.name} ${Date.now()}`;
    const patch = await fetch(url, {
      method: 'PATCH',
      headers: { ...keyHeader(t.service.admin.apiKey), 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ comment }),
    });
    expect(patch.status).toBeLessThan(300);

    const janaAfter = await fetch(url, { headers: keyHeader(t.service.jana.apiKey) });
    expect(janaAfter.headers.get('x-cache')).toBe('MISS');
    expect(((await janaAfter.json()) as Item).comment).toBe(comment);
    const adminAfter = await fetch(url, { headers: keyHeader(t.service.admin.apiKey) });
    expect(((await adminAfter.json()) as Item).comment).toBe(comment);
  });

  test('`:select` reads are cached as reads of their set, apart from the whole ones, and outdated by its writes', async () => {
    const key = keyHeader(t.service.admin.apiKey);
    const urls = [`${t.restRoot}/projects:select?select=id,comment&limit=5`, `${t.restRoot}/projects/1:select?select=comment`];
    for (const url of urls) {
      expect((await fetch(url, { headers: key })).headers.get('x-cache')).toBe('MISS');
      const cached = await fetch(url, { headers: key });
      expect(cached.headers.get('x-cache')).toBe('HIT');
      expect(cached.headers.get('cache-status')).toMatch(/^timegate; hit; ttl=\d+/);
      expect(cached.headers.get('age')).toMatch(/^\d+$/);
    }
    const whole = (await (await fetch(`${t.restRoot}/projects/1`, { headers: key })).json()) as Item;
    expect(whole.name).toEqual(expect.any(String));
    const comment = `selected ${kind.name} ${Date.now()}`;
    const patch = await fetch(`${t.restRoot}/projects/1`, {
      method: 'PATCH',
      headers: { ...key, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ comment }),
    });
    expect(patch.status).toBeLessThan(300);
    const after = await fetch(urls[1] as string, { headers: key });
    expect(after.headers.get('x-cache')).toBe('MISS');
    expect(await after.json()).toEqual({ comment });
  });

  test('a refused write (4xx) leaves the cache as it was', async () => {
    const url = `${t.restRoot}/clients?limit=3`;
    await fetch(url, { headers: keyHeader(t.service.jana.apiKey) });
    const refused = await fetch(`${t.restRoot}/clients/1`, {
      method: 'DELETE',
      headers: keyHeader(t.service.jana.apiKey),
    });
    expect(refused.status).toBe(403);
    const after = await fetch(url, { headers: keyHeader(t.service.jana.apiKey) });
    expect(after.headers.get('x-cache')).toBe('HIT');
  });

  test('If-None-Match with the cached ETag is a 304 from the cache, without an upstream call', async () => {
    const url = `${t.restRoot}/projects/2`;
    const first = await get(url, keyHeader(t.service.admin.apiKey));
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const calls = t.service.requestCount();
    const conditional = await get(url, { ...keyHeader(t.service.admin.apiKey), 'If-None-Match': etag as string });
    expect(conditional.status).toBe(304);
    expect(conditional.headers.get('x-cache')).toBe('HIT');
    expect(conditional.headers.get('etag')).toBe(etag);
    expect(conditional.text).toBe('');
    expect(t.service.requestCount()).toBe(calls);

    const otherTag = await get(url, { ...keyHeader(t.service.admin.apiKey), 'If-None-Match': '"something-else"' });
    expect(otherTag.status).toBe(200);
    expect(otherTag.headers.get('x-cache')).toBe('HIT');
    expect(JSON.parse(otherTag.text)).toMatchObject({ id: 2 });
    expect(t.service.requestCount()).toBe(calls);
  });

  test('a conditional miss is stored in full and answered 304; the next plain read is a hit', async () => {
    const url = `${t.restRoot}/projects/3`;
    // The ETag, learnt from the upstream directly, so the gateway has no entry for the URL yet.
    const direct = await fetch(`${t.service.root}/Projects(3)?$format=json`, { headers: keyHeader(t.service.admin.apiKey) });
    // The service writes ETags (its row version), which the REST face hands out as they are.
    const etag = direct.headers.get('etag') as string;
    expect(etag).toBe('W/"1"');
    const calls = t.service.requestCount();
    const conditional = await get(url, { ...keyHeader(t.service.admin.apiKey), 'If-None-Match': etag });
    expect(conditional.status).toBe(304);
    expect(conditional.headers.get('x-cache')).toBe('MISS');
    expect(conditional.headers.get('etag')).toBe(etag);
    expect(t.service.requestCount()).toBe(calls + 1);
    const next = await get(url, keyHeader(t.service.admin.apiKey));
    expect(next.status).toBe(200);
    expect(next.headers.get('x-cache')).toBe('HIT');
    expect(JSON.parse(next.text)).toMatchObject({ id: 3 });
    expect(t.service.requestCount()).toBe(calls + 1);
  });

  test('Cache-Control: no-cache from the client goes to the upstream and refreshes the entry', async () => {
    const url = `${t.restRoot}/tasks?limit=2`;
    await fetch(url, { headers: keyHeader(t.service.admin.apiKey) });
    const calls = t.service.requestCount();
    const revalidated = await fetch(url, { headers: { ...keyHeader(t.service.admin.apiKey), 'Cache-Control': 'no-cache' } });
    expect(revalidated.status).toBe(200);
    expect(revalidated.headers.get('x-cache')).toBe('MISS');
    expect(t.service.requestCount()).toBe(calls + 1);
    const noStore = await fetch(url, { headers: { ...keyHeader(t.service.admin.apiKey), 'Cache-Control': 'no-store' } });
    expect(noStore.headers.get('x-cache')).toBeNull();
    expect(t.service.requestCount()).toBe(calls + 2);
    const cached = await fetch(url, { headers: keyHeader(t.service.admin.apiKey) });
    expect(cached.headers.get('x-cache')).toBe('HIT');
    expect(t.service.requestCount()).toBe(calls + 2);
  });

  test('20 concurrent identical misses make one upstream call and get the same body', async () => {
    const url = `${t.restRoot}/time-entries?limit=100&orderBy=startTime desc`;
    const calls = t.service.requestCount();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => fetch(url, { headers: keyHeader(t.service.admin.apiKey) })),
    );
    const bodies = await Promise.all(responses.map((r) => r.text()));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(t.service.requestCount() - calls).toBe(1);
    expect(new Set(bodies).size).toBe(1);
    expect(responses.filter((r) => r.headers.get('x-cache') === 'MISS')).toHaveLength(1);
  });
});

describe.each(cases)('stale-if-error on the REST face ($name)', ({ kind, store }) => {
  let t: EdgeGateway;

  beforeAll(async () => {
    t = await startEdgeGateway(kind, { cache: { defaultTtlSeconds: 1, staleIfErrorSeconds: 60 }, ...storeOptions(store) });
  });
  afterAll(() => t.close());

  test('when the upstream is down, an expired entry is served with X-Cache: STALE; without one, a 502 problem', async () => {
    const url = `${t.restRoot}/projects?limit=3`;
    const fresh = await fetch(url, { headers: keyHeader(t.service.admin.apiKey) });
    const body = await fresh.text();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await t.service.app.close();

    const stale = await fetch(url, { headers: keyHeader(t.service.admin.apiKey) });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect(stale.headers.get('content-type')).toBe(fresh.headers.get('content-type'));
    expect(await stale.text()).toBe(body);

    const never = await fetch(`${t.restRoot}/clients`, { headers: keyHeader(t.service.admin.apiKey) });
    expect(never.status).toBeGreaterThanOrEqual(502);
    expect(never.headers.get('content-type')).toContain('application/problem+json');
    expect(never.headers.get('x-cache')).toBe('MISS');
  });
});
