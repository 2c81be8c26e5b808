// The upstream concurrency cap per key: between the gateway and the real service sits a
// forwarder that holds every request for a while and records how many of each key it holds at
// once, so overlap is certain and the cap is measured where it matters, at the upstream.
import replyFrom from '@fastify/reply-from';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cacheFeature } from '../../gateway/cache/cache-feature.js';
import type { ConcurrencyConfig } from '../../gateway/limits/rate-limit-config.js';
import { rateLimitFeature } from '../../gateway/limits/rate-limit-feature.js';
import type { RunningGateway } from '../../gateway/start.js';
import { testDatabases } from '../helpers/databases.js';
import { startGatewayInFront } from '../helpers/gateway.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';

interface SlowForwarder {
  readonly root: string;
  /** The most requests of each key held at once. */
  readonly peaks: Map<string, number>;
  close(): Promise<void>;
}

async function startSlowForwarder(service: TestService, holdMs: number): Promise<SlowForwarder> {
  const active = new Map<string, number>();
  const peaks = new Map<string, number>();
  const app: FastifyInstance = Fastify({ logger: false });
  await app.register(replyFrom, { base: service.origin });
  app.addHook('onRequest', async (request) => {
    const key = String(request.headers['x-serviceapikey'] ?? 'none');
    const now = (active.get(key) ?? 0) + 1;
    active.set(key, now);
    peaks.set(key, Math.max(peaks.get(key) ?? 0, now));
    await new Promise((resolve) => setTimeout(resolve, holdMs));
  });
  app.addHook('onResponse', async (request) => {
    const key = String(request.headers['x-serviceapikey'] ?? 'none');
    active.set(key, (active.get(key) ?? 1) - 1);
  });
  app.all('/*', (request, reply) => reply.from(request.url));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { root: `http://127.0.0.1:${address.port}/V1/Api.svc`, peaks, close: () => app.close() };
}

describe.each(testDatabases)('upstream concurrency cap per key ($name)', (kind) => {
  let service: TestService;
  let forwarder: SlowForwarder;
  const gateways: RunningGateway[] = [];

  beforeAll(async () => {
    service = await startTestService(kind);
    forwarder = await startSlowForwarder(service, 150);
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await forwarder.close();
    await service.close();
  });

  async function gatewayWith(concurrency: Partial<ConcurrencyConfig>): Promise<RunningGateway> {
    const gateway = await startGatewayInFront(forwarder.root, {
      config: {
        cache: { enabled: false },
        rateLimit: { concurrency: { perKey: 1, mode: 'queue', maxQueued: 100, queueTimeoutMs: 10_000, ...concurrency } },
      },
      features: [rateLimitFeature(), cacheFeature()],
    });
    gateways.push(gateway);
    forwarder.peaks.clear();
    return gateway;
  }

  const burst = (gateway: RunningGateway, apiKey: string, count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        fetch(`${gateway.restRoot}/projects?limit=${i + 1}`, { headers: { 'X-ServiceApiKey': apiKey } }),
      ),
    );

  test('queue: 4 concurrent requests of one key all succeed, one at a time at the upstream; other keys are not held up', async () => {
    const gateway = await gatewayWith({ mode: 'queue' });
    const [jana, tom] = await Promise.all([burst(gateway, service.jana.apiKey, 4), burst(gateway, service.tom.apiKey, 2)]);
    expect([...jana, ...tom].map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(forwarder.peaks.get(service.jana.apiKey)).toBe(1);
    expect(forwarder.peaks.get(service.tom.apiKey)).toBe(1);
  });

  test('reject: beyond the cap a request is refused at once with a 429 problem', async () => {
    const gateway = await gatewayWith({ mode: 'reject' });
    const responses = await burst(gateway, service.jana.apiKey, 3);
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 429, 429]);
    const refused = responses.find((r) => r.status === 429) as Response;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ type: 'urn:timegate:problem:concurrency-limited', status: 429 });
    expect(forwarder.peaks.get(service.jana.apiKey)).toBe(1);
  });

  test('a full line refuses: cap 1 and 1 waiting let 2 of 4 through', async () => {
    const gateway = await gatewayWith({ mode: 'queue', maxQueued: 1 });
    const statuses = (await burst(gateway, service.jana.apiKey, 4)).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  test('a wait longer than the queue timeout is refused', async () => {
    const gateway = await gatewayWith({ mode: 'queue', queueTimeoutMs: 50 });
    const statuses = (await burst(gateway, service.jana.apiKey, 2)).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 429]);
  });
});
