// `timegate service` as an operator runs it: options checked at start, /healthz, and a graceful
// stop: on SIGTERM a request already being received is still answered, then the process exits 0.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../service/accounts/demo-seed.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';
import { expectOneLineError, timegate } from '../helpers/cli.js';
import { startServiceProcess } from '../helpers/service-process.js';

describe('timegate service options', () => {
  it('refuses bad values in one line with exit code 2', async () => {
    expect(expectOneLineError(await timegate(['service', '--port', 'eighty']), 2, 'service')).toContain('--port must be a whole number');
    expect(expectOneLineError(await timegate(['service', '--tls-cert', 'x.pem']), 2, 'service')).toContain('--tls-cert and --tls-key go together');
    expect(expectOneLineError(await timegate(['service', '--db', 'mysql://x/y']), 1, 'service')).toContain('unsupported database URL scheme: mysql');
  }, 30_000);
});

describe.each(testDatabases)('timegate service on $name', (kind) => {
  let place: TestDatabasePlace;
  let apiKey: string;

  beforeAll(async () => {
    place = await kind.create();
    const seeded = await seedDemoAccount((await place.open()).db);
    if (!seeded.created) throw new Error('not seeded');
    apiKey = seeded.users[0]?.apiKey as string;
  });

  afterAll(async () => {
    await place?.dispose();
  });

  it('answers /healthz, and on SIGTERM finishes the request in flight before it exits 0', async () => {
    const service = await startServiceProcess(['--db', place.url]);
    const health = await fetch(`${new URL(service.root).origin}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok', database: kind.name });

    const body = JSON.stringify({ Name: 'Angelegt beim Herunterfahren', Active: true });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${service.root}/Projects`, {
        method: 'POST',
        headers: { 'x-serviceapikey': apiKey, 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) },
      }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      // Half the body now, the rest after the stop signal.
      req.write(body.slice(0, 10));
      setTimeout(() => {
        service.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 300);
    });
    const exitCode = new Promise<number | null>((resolve) => service.child.once('exit', resolve));
    const { status, text } = await answer;
    expect(status).toBe(201);
    expect(JSON.parse(text)).toMatchObject({ d: { Name: 'Angelegt beim Herunterfahren' } });
    expect(await exitCode).toBe(0);
    expect(service.logs.some((line) => line.includes('SIGTERM: finishing in-flight requests'))).toBe(true);
  }, 60_000);
});
