// The OData passthrough's cost (issue 6): the same OData requests sent to the service directly,
// through a bare proxy (bench/bare-proxy-server.ts: the hop alone) and through the gateway's
// passthrough face (every edge feature on, the cache off, so each request reaches the service).
// Latency is measured by one client sending requests one after another (autocannon's histogram
// has 1 ms steps, too coarse for a target of 0.5 ms), one to each side in turn; an added p50 is
// the median over rounds of the difference to the direct call. Two services: one run as `timegate
// start` runs it behind the gateway (it believes X-Forwarded-Host and writes the gateway's root
// itself), one that does not (the gateway rewrites every URI, as for any V2 server that ignores
// the header). Throughput at 10 connections is reported beside it. The gateways and bare proxies
// run as their own processes pinned to core 0; the services and the load run in this process on
// core 1. TG_BENCH_ROUNDS and TG_BENCH_REQUESTS shorten a run on a busy machine;
// TG_BENCH_BASELINE_TREE adds another checkout's gateway as a fourth side (baseline-tree.ts).
import { Pool } from 'undici';
import { fileURLToPath } from 'node:url';
import { testDatabases } from '../test/helpers/databases.js';
import type { TestService } from '../test/helpers/service.js';
import { startTestService } from '../test/helpers/service.js';
import type { LoadRequest, LoadResult, RunningServer } from './http-load.js';
import { latencyRounds, load, pinThisProcess, startPinnedServer } from './http-load.js';
import { formatRate, formatRatio, markdownTable, median } from './report.js';
import type { BenchSuite } from './suite.js';
import { BASELINE_TREE, baselineFile } from './baseline-tree.js';

const ROUNDS = Number(process.env.TG_BENCH_ROUNDS ?? 5);
const REQUESTS_PER_ROUND = Number(process.env.TG_BENCH_REQUESTS ?? 1_000);
const WARMUP_REQUESTS = 500;
const CONNECTIONS = 10;
const LOAD_SECONDS = 3;
const PROXY_CORE = 0;
const LOAD_CORE = 1;
const TARGET_ADDED_P50_MS = 0.5;
const GATEWAY_SCRIPT = fileURLToPath(new URL('./gateway-passthrough-server.ts', import.meta.url));
const BARE_PROXY_SCRIPT = fileURLToPath(new URL('./bare-proxy-server.ts', import.meta.url));

/** The rounds' values, least to greatest: the noise of a median. */
function spread(values: readonly number[]): string {
  return [...values].sort((a, b) => a - b).map((value) => value.toFixed(3)).join(' ');
}

function fail(message: string): never {
  throw new Error(`gateway-passthrough bench: ${message}`);
}

/** One service with the gateway and the bare proxy in front of it. */
interface Upstream {
  readonly service: TestService;
  readonly gateway: RunningServer;
  readonly bare: RunningServer;
  /** The gateway of TG_BENCH_BASELINE_TREE, when given. */
  readonly before: RunningServer | undefined;
}

interface Scenario {
  readonly name: string;
  readonly upstream: Upstream;
  readonly request: LoadRequest;
}

type Side = 'direct' | 'bare' | 'gateway' | 'before';
const SIDES: readonly Side[] = BASELINE_TREE === undefined ? ['direct', 'bare', 'gateway'] : ['direct', 'bare', 'gateway', 'before'];

interface Measured {
  readonly p50: Record<Side, number[]>;
  readonly p99: Record<Side, number[]>;
}

async function measureLatency(pools: Partial<Record<Side, Pool>>, request: LoadRequest): Promise<Measured> {
  const { p50, p99 } = await latencyRounds(SIDES.map((side) => ({ pool: pools[side] ?? fail(`no pool for ${side}`), request })), ROUNDS, REQUESTS_PER_ROUND, WARMUP_REQUESTS);
  const bySide = (perSide: number[][]) => Object.fromEntries(SIDES.map((side, i) => [side, perSide[i] as number[]])) as Record<Side, number[]>;
  return { p50: bySide(p50), p99: bySide(p99) };
}

