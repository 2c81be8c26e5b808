// The read cache shared by two gateway processes through Redis: an entry filled through one is
// a hit through the other, a write through either outdates the set for both (also across faces),
// and concurrent misses spread over both instances still make one upstream call.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { GatewayProcess } from '../helpers/gateway-process.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import { REDIS_URL, uniqueKeyPrefix } from './cache-fixture.js';

describe.each(testDatabases)('read cache across two gateway processes on Redis ($name)', (kind) => {
  let service: TestService;
  let a: GatewayProcess;
  let b: GatewayProcess;
  const admin = (): Record<string, string> => ({ 'X-ServiceApiKey': service.admin.apiKey });

  beforeAll(async () => {
    service = await startTestService(kind);
    const args = ['--redis', REDIS_URL, '--redis-prefix', uniqueKeyPrefix(), '--cache-ttl', '1m'];
    [a, b] = await Promise.all([startGatewayProcess(service.root, args), startGatewayProcess(service.root, args)]);
  });
  afterAll(async () => {
    await Promise.all([a.stop(), b.stop()]);
    await service.close();
  });

  test('an entry filled through one instance is a hit through the other', async () => {
    const first = await fetch(`${a.restRoot}/clients?limit=2`, { headers: admin() });
    expect([first.status, first.headers.get('x-cache'), a.logs.filter((l) => l.includes('"level":40') || l.includes('"level":50'))]).toEqual([200, 'MISS', []]);
    const calls = service.requestCount();
    const second = await fetch(`${b.restRoot}/clients?limit=2`, { headers: admin() });
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(await second.text()).toBe(await first.text());
    expect(service.requestCount()).toBe(calls);
  });

  test('a write through one instance outdates the set on the other at once', async () => {
    const url = (g: GatewayProcess) => `${g.restRoot}/projects/1`;
    await fetch(url(a), { headers: admin() });
    expect((await fetch(url(a), { headers: admin() })).headers.get('x-cache')).toBe('HIT');

    const comment = `via b ${Date.now()}`;
    const patch = await fetch(url(b), {
      method: 'PATCH',
      headers: { ...admin(), 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ comment }),
    });
    expect(patch.status).toBe(200);

    const after = await fetch(url(a), { headers: admin() });
    expect(after.headers.get('x-cache')).toBe('MISS');
    expect(((await after.json()) as { comment: string }).comment).toBe(comment);
  });

  test('a create through the OData face of one instance outdates the REST list of the other', async () => {
    const list = `${b.restRoot}/projects?limit=100`;
    await fetch(list, { headers: admin() });
    expect((await fetch(list, { headers: admin() })).headers.get('x-cache')).toBe('HIT');
    const name = `Two gateways ${Date.now()}`;
    const created = await fetch(`${a.odataRoot}/Projects`, {
      method: 'POST',
      headers: { ...admin(), 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ Name: name }),
    });
    expect(created.status).toBe(201);
    const after = await fetch(list, { headers: admin() });
    expect(after.headers.get('x-cache')).toBe('MISS');
    expect(((await after.json()) as { items: Array<{ name: string }> }).items.map((p) => p.name)).toContain(name);
  });

  test('10 concurrent identical misses spread over both instances make one upstream call', async () => {
    const calls = service.requestCount();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => fetch(`${(i % 2 === 0 ? a : b).restRoot}/time-entries?limit=50`, { headers: admin() })),
    );
    const bodies = await Promise.all(responses.map((r) => r.text()));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(responses.map((r) => r.headers.get('x-cache')).sort()).toEqual([...Array(9).fill('HIT'), 'MISS']);
    expect(new Set(bodies).size).toBe(1);
    expect(service.answered().slice(calls).map((r) => `${r.method} ${r.url} ${r.status}`)).toHaveLength(1);
  });
});
