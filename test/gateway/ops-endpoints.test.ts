// Operating the gateway: /healthz and /readyz, X-Request-Id from the caller (or generated) on the
// answer and at the upstream for both faces, /metrics on the admin port (never the public one)
// with request counts and latencies by route pattern and status, upstream latency, cache and
// rate-limit outcomes and breaker state;
// and, as the `timegate gateway` command run from a configuration file, logs that carry request
// ids but never a caller's key, whichever form it came in.
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import { startTestGateway } from '../helpers/gateway.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startTestService } from '../helpers/service.js';

describe.each(testDatabases)('operations endpoints on $name', (kind) => {
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway(kind, { config: { ops: { adminPort: 0 }, rateLimit: { byClass: { write: { limit: 1, windowSeconds: 60 } } } } });
  });

  afterAll(async () => {
    await t?.close();
  });

  const key = () => ({ 'x-serviceapikey': t.service.jana.apiKey });

  it('says it is alive and ready, without a key', async () => {
    const health = await fetch(`${t.origin}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${t.origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', upstream: 'the upstream answers' });
  });

  it('keeps the caller\'s X-Request-Id on the answer and at the upstream, on both faces, and makes one when none is given', async () => {
    const odata = await fetch(`${t.origin}/V1/Api.svc/Projects(1)?$format=json`, { headers: { ...key(), 'x-request-id': 'trace-odata-1' } });
    expect(odata.headers.get('x-request-id')).toBe('trace-odata-1');
    expect(t.service.answered().at(-1)?.headers['x-request-id']).toBe('trace-odata-1');
    const rest = await fetch(`${t.restRoot}/projects/1`, { headers: { ...key(), 'x-request-id': 'trace-rest-1' } });
    expect(rest.headers.get('x-request-id')).toBe('trace-rest-1');
    expect(t.service.answered().at(-1)?.headers['x-request-id']).toBe('trace-rest-1');
    const generated = await fetch(`${t.origin}/V1/Api.svc/Projects(2)?$format=json`, { headers: key() });
    const id = generated.headers.get('x-request-id');
    expect(id).toMatch(/^[\w.:-]{8,}$/);
    expect(t.service.answered().at(-1)?.headers['x-request-id']).toBe(id);
  });

  it('exposes request, upstream, cache, rate-limit and breaker metrics in Prometheus text on the admin port only', async () => {
    for (let i = 0; i < 2; i++) {
      expect((await fetch(`${t.restRoot}/clients`, { headers: key() })).status).toBe(200);
      expect((await fetch(`${t.origin}/v1/api.svc/Clients?$format=json`, { headers: key() })).status).toBe(200);
    }
    const writes = [];
    for (let i = 0; i < 2; i++) {
      writes.push((await fetch(`${t.restRoot}/clients`, { method: 'POST', headers: { ...key(), 'content-type': 'application/json' }, body: JSON.stringify({ name: `Metric client ${i}` }) })).status);
    }
    expect(writes[1]).toBe(429);

    expect((await fetch(`${t.origin}/metrics`)).status).toBe(404);
    expect(t.gateway.adminOrigin).toBeDefined();
    expect((await fetch(`${t.gateway.adminOrigin}/healthz`)).status).toBe(200);
    const response = await fetch(`${t.gateway.adminOrigin}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toMatch(/timegate_gateway_requests_total\{route="\/V1\/Api\.svc\/\*",method="GET",status="200"\} \d+/);
    expect(text).toMatch(/timegate_gateway_requests_total\{route="\/api\/v1\/clients",method="GET",status="200"\} [2-9]/);
    expect(text).toMatch(/timegate_gateway_requests_total\{route="\/api\/v1\/clients",method="POST",status="429"\} 1/);
    expect(text).toMatch(/timegate_gateway_request_duration_seconds_bucket\{le="0\.005",route="\/V1\/Api\.svc\/\*",method="GET",status="200"\} \d+/);
    expect(text).toMatch(/timegate_gateway_upstream_duration_seconds_count\{face="odata",outcome="200"\} [1-9]/);
    expect(text).toMatch(/timegate_gateway_upstream_duration_seconds_count\{face="rest",outcome="200"\} [1-9]/);
    expect(text).toMatch(/timegate_gateway_cache_lookups_total\{face="rest",outcome="hit"\} [1-9]/);
    expect(text).toMatch(/timegate_gateway_cache_lookups_total\{face="odata",outcome="miss"\} [1-9]/);
    expect(text).toMatch(/timegate_gateway_rate_limited_total\{route_class="write"\} 1/);
    expect(text).toMatch(/timegate_gateway_circuit_breaker_state\{upstream="http:\/\/127\.0\.0\.1:\d+",state="closed"\} 1/);
    expect(text).toMatch(/timegate_gateway_process_resident_memory_bytes \d+/);
    // No label ever holds a URL with its query, let alone a key.
    expect(text).not.toContain(t.service.jana.apiKey);
    expect(text).not.toMatch(/route="[^"]*\?/);
  });
});

describe('timegate gateway as a process, from a configuration file', () => {
  it('logs request ids but never a key, in any of its forms', async () => {
    const service = await startTestService(testDatabases[0] as (typeof testDatabases)[number]);
    const folder = await mkdtemp(join(tmpdir(), 'timegate-ops-'));
    try {
      const configFile = join(folder, 'gateway.yaml');
      await writeFile(configFile, 'auth:\n  keyHeaderAliases: [X-Api-Key]\ncache:\n  enabled: false\nresilience:\n  breaker:\n    failureThreshold: 9\n');
      const gateway = await startGatewayProcess(service.root, ['--config', configFile, '--admin-port', '0']);
      try {
        const secret = service.tom.apiKey;
        const basic = Buffer.from(`u:${secret}`).toString('base64');
        const requests: Array<[string, Record<string, string>]> = [
          [`${gateway.odataRoot}/Projects?ApiKey=${secret}&$format=json`, {}],
          [`${gateway.odataRoot}/Projects?$format=json&apikey=${encodeURIComponent(secret)}`, { 'x-request-id': 'trace-log-1' }],
          [`${gateway.odataRoot}/Projects?$format=json`, { authorization: `Basic ${basic}` }],
          [`${gateway.odataRoot}/Projects?$format=json`, { authorization: `Bearer ${secret}` }],
          [`${gateway.odataRoot}/Projects?$format=json`, { 'X-Api-Key': secret }],
          [`${gateway.restRoot}/projects?ApiKey=${secret}`, {}],
          [`${gateway.restRoot}/projects/999999`, { 'x-serviceapikey': secret }],
        ];
        for (const [url, headers] of requests) {
          const status = (await fetch(url, { headers })).status;
          expect([200, 404]).toContain(status);
        }
        const breaker = await (await fetch(`${gateway.adminOrigin}/metrics`)).text();
        expect(breaker).toContain('state="closed"} 1');
        await new Promise((resolve) => setTimeout(resolve, 200));
        const logs = gateway.logs.join('\n');
        expect(logs).toContain('"reqId":"trace-log-1"');
        expect(logs).toMatch(/"url":"\/V1\/Api\.svc\/Projects\?/);
        expect(logs).not.toContain(secret);
        expect(logs).not.toContain(encodeURIComponent(secret));
        expect(logs).not.toContain(basic);
      } finally {
        await gateway.stop();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
      await service.close();
    }
  }, 90_000);
});