async function startUpstream(trustProxy: boolean): Promise<Upstream> {
  const sqlite = testDatabases.find((kind) => kind.name === 'sqlite') ?? fail('no SQLite test database');
  const service = await startTestService(sqlite, { trustProxy });
  const started: RunningServer[] = [];
  try {
    started.push(await startPinnedServer(PROXY_CORE, (port) => ['--import', 'tsx', GATEWAY_SCRIPT, service.root, String(port)]));
    started.push(await startPinnedServer(PROXY_CORE, (port) => ['--import', 'tsx', BARE_PROXY_SCRIPT, service.origin, String(port)]));
    if (BASELINE_TREE !== undefined) {
      const script = baselineFile(BASELINE_TREE, 'bench/gateway-passthrough-server.ts');
      started.push(await startPinnedServer(PROXY_CORE, (port) => ['--import', 'tsx', script, service.root, String(port)]));
    }
    return { service, gateway: started[0] as RunningServer, bare: started[1] as RunningServer, before: started[2] };
  } catch (error) {
    await Promise.all(started.map((server) => server.stop()));
    await service.close();
    throw error;
  }
}

async function stopUpstream(upstream: Upstream): Promise<void> {
  await Promise.all([upstream.gateway.stop(), upstream.bare.stop(), upstream.before?.stop()]);
  await upstream.service.close();
}

/** The gateway must answer what the service answers, with its own root in every URI. */
async function checkSameAnswer({ upstream, request }: Scenario): Promise<void> {
  const { service, gateway } = upstream;
  const [fromService, fromGateway] = await Promise.all([service.origin, gateway.origin].map(async (origin) => (await fetch(origin + request.path, { headers: request.headers })).text()));
  const withoutDates = (text: string) => text.replace(/<updated>[^<]+<\/updated>/g, '');
  const expected = (fromService as string).replaceAll(service.root, `${gateway.origin}/V1/Api.svc`);
  if (withoutDates(fromGateway as string) !== withoutDates(expected)) fail(`${request.path}: the gateway's answer differs from the service's`);
  if ((fromGateway as string).includes(service.origin)) fail(`${request.path}: the gateway's answer names the service's host`);
}

