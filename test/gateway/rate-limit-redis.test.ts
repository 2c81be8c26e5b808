// Rate limits shared by two gateway processes through Redis: one budget per key, counted
// atomically, so a limit of 100 per minute lets exactly 100 of 300 concurrent requests through,
// wherever they land.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { GatewayProcess } from '../helpers/gateway-process.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import { REDIS_URL, uniqueKeyPrefix } from './cache-fixture.js';

describe.each(testDatabases)('rate limits across two gateway processes on Redis ($name)', (kind) => {
  let service: TestService;
  let gateways: GatewayProcess[] = [];

  beforeAll(async () => {
    service = await startTestService(kind);
    const args = ['--redis', REDIS_URL, '--redis-prefix', uniqueKeyPrefix(), '--no-cache', '--rate-limit-class', 'read=100/1m'];
    gateways = await Promise.all([startGatewayProcess(service.root, args), startGatewayProcess(service.root, args)]);
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await service.close();
  });

  test('limit 100/min: exactly 100 of 300 requests split between the two pass, the rest get 429', async () => {
    const [a, b] = gateways as [GatewayProcess, GatewayProcess];
    const urls = Array.from({ length: 300 }, (_, i) =>
      i % 2 === 0 ? `${a.restRoot}/projects?limit=1` : `${b.odataRoot}/Projects?$top=1&$format=json`,
    );
    const statuses: number[] = [];
    // 30 at a time: concurrent enough to race the two counters, few enough for the service.
    for (let start = 0; start < urls.length; start += 30) {
      const batch = urls.slice(start, start + 30);
      const responses = await Promise.all(batch.map((url) => fetch(url, { headers: { 'X-ServiceApiKey': service.jana.apiKey } })));
      for (const response of responses) {
        statuses.push(response.status);
        await response.arrayBuffer();
      }
    }
    const byStatus: Record<number, number> = {};
    for (const status of statuses) byStatus[status] = (byStatus[status] ?? 0) + 1;
    expect(byStatus).toEqual({ 200: 100, 429: 200 });

    // Another key's budget is untouched, on either process.
    const tom = await fetch(`${b.restRoot}/projects?limit=1`, { headers: { 'X-ServiceApiKey': service.tom.apiKey } });
    expect(tom.status).toBe(200);
    expect(tom.headers.get('ratelimit')).toMatch(/^"read";r=99;t=\d+$/);
  });
});
