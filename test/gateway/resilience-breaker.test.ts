// The gateway when its upstream dies and comes back, on both faces: failures are 502 in each
// face's own error format (never a crash or a stack trace); after repeated failures the circuit
// breaker opens and both faces fail fast with 503 + Retry-After without trying the upstream;
// /readyz says not ready while /healthz stays up; when the upstream returns, the half-open probe
// closes the breaker and both faces answer again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../gateway/start.js';
import { testDatabases } from '../helpers/databases.js';
import { restartable } from '../helpers/flaky-relay.js';
import type { RestartableService } from '../helpers/flaky-relay.js';
import { startGatewayInFront } from '../helpers/gateway.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const OPEN_MS = 400;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testDatabases)('upstream failure and recovery on $name', (kind) => {
  let service: TestService;
  let upstream: RestartableService;
  let gateway: RunningGateway;

  beforeAll(async () => {
    service = await startTestService(kind);
    upstream = restartable(service);
    gateway = await startGatewayInFront(service.root, {
      config: {
        cache: { enabled: false },
        ops: { adminPort: 0 },
        resilience: { breaker: { failureThreshold: 3, openMs: OPEN_MS }, retry: { maxRetries: 0 } },
      },
    });
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
    await service?.close();
  });

  const key = () => ({ 'x-serviceapikey': service.jana.apiKey });
  const odata = (path: string) => fetch(`${gateway.origin}/V1/Api.svc${path}`, { headers: { ...key(), accept: 'application/json' } });
  const rest = (path: string) => fetch(`${gateway.restRoot}${path}`, { headers: key() });

  it('answers 502 in each face\'s format while the upstream is down, opens the breaker, and recovers when it returns', async () => {
    expect((await odata('/Projects?$top=1')).status).toBe(200);
    expect((await rest('/projects?limit=1')).status).toBe(200);
    expect((await fetch(`${gateway.origin}/readyz`)).status).toBe(200);

    await upstream.stop();

    const odataDown = await odata('/Projects?$top=1');
    expect(odataDown.status).toBe(502);
    expect(odataDown.headers.get('content-type')).toBe('application/json;charset=utf-8');
    const odataError = (await odataDown.json()) as { error: { code: string; message: { value: string } } };
    expect(odataError.error.code).toBe('BAD_GATEWAY');
    expect(odataError.error.message.value).toBe('the upstream OData service cannot be reached');

    const restDown = await rest('/projects?limit=1');
    expect(restDown.status).toBe(502);
    expect(restDown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await restDown.json()) as { type: string; status: number; detail: string };
    expect(problem).toMatchObject({ type: 'urn:timegate:problem:bad-gateway', status: 502 });
    expect(problem.detail).not.toMatch(/127\.0\.0\.1|\.ts:\d+/);

    // Third consecutive failure: the breaker opens.
    expect((await odata('/Clients')).status).toBe(502);

    const fastOData = await odata('/Projects?$top=1');
    expect(fastOData.status).toBe(503);
    expect(Number(fastOData.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await fastOData.json()) as { error: { code: string } }).error.code).toBe('UPSTREAM_UNAVAILABLE');
    const fastRest = await rest('/projects?limit=1');
    expect(fastRest.status).toBe(503);
    expect(fastRest.headers.get('retry-after')).not.toBeNull();
    expect(((await fastRest.json()) as { type: string }).type).toBe('urn:timegate:problem:upstream-unavailable');

    const health = await fetch(`${gateway.origin}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${gateway.origin}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { status: string }).status).toBe('not ready');

    const metricsWhileOpen = await (await fetch(`${gateway.adminOrigin}/metrics`)).text();
    expect(metricsWhileOpen).toMatch(/timegate_gateway_circuit_breaker_state\{upstream="[^"]+",state="open"\} 1/);

    await upstream.start();
    await sleep(OPEN_MS + 50);

    // The half-open probe succeeds and closes the breaker; both faces answer again.
    expect((await odata('/Projects?$top=1')).status).toBe(200);
    expect((await rest('/projects?limit=1')).status).toBe(200);
    expect((await fetch(`${gateway.origin}/readyz`)).status).toBe(200);
    const metricsAfter = await (await fetch(`${gateway.adminOrigin}/metrics`)).text();
    expect(metricsAfter).toMatch(/timegate_gateway_circuit_breaker_state\{upstream="[^"]+",state="closed"\} 1/);
  });
});
