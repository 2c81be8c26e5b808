// Gateway instances sharing their cache on Redis answer hits from their own copies of the entries
// (gateway/cache/local-copies.ts), and the invariants of the shared cache hold all the same: a
// write through one instance outdates the other's copy before the writer hears back, however
// often it is tried; a key revoked upstream meets its 401 through an instance serving copies
// within the auth TTL; another key never gets a copy made for the first. And so they do when the
// bump reaches an instance later than the writer's answer reaches its client, and the client's
// next request reaches that instance (two processes, one farther from Redis than the other), also
// while other readers keep that instance busy with hits of their own. Nor does a read get the
// answer of an identical one sent upstream before the write (coalescing).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { revokeKeys } from '../../service/accounts/account-admin.js';
import type { RunningGateway } from '../../gateway/start.js';
import { testDatabases } from '../helpers/databases.js';
import type { GatewayProcess } from '../helpers/gateway-process.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import { startGatewayInFront } from '../helpers/gateway.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import type { SlowLink } from '../helpers/slow-link.js';
import { startSlowLink } from '../helpers/slow-link.js';
import { REDIS_URL, uniqueKeyPrefix } from './cache-fixture.js';

const sqlite = testDatabases[0] as (typeof testDatabases)[number];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** PATCHes a project's comment through the REST face; the status. */
async function patchComment(url: string, headers: Record<string, string>, comment: string): Promise<number> {
  const patch = await fetch(url, { method: 'PATCH', headers: { ...headers, 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ comment }) });
  await patch.arrayBuffer();
  return patch.status;
}