export const gatewayPassthrough: BenchSuite = {
  name: 'gateway-passthrough',
  description: 'OData requests through the gateway passthrough vs straight to the service (added p50 latency)',
  async run() {
    pinThisProcess(LOAD_CORE);
    const upstreams: Upstream[] = [];
    const pools: Pool[] = [];
    try {
      upstreams.push(await startUpstream(true), await startUpstream(false));
      const [behind, plain] = upstreams as [Upstream, Upstream];
      const page = '/V1/Api.svc/TimeEntries?$top=100';
      const scenarios: Scenario[] = [
        { name: 'one entity, JSON', upstream: behind, request: { path: '/V1/Api.svc/Projects(1)?$format=json' } },
        { name: 'page of 100 time entries, JSON (~80 kB)', upstream: behind, request: { path: `${page}&$format=json` } },
        { name: 'page of 100 time entries, Atom (~210 kB)', upstream: behind, request: { path: page } },
        { name: 'page of 100, JSON, every URI rewritten', upstream: plain, request: { path: `${page}&$format=json` } },
        { name: 'page of 100, Atom, every URI rewritten', upstream: plain, request: { path: page } },
      ].map((scenario) => ({ ...scenario, request: { ...scenario.request, headers: { 'x-serviceapikey': scenario.upstream.service.admin.apiKey } } }));
      for (const scenario of scenarios) await checkSameAnswer(scenario);

      console.log(`one client, requests one after another, one to each side in turn: ${ROUNDS} rounds of ${REQUESTS_PER_ROUND} per side (after ${WARMUP_REQUESTS} warm-up); gateways and bare proxies on core ${PROXY_CORE}, services and client on core ${LOAD_CORE}; medians of the rounds. The first three rows: the service as \`timegate start\` runs it behind the gateway (it writes the gateway's root itself, from X-Forwarded-Host); the last two: a service that ignores X-Forwarded-Host, so the gateway rewrites every URI of the body.\n`);
      const rows: string[][] = [];
      for (const scenario of scenarios) {
        const { service, bare, gateway, before } = scenario.upstream;
        const sidePools = {
          direct: new Pool(service.origin, { connections: 1 }), bare: new Pool(bare.origin, { connections: 1 }), gateway: new Pool(gateway.origin, { connections: 1 }),
          ...(before === undefined ? {} : { before: new Pool(before.origin, { connections: 1 }) }),
        };
        pools.push(...Object.values(sidePools));
        const m = await measureLatency(sidePools, scenario.request);
        const added = (side: Side) => median(m.p50[side].map((p50, i) => p50 - (m.p50.direct[i] as number)));
        rows.push([
          scenario.name,
          median(m.p50.direct).toFixed(3),
          added('bare').toFixed(3),
          added('gateway').toFixed(3),
          ...(before === undefined ? [] : [added('before').toFixed(3), spread(m.p50.gateway.map((p50, i) => p50 - (m.p50.direct[i] as number))), spread(m.p50.before.map((p50, i) => p50 - (m.p50.direct[i] as number)))]),
          `${median(m.p99.direct).toFixed(2)} / ${median(m.p99.bare).toFixed(2)} / ${median(m.p99.gateway).toFixed(2)}`,
          `≤ ${TARGET_ADDED_P50_MS} ms: ${added('gateway') <= TARGET_ADDED_P50_MS ? 'met' : 'NOT met'}`,
        ]);
      }
      const beforeColumns = BASELINE_TREE === undefined ? [] : [`gateway of ${BASELINE_TREE}: added p50 ms`, 'gateway: added p50 of each round', 'baseline tree: added p50 of each round'];
      console.log(markdownTable(['scenario', 'direct p50 ms', 'bare proxy: added p50 ms', 'gateway: added p50 ms', ...beforeColumns, 'p99 ms direct / bare / gateway', 'target (gateway)'], rows));

      console.log(`\nthroughput at ${CONNECTIONS} connections, ${LOAD_SECONDS} s per side (after a 2 s warm-up each):\n`);
      const throughput: string[][] = [];
      for (const scenario of scenarios.slice(0, 2)) {
        const { service, gateway, before } = scenario.upstream;
        const options = (origin: string, serverPid?: number) => ({ origin, requests: [scenario.request], connections: CONNECTIONS, ...(serverPid === undefined ? {} : { serverPid }) });
        const proxies = before === undefined ? [gateway] : [gateway, before];
        await load({ ...options(service.origin), durationSeconds: 2 });
        for (const proxy of proxies) await load({ ...options(proxy.origin), durationSeconds: 2 });
        const d = await load({ ...options(service.origin), durationSeconds: LOAD_SECONDS });
        const measured: LoadResult[] = [];
        for (const proxy of proxies) measured.push(await load({ ...options(proxy.origin, proxy.pid), durationSeconds: LOAD_SECONDS }));
        const [g, b] = measured;
        if (g === undefined) fail('no gateway result');
        if (d.failures + g.failures + (b?.failures ?? 0) > 0) fail(`${scenario.name}: failed requests`);
        const cpu = (result: LoadResult) => `${((result.serverCpuMsPerRequest ?? NaN) * 1000).toFixed(0)}`;
        throughput.push([scenario.name, formatRate(d.requestsPerSecond), formatRate(g.requestsPerSecond), formatRatio(g.requestsPerSecond / d.requestsPerSecond), cpu(g),
          ...(b === undefined ? [] : [formatRate(b.requestsPerSecond), cpu(b)])]);
      }
      const beforeThroughput = BASELINE_TREE === undefined ? [] : ['baseline tree req/s', 'baseline tree CPU µs/response'];
      console.log(markdownTable(['scenario', 'direct req/s', 'gateway req/s', 'gateway / direct', 'gateway CPU µs/response', ...beforeThroughput], throughput));
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
      await Promise.all(upstreams.map(stopUpstream));
    }
  },
};
