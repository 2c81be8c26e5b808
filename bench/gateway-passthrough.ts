// The OData passthrough's cost (issue 6): the same OData requests sent to the service directly
// and through the gateway's passthrough face (every edge feature on, the cache off, so each
// request reaches the service). Latency is measured by one client sending requests one after
// another (autocannon's histogram has 1 ms steps, too coarse for a target of 0.5 ms), in
// alternating rounds; the added p50 is the median of the per-round differences. Throughput at
// 10 connections is reported beside it. The gateway runs as its own process pinned to core 0;
// the service and the load run in this process on core 1. TG_BENCH_ROUNDS and TG_BENCH_REQUESTS
// shorten a run (fewer rounds, fewer requests per round) on a busy machine.
import { Pool } from 'undici';
import { fileURLToPath } from 'node:url';
import { testDatabases } from '../test/helpers/databases.js';
import { startTestService } from '../test/helpers/service.js';
import type { LoadRequest, RunningServer } from './http-load.js';
import { load, percentile, pinThisProcess, sequentialLatencies, startPinnedServer } from './http-load.js';
import { formatRate, formatRatio, markdownTable, median } from './report.js';
import type { BenchSuite } from './suite.js';

const ROUNDS = Number(process.env.TG_BENCH_ROUNDS ?? 5);
const REQUESTS_PER_ROUND = Number(process.env.TG_BENCH_REQUESTS ?? 1_000);
const WARMUP_REQUESTS = 500;
const CONNECTIONS = 10;
const LOAD_SECONDS = 3;
const GATEWAY_CORE = 0;
const LOAD_CORE = 1;
const TARGET_ADDED_P50_MS = 0.5;
const SERVER_SCRIPT = fileURLToPath(new URL('./gateway-passthrough-server.ts', import.meta.url));

function fail(message: string): never {
  throw new Error(`gateway-passthrough bench: ${message}`);
}

interface Scenario {
  readonly name: string;
  readonly request: LoadRequest;
}

interface Measured {
  readonly directP50: number[];
  readonly gatewayP50: number[];
  readonly directP99: number[];
  readonly gatewayP99: number[];
}

async function measureLatency(direct: Pool, gateway: Pool, request: LoadRequest): Promise<Measured> {
  await sequentialLatencies(direct, request, WARMUP_REQUESTS);
  await sequentialLatencies(gateway, request, WARMUP_REQUESTS);
  const measured: Measured = { directP50: [], gatewayP50: [], directP99: [], gatewayP99: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order: Array<[Pool, 'direct' | 'gateway']> = round % 2 === 0 ? [[direct, 'direct'], [gateway, 'gateway']] : [[gateway, 'gateway'], [direct, 'direct']];
    for (const [pool, which] of order) {
      const latencies = await sequentialLatencies(pool, request, REQUESTS_PER_ROUND);
      measured[`${which}P50`].push(percentile(latencies, 0.5));
      measured[`${which}P99`].push(percentile(latencies, 0.99));
    }
  }
  return measured;
}

export const gatewayPassthrough: BenchSuite = {
  name: 'gateway-passthrough',
  description: 'OData requests through the gateway passthrough vs straight to the service (added p50 latency)',
  async run() {
    pinThisProcess(LOAD_CORE);
    const sqlite = testDatabases.find((kind) => kind.name === 'sqlite') ?? fail('no SQLite test database');
    const service = await startTestService(sqlite);
    let gateway: RunningServer | undefined;
    const pools: Pool[] = [];
    try {
      gateway = await startPinnedServer(GATEWAY_CORE, (port) => ['--import', 'tsx', SERVER_SCRIPT, service.root, String(port)]);
      const headers = { 'x-serviceapikey': service.admin.apiKey };
      const scenarios: Scenario[] = [
        { name: 'one entity, JSON', request: { path: '/V1/Api.svc/Projects(1)?$format=json', headers } },
        { name: 'page of 100 time entries, JSON (~80 kB, URIs rewritten)', request: { path: '/V1/Api.svc/TimeEntries?$top=100&$format=json', headers } },
        { name: 'page of 100 time entries, Atom', request: { path: '/V1/Api.svc/TimeEntries?$top=100', headers } },
      ];
      // The gateway must answer what the service answers, with its own root in the URIs.
      for (const { request } of scenarios) {
        const [fromService, fromGateway] = await Promise.all([service.origin, gateway.origin].map(async (origin) => (await fetch(origin + request.path, { headers })).text()));
        const withoutDates = (text: string) => text.replace(/<updated>[^<]+<\/updated>/g, '');
        if (withoutDates(fromGateway as string) !== withoutDates((fromService as string).replaceAll(service.root, `${gateway.origin}/V1/Api.svc`))) fail(`${request.path}: the gateway's answer differs from the service's`);
      }
      const direct = new Pool(service.origin, { connections: 1 });
      const through = new Pool(gateway.origin, { connections: 1 });
      pools.push(direct, through);

      console.log(`one client, requests one after another: ${ROUNDS} alternating rounds of ${REQUESTS_PER_ROUND} per side (after ${WARMUP_REQUESTS} warm-up); gateway on core ${GATEWAY_CORE}, service and client on core ${LOAD_CORE}; medians of the rounds.\n`);
      const rows: string[][] = [];
      for (const scenario of scenarios) {
        const m = await measureLatency(direct, through, scenario.request);
        const added = median(m.gatewayP50.map((p50, i) => p50 - (m.directP50[i] as number)));
        rows.push([
          scenario.name,
          median(m.directP50).toFixed(3),
          median(m.gatewayP50).toFixed(3),
          added.toFixed(3),
          `${median(m.directP99).toFixed(2)} / ${median(m.gatewayP99).toFixed(2)}`,
          `≤ ${TARGET_ADDED_P50_MS} ms: ${added <= TARGET_ADDED_P50_MS ? 'met' : 'NOT met'}`,
        ]);
      }
      console.log(markdownTable(['scenario', 'direct p50 ms', 'gateway p50 ms', 'added p50 ms', 'p99 ms direct / gateway', 'target'], rows));

      console.log(`\nthroughput at ${CONNECTIONS} connections, ${LOAD_SECONDS} s per side (after a 2 s warm-up each):\n`);
      const throughput: string[][] = [];
      for (const scenario of scenarios.slice(0, 2)) {
        const options = (origin: string) => ({ origin, requests: [scenario.request], connections: CONNECTIONS });
        await load({ ...options(service.origin), durationSeconds: 2 });
        await load({ ...options(gateway.origin), durationSeconds: 2 });
        const d = await load({ ...options(service.origin), durationSeconds: LOAD_SECONDS });
        const g = await load({ ...options(gateway.origin), durationSeconds: LOAD_SECONDS });
        if (d.failures + g.failures > 0) fail(`${scenario.name}: ${d.failures + g.failures} failed requests`);
        throughput.push([scenario.name, formatRate(d.requestsPerSecond), formatRate(g.requestsPerSecond), formatRatio(g.requestsPerSecond / d.requestsPerSecond)]);
      }
      console.log(markdownTable(['scenario', 'direct req/s', 'gateway req/s', 'gateway / direct'], throughput));
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
      await gateway?.stop();
      await service.close();
    }
  },
};
