// The eight findings of issue 32, each as what an attacker (or an unlucky client) does and what
// must hold afterwards. Each of these failed on main at d29b03d, before the gateway had one
// upstream stack, request hygiene and credential freshness:
//   1. a GET whose connection dies while the cache looks it up left an in-flight entry that
//      blocked every later identical GET;
//   2. `Expect: 100-continue` was forwarded, refused by undici, answered 502 and counted by the
//      breaker: five anonymous requests opened it for everyone; a 50 MB body got 502, not 413;
//   3. every retry got the whole upstream timeout again (91 s for a 30 s timeout);
//   4. a revoked key kept getting cached answers for the rest of the cache TTL;
//   5. keys in malformed spellings were forwarded and logged in clear, and `%41piKey` was a key
//      to the gateway but not to the service;
//   6. the running stopwatch was served from the cache;
//   7. per-credential answers said nothing to shared caches (no `private`, no `Vary`);
//   8. no CORS.
import { Writable } from 'node:stream';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../service/accounts/demo-seed.js';
import { revokeKeys } from '../../service/accounts/account-admin.js';
import type { RunningGateway } from '../../gateway/start.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';
import { restartable } from '../helpers/flaky-relay.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startGatewayInFront, startTestGateway } from '../helpers/gateway.js';
import { startServiceProcess } from '../helpers/service-process.js';
import type { ServiceProcess } from '../helpers/service-process.js';
import { DEMO_NOW } from '../helpers/service.js';
import { sendWholeThenRead } from '../helpers/whole-request.js';
import { expectContinue, plainGet, startSlowUpstream } from './adversarial-client.js';

const sqlite = testDatabases[0] as (typeof testDatabases)[number];
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const prefix = () => `tg-adv-${Math.random().toString(36).slice(2)}:`;

/** Log lines written to a stream, kept as text. */
function logSink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  return {
    stream: new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString());
        done();
      },
    }),
    text: () => chunks.join(''),
  };
}

describe('1. a connection that dies during the cache lookup', () => {
  it.each(['redis', 'memory'] as const)('never blocks later identical reads (%s store)', async (store) => {
    const redis = store === 'redis' ? { redis: { url: REDIS_URL, keyPrefix: prefix() } } : {};
    const t = await startTestGateway(sqlite, { config: { ...redis, upstream: { requestTimeoutMs: 2_000 } } });
    try {
      for (const path of ['/V1/Api.svc/$metadata', '/V1/Api.svc/', '/api/v1/projects']) {
        for (const headers of [{}, { 'x-serviceapikey': t.service.jana.apiKey }] as Record<string, string>[]) {
          await plainGet(t.origin, path, headers, 3_000, 'x');
          // The same request (same headers, so the same cache entry), now well-formed.
          expect(await plainGet(t.origin, path, headers, 3_000), `${path} ${JSON.stringify(headers)}`).toMatch(/^\d{3}$/);
        }
      }
    } finally {
      await t.close();
    }
  });
});

