// Issue 32: both faces reach the upstream through one dispatcher. Seen from outside, they share
// its connections: with a pool of one connection, OData and REST requests (side by side, too)
// all travel on the one TCP connection the upstream sees. Seen from inside, a policy added to
// the dispatcher is one that both faces get: an extra interceptor sees the calls of both, each
// already carrying the credential in the upstream's form.
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayConfig } from '../../gateway/config.js';
import { startGateway } from '../../gateway/start.js';
import type { RunningGateway } from '../../gateway/start.js';
import { testDatabases } from '../helpers/databases.js';
import type { FlakyRelay } from '../helpers/flaky-relay.js';
import { startFlakyRelay } from '../helpers/flaky-relay.js';
import { artefactsOf } from '../helpers/gateway.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';

const sqlite = testDatabases[0] as (typeof testDatabases)[number];

interface SeenCall {
  readonly method: string;
  readonly path: string;
  readonly key: string | undefined;
}

/** An interceptor that notes every attempt as it is sent. */
function recorder(seen: SeenCall[]): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => {
    const headers = (options.headers ?? {}) as Record<string, string | string[] | undefined>;
    const key = Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-serviceapikey')?.[1];
    seen.push({ method: options.method, path: options.path, key: typeof key === 'string' ? key : undefined });
    return dispatch(options, handler);
  };
}

describe('one upstream dispatcher for both faces', () => {
  let service: TestService;
  let relay: FlakyRelay;
  let gateway: RunningGateway;
  const seen: SeenCall[] = [];

  beforeAll(async () => {
    service = await startTestService(sqlite);
    relay = await startFlakyRelay(service.origin);
    // Load shedding off: a busy test machine's lag is not what this is about.
    const config = gatewayConfig({
      logLevel: 'silent', host: '127.0.0.1', port: 0, cache: { enabled: false }, upstream: { url: relay.root, connections: 1 },
      resilience: { loadShedding: { maxEventLoopDelayMs: 0 } },
    });
    gateway = await startGateway(config, await artefactsOf(), { logger: false, upstreamInterceptors: [recorder(seen)] });
  });
  afterAll(async () => {
    await gateway?.close();
    await relay?.close();
    await service?.close();
  });

  it('carries the calls of both faces on the same connections, side by side too', async () => {
    const key = { 'x-serviceapikey': service.jana.apiKey };
    const read = async (url: string) => {
      const answer = await fetch(url, { headers: key });
      await answer.arrayBuffer();
      return answer.status;
    };
    const urls = [`${gateway.origin}/V1/Api.svc/Projects?$format=json`, `${gateway.restRoot}/projects`, `${gateway.origin}/V1/Api.svc/Clients?$format=json`, `${gateway.restRoot}/clients`];
    for (const url of urls) expect(await read(url), url).toBe(200);
    expect(await Promise.all([...urls, ...urls].map(read))).toEqual(Array(8).fill(200));
    // Two stacks would have opened a connection each (at least).
    expect(relay.passed()).toBe(1);
  });

  it('runs a policy added to it for the calls of both faces, after the credential policy', async () => {
    seen.length = 0;
    const key = service.tom.apiKey;
    expect((await fetch(`${gateway.origin}/V1/Api.svc/TimeEntries?$format=json&$top=1`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await fetch(`${gateway.restRoot}/time-entries?limit=1`, { headers: { authorization: `Basic ${Buffer.from(`tom:${key}`).toString('base64')}` } })).status).toBe(200);
    const entries = seen.filter((call) => /\/TimeEntries\b/.test(call.path));
    expect(entries.map((call) => call.method)).toEqual(['GET', 'GET']);
    // Whatever form the caller used, each face's call carries the key as the upstream takes it.
    expect(entries.map((call) => call.key)).toEqual([key, key]);
  });
});
