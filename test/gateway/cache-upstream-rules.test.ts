// What an upstream's response headers decide about caching, on the passthrough face in front of
// a stand-in for a third-party OData V2 server (the gateway serves any upstream; ours never sends
// these headers): Set-Cookie, no-store and no-cache are never stored, a shorter max-age wins,
// `private` is kept within its credential's partition, and only 200s are stored. Each case is an
// entity of the model (what the model does not know is never cached), `Projects(<n>)`.
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cacheFeature } from '../../gateway/cache/cache-feature.js';
import type { RunningGateway } from '../../gateway/start.js';
import { startGatewayInFront } from '../helpers/gateway.js';
import { passthroughFeature } from '../../gateway/passthrough/passthrough-feature.js';

interface Upstream {
  readonly app: FastifyInstance;
  readonly root: string;
  readonly calls: Map<string, number>;
}

/** The case each entity stands for. */
const CASES = ['Plain', 'Cookie', 'NoStore', 'NoCache', 'Private', 'ShortMaxAge', 'VaryCookie', 'Missing'];
const pathOf = (name: string) => `Projects(${CASES.indexOf(name) + 1})`;

/** Answers `/V1/Api.svc/Projects(<n>)` with a JSON body counting its calls, and the headers its case asks for. */
async function startUpstream(): Promise<Upstream> {
  const calls = new Map<string, number>();
  const app = Fastify({ logger: false });
  const headersFor: Record<string, Record<string, string>> = {
    Plain: {},
    Cookie: { 'set-cookie': 'session=abc; HttpOnly' },
    NoStore: { 'cache-control': 'no-store' },
    NoCache: { 'cache-control': 'no-cache' },
    Private: { 'cache-control': 'private' },
    ShortMaxAge: { 'cache-control': 'max-age=1' },
    VaryCookie: { vary: 'Cookie' },
  };
  app.get('/V1/Api.svc/:entity', (request, reply) => {
    const name = CASES[Number(/\((\d+)\)/.exec((request.params as { entity: string }).entity)?.[1]) - 1] ?? 'Unknown';
    const count = (calls.get(name) ?? 0) + 1;
    calls.set(name, count);
    const key = String(request.headers['x-serviceapikey'] ?? 'none');
    if (name === 'Missing') return reply.code(404).send({ error: { code: '', message: { lang: 'en', value: 'not found' } } });
    return reply.headers(headersFor[name] ?? {}).send({ d: { name, count, key } });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { app, root: `http://127.0.0.1:${address.port}/V1/Api.svc`, calls };
}

describe('upstream response headers and the read cache', () => {
  let upstream: Upstream;
  let gateway: RunningGateway;

  beforeAll(async () => {
    upstream = await startUpstream();
    gateway = await startGatewayInFront(upstream.root, {
      config: { cache: { defaultTtlSeconds: 60 } },
      features: [cacheFeature(), passthroughFeature()],
    });
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.app.close();
  });

  const read = async (name: string, key = 'key-a') => {
    const response = await fetch(`${gateway.origin}/V1/Api.svc/${pathOf(name)}`, { headers: { 'X-ServiceApiKey': key } });
    return { status: response.status, xCache: response.headers.get('x-cache'), body: (await response.json()) as { d?: { count: number; key: string } } };
  };

  test('a plain 200 is stored', async () => {
    await read('Plain');
    expect((await read('Plain')).xCache).toBe('HIT');
    expect(upstream.calls.get('Plain')).toBe(1);
  });

  test.each(['Cookie', 'NoStore', 'NoCache', 'VaryCookie'])('%s: never stored, every read goes upstream', async (name) => {
    const first = await read(name);
    const second = await read(name);
    expect(second.xCache).toBe('MISS');
    expect(second.body.d?.count).toBe((first.body.d?.count ?? 0) + 1);
    expect(upstream.calls.get(name)).toBe(2);
  });

  test('private: stored for the caller that got it, never given to another key', async () => {
    await read('Private', 'key-a');
    const again = await read('Private', 'key-a');
    expect(again.xCache).toBe('HIT');
    const other = await read('Private', 'key-b');
    expect(other.xCache).toBe('MISS');
    expect(other.body.d?.key).toBe('key-b');
  });

  test("an upstream max-age shorter than the gateway's TTL wins", async () => {
    await read('ShortMaxAge');
    expect((await read('ShortMaxAge')).xCache).toBe('HIT');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const expired = await read('ShortMaxAge');
    expect(expired.xCache).toBe('MISS');
    expect(expired.body.d?.count).toBe(2);
  });

  test('errors are not stored', async () => {
    expect((await read('Missing')).status).toBe(404);
    const again = await read('Missing');
    expect(again.status).toBe(404);
    expect(again.xCache).toBe('MISS');
    expect(upstream.calls.get('Missing')).toBe(2);
  });
});
