// Operating the service: /readyz says whether the database answers (503 while PostgreSQL cannot be
// reached, ready again once it can), and /metrics on the admin port (never the public one) counts
// requests by entity set or operation, method and status, times them, counts stopwatch starts and
// shows the PostgreSQL pool, without any key or URL in its text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../service/accounts/demo-seed.js';
import type { DemoUser } from '../../service/accounts/demo-seed.js';
import { DEFAULT_SERVICE_CONFIG } from '../../service/config.js';
import { startService } from '../../service/start.js';
import type { RunningService } from '../../service/start.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';
import { startFlakyRelay } from '../helpers/flaky-relay.js';
import type { FlakyRelay } from '../helpers/flaky-relay.js';

describe.each(testDatabases)('service operations on $name', (kind) => {
  let place: TestDatabasePlace;
  let service: RunningService;
  let user: DemoUser;

  beforeAll(async () => {
    place = await kind.create();
    const seeded = await seedDemoAccount((await place.open()).db);
    if (!seeded.created) throw new Error('not seeded');
    user = seeded.users[1] as DemoUser;
    service = await startService({ ...DEFAULT_SERVICE_CONFIG, port: 0, adminPort: 0, databaseUrl: place.url, authCacheTtlMs: 0 }, { logger: false });
  });

  afterAll(async () => {
    await service?.close();
    await place?.dispose();
  });

  it('is ready while its database answers', async () => {
    const ready = await fetch(`${service.origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await ready.json()).toEqual({ status: 'ready', database: kind.name });
    expect((await fetch(`${service.adminOrigin}/readyz`)).status).toBe(200);
  });

  it('counts requests by resource, method and status, and stopwatch starts, on the admin port only', async () => {
    const key = { 'x-serviceapikey': user.apiKey };
    const projects = await fetch(`${service.root}/Projects?$format=json`, { headers: key });
    expect(projects.status).toBe(200);
    const projectId = ((await projects.json()) as { d: { results: { ID: number }[] } }).d.results[0]?.ID;
    expect((await fetch(`${service.root}/TimeEntries(999999)?$format=json`, { headers: key })).status).toBe(404);
    expect((await fetch(`${service.root}/Projects?ApiKey=${user.apiKey}&$format=json`)).status).toBe(200);
    expect((await fetch(`${service.root}/NoSuchSet`, { headers: key })).status).toBe(404);
    expect((await fetch(`${service.root}/StartStopWatch?ProjectID=${projectId}&$format=json`, { headers: key })).status).toBe(200);
    expect((await fetch(`${service.root}/HaltStopWatch?$format=json`, { headers: key })).status).toBe(200);

    expect((await fetch(`${service.origin}/metrics`)).status).toBe(404);
    const scraped = await fetch(`${service.adminOrigin}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await scraped.text();
    expect(text).toMatch(/timegate_service_requests_total\{resource="Projects",method="GET",status="200"\} 2/);
    expect(text).toMatch(/timegate_service_requests_total\{resource="TimeEntries",method="GET",status="404"\} 1/);
    // /NoSuchSet and the public port's /metrics
    expect(text).toMatch(/timegate_service_requests_total\{resource="other",method="GET",status="404"\} 2/);
    expect(text).toMatch(/timegate_service_request_duration_seconds_count\{resource="StartStopWatch",method="GET",status="200"\} 1/);
    expect(text).toMatch(/^timegate_service_stopwatch_starts_total 1$/m);
    expect(text).toMatch(/^timegate_service_process_cpu_seconds_total /m);
    if (kind.name === 'postgres') expect(text).toMatch(/^timegate_service_database_pool_connections\{state="total"\} [1-9]/m);
    expect(text).not.toContain(user.apiKey);
    expect(text).not.toContain('NoSuchSet');
  });
});

describe.runIf(testDatabases.some((kind) => kind.name === 'postgres'))('readiness while PostgreSQL cannot be reached', () => {
  let place: TestDatabasePlace;
  let relay: FlakyRelay;
  let service: RunningService;

  beforeAll(async () => {
    place = await (testDatabases.find((kind) => kind.name === 'postgres') as (typeof testDatabases)[number]).create();
    const url = new URL(place.url);
    relay = await startFlakyRelay(`http://${url.hostname}:${url.port || 5432}`);
    url.port = new URL(relay.root).port;
    service = await startService({ ...DEFAULT_SERVICE_CONFIG, port: 0, databaseUrl: url.toString() }, { logger: false });
  });

  afterAll(async () => {
    await service?.close();
    await relay?.close();
    await place?.dispose();
  });

  it('answers 503 while the database is away and 200 once it is back', async () => {
    expect((await fetch(`${service.origin}/readyz`)).status).toBe(200);
    relay.dropNext(Number.MAX_SAFE_INTEGER);
    await relay.resetConnections();
    const down = await fetch(`${service.origin}/readyz`);
    expect(down.status).toBe(503);
    const body = (await down.json()) as { status: string; database: string; detail: string };
    expect(body).toMatchObject({ status: 'not ready', database: 'postgres' });
    expect(body.detail).not.toMatch(/postgres:\/\//);
    expect((await fetch(`${service.origin}/healthz`)).status).toBe(503);
    relay.dropNext(0);
    expect((await fetch(`${service.origin}/readyz`)).status).toBe(200);
  });
});