describe('2. Expect: 100-continue and large bodies', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(sqlite, { config: { cache: { enabled: false } } });
  });
  afterAll(() => t?.close());

  it('neither fails the request nor opens the breaker, however often an anonymous caller sends it', async () => {
    const bodies = { '/V1/Api.svc/Clients': { Name: 'Expecting' }, '/api/v1/clients': { name: 'Expecting' } };
    const body = Buffer.from(JSON.stringify(bodies['/V1/Api.svc/Clients']));
    for (let i = 0; i < 8; i++) {
      for (const [path, sent] of Object.entries(bodies)) {
        const answer = await expectContinue(t.origin, 'POST', path, { 'content-type': 'application/json', accept: 'application/json' }, Buffer.from(JSON.stringify(sent)));
        expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).toBe(401);
      }
    }
    const key = { 'x-serviceapikey': t.service.admin.apiKey };
    const created = await expectContinue(t.origin, 'POST', '/V1/Api.svc/Clients', { ...key, 'content-type': 'application/json', accept: 'application/json' }, body);
    expect(created.status, created.text.slice(0, 200)).toBe(201);
    expect(created.continued).toBe(true);
    expect((await fetch(`${t.origin}/V1/Api.svc/Projects?$format=json`, { headers: key })).status).toBe(200);
    expect((await fetch(`${t.restRoot}/projects`, { headers: key })).status).toBe(200);
  });

  it('answers a 50 MB body with 413 on both faces, before the body is sent and without the upstream', async () => {
    const before = t.service.requestCount();
    const key = { 'x-serviceapikey': t.service.admin.apiKey, 'content-type': 'application/json', accept: 'application/json' };
    for (const path of ['/V1/Api.svc/Clients', '/api/v1/clients']) {
      const answer = await expectContinue(t.origin, 'POST', path, key, Buffer.alloc(0), 50 * 1024 * 1024);
      expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).toBe(413);
      expect(answer.continued).toBe(false);
    }
    const chunked = await fetch(`${t.origin}/V1/Api.svc/Clients`, { method: 'POST', headers: key, body: Buffer.alloc(2 * 1024 * 1024, 0x20) });
    expect(chunked.status).toBe(413);
    expect(t.service.requestCount()).toBe(before);
    expect((await fetch(`${t.restRoot}/projects`, { headers: key })).status).toBe(200);
  });

  it('answers a body over the limit that the client sends whole before reading with its 413 on both faces, never a reset', async () => {
    const head = (line: string) => `${line} HTTP/1.1\r\nHost: x\r\nX-ServiceApiKey: ${t.service.admin.apiKey}\r\nContent-Type: application/json\r\n`;
    const big = Buffer.alloc(8 * 1024 * 1024, 0x20);
    const answers = await Promise.all(['POST /V1/Api.svc/Clients', 'POST /api/v1/clients'].flatMap((line) => [
      sendWholeThenRead(t.origin, head(line), big),
      sendWholeThenRead(t.origin, head(line), big, 'chunked'),
    ]));
    // Before, the chunked ones met EPIPE: the gateway closed over the unread rest, and the reset
    // took the answer with it.
    expect(answers).toEqual(Array(4).fill('HTTP/1.1 413 Payload Too Large'));
  });
});