describe('two gateway instances on one Redis, each with its own copies', () => {
  let service: TestService;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    service = await startTestService(sqlite);
    const redis = { url: REDIS_URL, keyPrefix: uniqueKeyPrefix() };
    const config = { redis, cache: { defaultTtlSeconds: 60 } };
    [a, b] = await Promise.all([startGatewayInFront(service.root, { config }), startGatewayInFront(service.root, { config })]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await service.close();
  });

  test('20 times in a row, a write through one outdates the copy the other answered from a moment before', async () => {
    const admin = { 'X-ServiceApiKey': service.admin.apiKey };
    for (let round = 0; round < 20; round++) {
      const [reader, writer] = round % 2 === 0 ? [a, b] : [b, a];
      const url = (g: RunningGateway) => `${g.restRoot}/projects/1`;
      await fetch(url(reader), { headers: admin });
      const hit = await fetch(url(reader), { headers: admin });
      expect(hit.headers.get('x-cache')).toBe('HIT');
      await hit.arrayBuffer();

      const comment = `round ${round} ${Date.now()}`;
      expect(await patchComment(url(writer), admin, comment)).toBe(200);

      const after = await fetch(url(reader), { headers: admin });
      expect(after.headers.get('x-cache'), `round ${round}`).toBe('MISS');
      expect(((await after.json()) as { comment: string }).comment).toBe(comment);
    }
  }, 60_000);

  test('another key never gets the copy made for the first; no key gets a 401', async () => {
    // The REST face: the OData face's entries vary on the host, which differs between the two.
    const url = (g: RunningGateway) => `${g.restRoot}/projects?limit=3`;
    const jana = { 'X-ServiceApiKey': service.jana.apiKey };
    await fetch(url(a), { headers: jana });
    const copy = await fetch(url(b), { headers: jana });
    expect(copy.headers.get('x-cache')).toBe('HIT');
    await copy.arrayBuffer();

    const tom = await fetch(url(b), { headers: { 'X-ServiceApiKey': service.tom.apiKey } });
    expect(tom.headers.get('x-cache')).toBe('MISS');
    await tom.arrayBuffer();
    const wrong = await fetch(url(b), { headers: { 'X-ServiceApiKey': 'not-a-key-of-anyone' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('x-cache')).not.toBe('HIT');
    await wrong.arrayBuffer();
    const none = await fetch(url(b));
    expect(none.status).toBe(401);
    await none.arrayBuffer();
  });

  test('a key revoked upstream gets 401 through the instance answering from its copy within the auth TTL (5 s) + 1 s', async () => {
    const key = { 'X-ServiceApiKey': service.tom.apiKey };
    const url = (g: RunningGateway) => `${g.restRoot}/projects?limit=2`;
    await (await fetch(url(a), { headers: key })).arrayBuffer();
    for (let i = 0; i < 2; i++) {
      const hit = await fetch(url(b), { headers: key });
      expect(hit.headers.get('x-cache')).toBe('HIT');
      await hit.arrayBuffer();
    }
    await revokeKeys(service.database.db, service.tom.userId);
    const revokedAt = performance.now();
    let refusedAfter: number | undefined;
    while (refusedAfter === undefined && performance.now() - revokedAt < 8_000) {
      const answer = await fetch(url(b), { headers: key });
      await answer.arrayBuffer();
      if (answer.status === 401) refusedAfter = performance.now() - revokedAt;
      else expect(answer.status).toBe(200);
      await sleep(100);
    }
    expect(refusedAfter).toBeLessThanOrEqual(6_000);
    // And the other instance, which filled the entry, refuses it too.
    expect((await fetch(url(a), { headers: key })).status).toBe(401);
  }, 30_000);
});

describe('two gateway processes on one Redis, the reader 40 ms farther from it than the writer', () => {
  let service: TestService;
  let link: SlowLink;
  let near: GatewayProcess;
  let far: GatewayProcess;
  let folder: string | undefined;

  beforeAll(async () => {
    service = await startTestService(sqlite);
    const redis = new URL(REDIS_URL);
    link = await startSlowLink({ host: redis.hostname, port: Number(redis.port || 6379) }, 40);
    const farUrl = new URL(REDIS_URL);
    farUrl.host = link.host;
    // Shedding load (a 503) is not what is tested, and these processes start and run on a busy machine.
    folder = await mkdtemp(join(tmpdir(), 'tg-far-'));
    const configFile = join(folder, 'gateway.yaml');
    await writeFile(configFile, 'resilience:\n  loadShedding:\n    maxEventLoopDelayMs: 0\n');
    const prefix = uniqueKeyPrefix();
    const args = (url: string) => ['--config', configFile, '--redis', url, '--redis-prefix', prefix, '--cache-ttl', '1m'];
    [near, far] = await Promise.all([startGatewayProcess(service.root, args(REDIS_URL)), startGatewayProcess(service.root, args(farUrl.href))]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([near?.stop(), far?.stop()]);
    await link?.close();
    await service?.close();
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  });

  test('5 times in a row, a write through the near one outdates the copy the far one answered from a moment before', async () => {
    const admin = { 'X-ServiceApiKey': service.admin.apiKey };
    const url = (g: GatewayProcess) => `${g.restRoot}/projects/2`;
    for (let round = 0; round < 5; round++) {
      await (await fetch(url(far), { headers: admin })).arrayBuffer();
      const hit = await fetch(url(far), { headers: admin });
      expect(hit.headers.get('x-cache')).toBe('HIT');
      await hit.arrayBuffer();

      const comment = `far round ${round} ${Date.now()}`;
      expect(await patchComment(url(near), admin, comment)).toBe(200);

      const after = await fetch(url(far), { headers: admin });
      expect(after.headers.get('x-cache'), `round ${round}`).toBe('MISS');
      expect(((await after.json()) as { comment: string }).comment, `round ${round}`).toBe(comment);
    }
  }, 60_000);

  test('with other readers hitting the far one all along, the writer\'s next read through it has its write, 5 times in a row', async () => {
    const admin = { 'X-ServiceApiKey': service.admin.apiKey };
    const url = (g: GatewayProcess) => `${g.restRoot}/projects/3`;
    let isReading = true;
    const readers = Array.from({ length: 4 }, async () => {
      while (isReading) await (await fetch(url(far), { headers: admin })).arrayBuffer();
    });
    try {
      for (let round = 0; round < 5; round++) {
        const comment = `busy round ${round} ${Date.now()}`;
        expect(await patchComment(url(near), admin, comment)).toBe(200);
        const after = await fetch(url(far), { headers: admin });
        expect(((await after.json()) as { comment: string }).comment, `round ${round}`).toBe(comment);
        await sleep(100);
      }
    } finally {
      isReading = false;
      await Promise.all(readers);
    }
  }, 60_000);
});

describe('two gateway instances on one Redis, the reader\'s upstream 600 ms slower than the writer\'s', () => {
  let service: TestService;
  let link: SlowLink;
  let writer: RunningGateway;
  let reader: RunningGateway;

  beforeAll(async () => {
    service = await startTestService(sqlite);
    const origin = new URL(service.root);
    link = await startSlowLink({ host: origin.hostname, port: Number(origin.port) }, 600);
    const redis = { url: REDIS_URL, keyPrefix: uniqueKeyPrefix() };
    const config = { redis, cache: { defaultTtlSeconds: 60 } };
    const slowRoot = new URL(service.root);
    slowRoot.host = link.host;
    [writer, reader] = await Promise.all([startGatewayInFront(service.root, { config }), startGatewayInFront(slowRoot.href, { config })]);
  });
  afterAll(async () => {
    await Promise.all([writer?.close(), reader?.close()]);
    await link?.close();
    await service?.close();
  });

  test('a read that comes after a write was answered does not get the answer of a read sent upstream before it', async () => {
    const admin = { 'X-ServiceApiKey': service.admin.apiKey };
    const url = (g: RunningGateway) => `${g.restRoot}/projects/4`;
    await (await fetch(`${reader.restRoot}/projects?limit=1`, { headers: admin })).arrayBuffer();
    // Read upstream now, answered 600 ms later.
    const early = fetch(url(reader), { headers: admin }).then(async (answer) => answer.arrayBuffer());
    await sleep(150);
    const comment = `written while a read was on its way ${Date.now()}`;
    expect(await patchComment(url(writer), admin, comment)).toBe(200);

    const after = await fetch(url(reader), { headers: admin });
    expect(((await after.json()) as { comment: string }).comment).toBe(comment);
    await early;
  }, 30_000);
});
