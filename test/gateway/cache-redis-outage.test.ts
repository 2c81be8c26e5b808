// Redis going away under a running gateway: the cache is skipped and requests are not counted,
// but every request is still answered by the upstream, quickly; when Redis is back, caching
// resumes. Redis is reached through a TCP relay the test cuts and restores.
import { createConnection, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { EdgeGateway } from './cache-fixture.js';
import { REDIS_URL, startEdgeGateway, uniqueKeyPrefix } from './cache-fixture.js';

interface Relay {
  readonly url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

async function startRelay(target: URL): Promise<Relay> {
  const sockets = new Set<Socket>();
  let isCut = false;
  const server: Server = createServer((client) => {
    if (isCut) {
      client.destroy();
      return;
    }
    const upstream = createConnection(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    cut() {
      isCut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      isCut = false;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const kind = testDatabases[0];

describe('the gateway while Redis is away', () => {
  let relay: Relay;
  let t: EdgeGateway;
  const key = (): Record<string, string> => ({ 'X-ServiceApiKey': t.service.admin.apiKey });

  beforeAll(async () => {
    relay = await startRelay(new URL(REDIS_URL));
    if (kind === undefined) throw new Error('no test database');
    t = await startEdgeGateway(kind, {
      cache: { defaultTtlSeconds: 60 },
      rateLimit: { default: { limit: 1_000, windowSeconds: 60 } },
      redisKeyPrefix: uniqueKeyPrefix(),
      redisUrl: relay.url,
    });
  });
  afterAll(async () => {
    relay.cut();
    await t.close();
    await relay.close();
  });

  test('reads are answered uncached and unlimited, within the command timeout, and cached again once Redis is back', async () => {
    const url = `${t.restRoot}/projects?limit=2`;
    await fetch(url, { headers: key() });
    const cached = await fetch(url, { headers: key() });
    expect(cached.headers.get('x-cache')).toBe('HIT');
    expect(cached.headers.get('ratelimit-policy')).toBe('"default";q=1000;w=60');

    relay.cut();
    const started = Date.now();
    const without = await fetch(url, { headers: key() });
    expect(without.status).toBe(200);
    expect(without.headers.get('x-cache')).toBeNull();
    expect(without.headers.get('ratelimit-policy')).toBeNull();
    expect(((await without.json()) as { items: unknown[] }).items).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);

    relay.restore();
    let xCache: string | null = null;
    for (let attempt = 0; attempt < 50 && xCache !== 'HIT'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      xCache = (await fetch(url, { headers: key() })).headers.get('x-cache');
    }
    expect(xCache).toBe('HIT');
  });
});
