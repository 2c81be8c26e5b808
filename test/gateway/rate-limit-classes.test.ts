// Rate limits per key and route class, on both faces, in front of the real service: the budget
// lets exactly its number through, then 429 with Retry-After and the IETF RateLimit fields, as
// problem+json on the REST face and as an OData error on the passthrough; refused requests never
// reach the upstream; one key's use does not touch another's; callers without a key count per IP.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { passthroughFeature } from '../../gateway/passthrough/passthrough-feature.js';
import { rateLimitFeature } from '../../gateway/limits/rate-limit-feature.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabaseKind } from '../helpers/databases.js';
import { startTestGateway } from '../helpers/gateway.js';
import type { TestGateway } from '../helpers/gateway.js';
import type { EdgeGateway, RecordedMetrics } from './cache-fixture.js';
import { recordedMetrics, startEdgeGateway } from './cache-fixture.js';

const MINUTE = { windowSeconds: 60 };

describe.each(testDatabases)('rate limits per route class ($name)', (kind) => {
  let t: EdgeGateway;
  let metrics: RecordedMetrics;
  const key = (apiKey: string): Record<string, string> => ({ 'X-ServiceApiKey': apiKey });

  beforeAll(async () => {
    metrics = recordedMetrics();
    t = await startEdgeGateway(kind, {
      cache: { enabled: false },
      rateLimit: {
        byClass: { read: { limit: 3, ...MINUTE }, write: { limit: 2, ...MINUTE }, stopwatch: { limit: 2, ...MINUTE } },
        anonymous: { limit: 2, ...MINUTE },
      },
      metrics,
    });
  });
  afterAll(() => t.close());

  test('reads: exactly 3 pass, the 4th is a 429 problem with Retry-After and RateLimit fields, never forwarded', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${t.restRoot}/projects?limit=1`, { headers: key(t.service.jana.apiKey) });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe('"read";q=3;w=60');
      remaining.push(/r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1] ?? '');
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const calls = t.service.requestCount();
    const refused = await fetch(`${t.restRoot}/projects?limit=1`, { headers: key(t.service.jana.apiKey) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit')).toMatch(/^"read";r=0;t=\d+$/);
    expect(await refused.json()).toMatchObject({ type: 'urn:timegate:problem:rate-limited', status: 429, title: 'Too many requests' });
    expect(t.service.requestCount()).toBe(calls);
    expect(metrics.rejections).toContain('read');
  });

  test('another key has its own budget', async () => {
    const tom = await fetch(`${t.restRoot}/projects?limit=1`, { headers: key(t.service.tom.apiKey) });
    expect(tom.status).toBe(200);
    expect(tom.headers.get('ratelimit')).toMatch(/^"read";r=2;t=\d+$/);
  });

  test('on the OData face the refusal is an OData error document, JSON or XML as asked', async () => {
    const json = await fetch(`${t.odataRoot}/Projects?$format=json`, { headers: key(t.service.jana.apiKey) });
    expect(json.status).toBe(429);
    expect(json.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(json.headers.get('content-type')).toContain('application/json');
    expect(await json.json()).toMatchObject({ error: { code: 'RATE_LIMITED', message: { lang: 'en' } } });

    const xml = await fetch(`${t.odataRoot}/Projects`, { headers: key(t.service.jana.apiKey) });
    expect(xml.status).toBe(429);
    expect(xml.headers.get('content-type')).toContain('application/xml');
    const text = await xml.text();
    expect(text).toContain('<error xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">');
    expect(text).toContain('<code>RATE_LIMITED</code>');
  });

  test('writes have their own budget: the 3rd write is refused while reads still pass', async () => {
    const patch = () =>
      fetch(`${t.restRoot}/projects/1`, {
        method: 'PATCH',
        headers: { ...key(t.service.admin.apiKey), 'Content-Type': 'application/merge-patch+json' },
        body: JSON.stringify({ comment: 'rate limited writes' }),
      });
    expect((await patch()).status).toBe(200);
    const second = await patch();
    expect(second.status).toBe(200);
    expect(second.headers.get('ratelimit-policy')).toBe('"write";q=2;w=60');
    const third = await patch();
    expect(third.status).toBe(429);
    expect(((await third.json()) as { detail: string }).detail).toContain('write');
    const read = await fetch(`${t.restRoot}/projects/1`, { headers: key(t.service.admin.apiKey) });
    expect(read.status).toBe(200);
  });

  test('the stopwatch has its own budget on both faces', async () => {
    const current = await fetch(`${t.restRoot}/stopwatch`, { headers: key(t.service.tom.apiKey) });
    expect(current.status).toBe(200);
    expect(current.headers.get('ratelimit-policy')).toBe('"stopwatch";q=2;w=60');
    const viaOData = await fetch(`${t.odataRoot}/CurrentStopWatch?$format=json`, { headers: key(t.service.tom.apiKey) });
    expect(viaOData.status).toBe(200);
    const refused = await fetch(`${t.restRoot}/stopwatch/halt`, { method: 'POST', headers: key(t.service.tom.apiKey) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit')).toMatch(/^"stopwatch";r=0;/);
    // Tom's stopwatch still runs: the refused halt never reached the service.
    const direct = await fetch(`${t.service.root}/CurrentStopWatch?$format=json`, { headers: key(t.service.tom.apiKey) });
    expect(direct.status).toBe(200);
    const projects = await fetch(`${t.restRoot}/projects?limit=1`, { headers: key(t.service.tom.apiKey) });
    expect(projects.status).toBe(200);
  });

  test('requests without a key count per client IP under the anonymous policy', async () => {
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${t.restRoot}/clients`);
      expect(response.status).toBe(401);
      expect(response.headers.get('ratelimit-policy')).toBe('"anonymous";q=2;w=60');
    }
    const refused = await fetch(`${t.odataRoot}/Clients?$format=json`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  });
});

describe('anonymous callers behind a proxy (--trust-proxy)', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(testDatabases[0] as TestDatabaseKind, {
      config: { trustProxy: true, cache: { enabled: false }, rateLimit: { anonymous: { limit: 2, ...MINUTE } } },
      features: [rateLimitFeature({ metrics: recordedMetrics() }), passthroughFeature()],
    });
  });
  afterAll(() => t?.close());

  const clients = (forwardedFor: string) => fetch(`${t.restRoot}/clients`, { headers: { 'x-forwarded-for': forwardedFor } });

  test('count per address the proxy saw, and an address the client writes in front of it changes nothing', async () => {
    // The proxy appends the address it saw after whatever the client sent: only that last entry is its word.
    const statuses = [];
    for (let i = 1; i <= 4; i++) statuses.push((await clients(`198.51.100.${i}, 203.0.113.7`)).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
    // Another client behind the same proxy has its own budget.
    expect((await clients('203.0.113.8')).status).toBe(401);
  });
});