describe('2b. a request that never finishes arriving', () => {
  it('is cut off with 408 at the request deadline on both faces, whether its headers or its body trickle in', async () => {
    const t = await startTestGateway(sqlite, { config: { cache: { enabled: false }, requestTimeoutMs: 1_500 } });
    try {
      const trickle = (head: string) => new Promise<{ answer: string; ms: number }>((resolve) => {
        const started = performance.now();
        let answer = '';
        const socket = connect(Number(new URL(t.origin).port), '127.0.0.1', () => socket.write(head));
        const drip = setInterval(() => socket.writable && socket.write('a'), 200);
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearInterval(drip);
          resolve({ answer, ms: performance.now() - started });
        });
        // Before, nothing ever closed it (Fastify sets no deadline): this ends the test instead.
        setTimeout(() => socket.destroy(), 20_000).unref();
      });
      const body = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nX-ServiceApiKey: k\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n`;
      const answers = await Promise.all([trickle(body('/V1/Api.svc/Clients')), trickle(body('/api/v1/clients')), trickle('GET /api/v1/clients HTTP/1.1\r\nX-Slow: ')]);
      for (const { answer, ms } of answers) {
        expect(answer).toMatch(/^HTTP\/1\.1 408 /);
        // The deadline, plus Node's check of open connections (at most a second apart here).
        expect(ms).toBeLessThan(6_000);
      }
      expect(t.service.requestCount()).toBe(0);
    } finally {
      await t.close();
    }
  }, 30_000);
});

describe('3. one deadline for the whole upstream call', () => {
  // The numbers are a 30 s timeout and a 40 s upstream; the same proportions in a
  // shorter time by default (TG_TEST_UPSTREAM_TIMEOUT_MS=30000 runs the real ones).
  const timeoutMs = Number(process.env['TG_TEST_UPSTREAM_TIMEOUT_MS'] ?? 1_500);
  it(`answers 504 at the timeout (${timeoutMs} ms, ±1 s) on both faces, with one upstream request each`, async () => {
    const upstream = await startSlowUpstream(Math.round((timeoutMs * 4) / 3));
    const gateway: RunningGateway = await startGatewayInFront(upstream.root, { config: { cache: { enabled: false }, upstream: { requestTimeoutMs: timeoutMs } } });
    try {
      const timed = async (url: string, init: RequestInit = {}) => {
        const started = performance.now();
        const response = await fetch(url, init);
        await response.arrayBuffer();
        return { status: response.status, ms: performance.now() - started };
      };
      const [odata, rest] = await Promise.all([
        timed(`${gateway.origin}/V1/Api.svc/Projects?$format=json`, { headers: { 'x-serviceapikey': 'k' } }),
        timed(`${gateway.restRoot}/projects`, { headers: { 'x-serviceapikey': 'k' } }),
      ]);
      for (const [face, answer] of [['odata', odata], ['rest', rest]] as const) {
        expect(answer.status, face).toBe(504);
        expect(answer.ms, face).toBeGreaterThanOrEqual(timeoutMs - 50);
        expect(answer.ms, face).toBeLessThanOrEqual(timeoutMs + 1_000);
      }
      expect(upstream.received()).toBe(2);
    } finally {
      await gateway.close();
      await upstream.close();
    }
  }, 3 * timeoutMs + 30_000);
});

describe('4. a revoked key', () => {
  it('gets 401 on both faces within the auth TTL (5 s) + 1 s though its answers are cached, and never a stale one', async () => {
    const t = await startTestGateway(sqlite, { config: { cache: { defaultTtlSeconds: 60 } } });
    try {
      const key = { 'x-serviceapikey': t.service.jana.apiKey };
      const odata = `${t.origin}/V1/Api.svc/Projects?$format=json`;
      const rest = `${t.restRoot}/projects`;
      for (const url of [odata, rest]) {
        expect((await fetch(url, { headers: key })).status).toBe(200);
        const again = await fetch(url, { headers: key });
        expect(again.status).toBe(200);
        expect(again.headers.get('x-cache')).toBe('HIT');
      }
      await revokeKeys(t.service.database.db, t.service.jana.userId);
      const revokedAt = performance.now();
      const refusedAfter: Record<string, number> = {};
      while (performance.now() - revokedAt < 8_000 && Object.keys(refusedAfter).length < 2) {
        for (const url of [odata, rest]) {
          if (refusedAfter[url] !== undefined) continue;
          const status = (await fetch(url, { headers: key })).status;
          if (status === 401) refusedAfter[url] = performance.now() - revokedAt;
          else expect(status).toBe(200);
        }
        await sleep(100);
      }
      expect(refusedAfter[odata], 'OData face').toBeLessThanOrEqual(6_000);
      expect(refusedAfter[rest], 'REST face').toBeLessThanOrEqual(6_000);

      // The upstream fails now: what was cached for the refused key is not served as stale.
      const upstream = restartable(t.service);
      await upstream.stop();
      try {
        for (const url of [odata, rest]) {
          const answer = await fetch(url, { headers: key });
          expect(answer.status, url).not.toBe(200);
          expect(answer.headers.get('x-cache'), url).not.toBe('STALE');
        }
      } finally {
        await upstream.start();
        await upstream.close();
      }
    } finally {
      await t.close();
    }
  }, 30_000);
});

describe('5. keys in malformed spellings', () => {
  let place: TestDatabasePlace;
  let service: ServiceProcess;
  let gateway: RunningGateway;
  let key: string;
  const gatewayLogs = logSink();

  beforeAll(async () => {
    place = await sqlite.create();
    const seeded = await seedDemoAccount((await place.open()).db, DEMO_NOW);
    if (!seeded.created) throw new Error('not seeded');
    key = (seeded.users[1] as { apiKey: string }).apiKey;
    service = await startServiceProcess(['--db', place.url, '--auth-cache-ttl', '0']);
    gateway = await startGatewayInFront(service.root, { config: { logLevel: 'info', cache: { enabled: false } }, logs: gatewayLogs.stream });
  });
  afterAll(async () => {
    await gateway?.close();
    await service?.stop();
    await place?.dispose();
  });

  const servicePath = (root: string) => new URL(root).pathname;

  it.each(['ApiKey%00=', 'x=1;ApiKey=', 'ApiKey[]=', 'ApiKey%5B%5D=', '%20ApiKey=', 'ApiKey%20=', 'Api%4Bey%00='])('%sK is refused with 400 by the gateway (both faces) and the service, never forwarded, never logged', async (spelling) => {
    const forwardedBefore = service.logs.filter((line) => line.includes(`${servicePath(service.root)}/Projects`)).length;
    const urls = {
      odata: `${gateway.origin}/V1/Api.svc/Projects?$format=json&${spelling}${key}`,
      rest: `${gateway.restRoot}/projects?${spelling}${key}`,
      service: `${service.root}/Projects?$format=json&${spelling}${key}`,
    };
    for (const [where, url] of Object.entries(urls)) {
      const answer = await fetch(url, { headers: { accept: 'application/json' } });
      expect(answer.status, `${where}: ${url}`).toBe(400);
      expect(await answer.text()).not.toContain(key);
    }
    await sleep(100);
    const forwarded = service.logs.filter((line) => line.includes(`${servicePath(service.root)}/Projects`)).length - forwardedBefore;
    // The one request the service logged is the one sent to it directly.
    expect(forwarded).toBe(1);
    expect(gatewayLogs.text()).not.toContain(key);
    expect(service.logs.join('\n')).not.toContain(key);
  });

  it('%41piKey=K is the same to the gateway and the service: the key', async () => {
    const statuses = await Promise.all([
      `${gateway.origin}/V1/Api.svc/Projects?$format=json&%41piKey=${key}`,
      `${gateway.restRoot}/projects?%41piKey=${key}`,
      `${service.root}/Projects?$format=json&%41piKey=${key}`,
    ].map(async (url) => (await fetch(url)).status));
    expect(statuses).toEqual([200, 200, 200]);
    await sleep(100);
    expect(gatewayLogs.text()).not.toContain(key);
    expect(service.logs.join('\n')).not.toContain(key);
  });
});

describe('6, 7, 8. what is cached, what shared caches are told, and CORS', () => {
  let t: TestGateway;
  const origin = 'https://app.example';
  beforeAll(async () => {
    t = await startTestGateway(sqlite, { config: { cors: { origins: [origin] } } });
  });
  afterAll(() => t?.close());

  it('6. never serves the running stopwatch or the changes digest from the cache', async () => {
    const key = { 'x-serviceapikey': t.service.tom.apiKey, accept: 'application/json' };
    for (const url of [`${t.restRoot}/stopwatch`, `${t.origin}/V1/Api.svc/CurrentStopWatch?$format=json`, `${t.restRoot}/changes-digest?lastSynchronizationTime=2026-11-01T00:00:00Z`, `${t.origin}/V1/Api.svc/GetChangesDigest?$format=json&LastSynchronizationTime=datetime'2026-11-01T00:00:00'`]) {
      const before = t.service.requestCount();
      for (let i = 0; i < 3; i++) {
        const answer = await fetch(url, { headers: key });
        expect(answer.status, url).toBe(200);
        expect(answer.headers.get('x-cache'), url).not.toBe('HIT');
      }
      expect(t.service.requestCount() - before, url).toBe(3);
    }
  });

  it('7. marks per-credential answers private and varying on the credential, hit or miss, with Cache-Status', async () => {
    const key = { 'x-serviceapikey': t.service.jana.apiKey };
    for (const url of [`${t.restRoot}/clients`, `${t.origin}/V1/Api.svc/Clients?$format=json`]) {
      for (const expected of ['MISS', 'HIT']) {
        const answer = await fetch(url, { headers: key });
        expect(answer.status).toBe(200);
        expect(answer.headers.get('x-cache'), url).toBe(expected);
        expect(answer.headers.get('cache-control'), url).toMatch(/(^|,\s*)private(,|$)/);
        expect(answer.headers.get('cache-control'), url).toMatch(/max-age=\d+/);
        const vary = (answer.headers.get('vary') ?? '').toLowerCase().split(/\s*,\s*/);
        expect(vary, url).toEqual(expect.arrayContaining(['authorization', 'x-serviceapikey']));
        expect(answer.headers.get('cache-status'), url).toMatch(expected === 'HIT' ? /^timegate; hit/ : /^timegate; fwd=/);
      }
    }
  });

  it('8. answers CORS preflights without a key and exposes ETag, Location and the rate-limit fields', async () => {
    const before = t.service.requestCount();
    for (const url of [`${t.restRoot}/projects/1`, `${t.origin}/V1/Api.svc/Projects(1)`]) {
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'x-serviceapikey, content-type, if-match' },
      });
      expect(preflight.status, url).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin'), url).toBe(origin);
      expect(preflight.headers.get('access-control-allow-methods'), url).toContain('PATCH');
      expect((preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase(), url).toContain('x-serviceapikey');
      const stranger = await fetch(url, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
      expect(stranger.headers.get('access-control-allow-origin'), url).toBeNull();
    }
    expect(t.service.requestCount()).toBe(before);
    const read = await fetch(`${t.restRoot}/projects/1`, { headers: { origin, 'x-serviceapikey': t.service.jana.apiKey } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe(origin);
    const exposed = (read.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['etag', 'location', 'ratelimit', 'ratelimit-policy', 'retry-after']));
  });
});
