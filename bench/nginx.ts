// The gateway beside nginx (issue 30), the proxy an operator would pick instead: CPU per response
// of one gateway process against one nginx worker (bench/nginx-server.ts), same service behind
// both, for cache hits (one time entry and a page of 100 on the OData face; one time entry on the
// REST face, against nginx's hit on the same entity) and without a cache (what the proxy adds per
// entity and per page: only the proxy process is measured, so the service's own work is not in
// it). CPU time comes from /proc/<pid>/stat of the proxy process, which barely moves when other
// work shares the machine, unlike req/s. Proxies on core 0, the service and the load on core 1;
// logging off on both; the service believes X-Forwarded-Host (as `timegate start` runs it), so the
// gateway has nothing to rewrite, as nginx rewrites nothing. Without a cache, the least a Node
// proxy does (bench/bare-proxy-server.ts: node:http and an undici pool, no routing, no policy)
// is measured alongside, as the floor of what any proxy in Node can reach. Rounds alternate;
// a ratio is the median of the per-round ratios. TG_BENCH_ROUNDS and TG_BENCH_SECONDS shorten it.
import { fileURLToPath } from 'node:url';
import { testDatabases } from '../test/helpers/databases.js';
import { startTestService } from '../test/helpers/service.js';
import type { LoadRequest, LoadResult, RunningServer } from './http-load.js';
import { load, pinThisProcess, startPinnedServer } from './http-load.js';
import type { RunningNginx } from './nginx-server.js';
import { startNginx } from './nginx-server.js';
import { formatRate, formatRatio, markdownTable, median } from './report.js';
import type { BenchSuite } from './suite.js';

const CONNECTIONS = 32;
const ROUNDS = Number(process.env.TG_BENCH_ROUNDS ?? 3);
const ROUND_SECONDS = Number(process.env.TG_BENCH_SECONDS ?? 3);
const WARMUP_SECONDS = 2;
const PROXY_CORE = 0;
const LOAD_CORE = 1;
const TIMEGATE = fileURLToPath(new URL('../bin/timegate.js', import.meta.url));
const BARE_PROXY_SCRIPT = fileURLToPath(new URL('./bare-proxy-server.ts', import.meta.url));

interface Side {
  readonly origin: string;
  readonly pid: number;
  readonly request: LoadRequest;
}

interface Scenario {
  readonly name: string;
  readonly gateway: Side;
  readonly nginx: Side;
  /** Issue 30's bound on gateway / nginx CPU per response. */
  readonly target: number;
  /** Both sides must answer from their cache (X-Cache: HIT) before measuring. */
  readonly cached: boolean;
  /** Without a cache: the least a Node proxy does (bench/bare-proxy-server.ts), measured alongside. */
  readonly floor?: Side;
}

function fail(message: string): never {
  throw new Error(`nginx bench: ${message}`);
}

function startGateway(upstreamRoot: string, cache: boolean): Promise<RunningServer> {
  return startPinnedServer(PROXY_CORE, (port) => [
    TIMEGATE, 'gateway', '--upstream', upstreamRoot, '--port', String(port), '--log-level', 'silent',
    ...(cache ? ['--cache-ttl', '1h'] : ['--no-cache']),
  ]);
}

/** Asks twice; with a cache, the second answer must be a hit. Returns the body's size. */
async function check(side: Side, cached: boolean): Promise<number> {
  const url = side.origin + side.request.path;
  const init = { headers: side.request.headers ?? {} };
  await (await fetch(url, init)).arrayBuffer();
  const second = await fetch(url, init);
  const size = (await second.arrayBuffer()).byteLength;
  if (second.status !== 200) fail(`${url}: ${second.status}`);
  if (cached && second.headers.get('x-cache') !== 'HIT') fail(`${url}: X-Cache ${second.headers.get('x-cache')}, not HIT`);
  return size;
}

async function measure(side: Side, seconds: number): Promise<LoadResult> {
  const result = await load({ origin: side.origin, requests: [side.request], connections: CONNECTIONS, durationSeconds: seconds, serverPid: side.pid });
  if (result.failures > 0) fail(`${side.origin}${side.request.path}: ${result.failures} failed requests`);
  return result;
}

const micros = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;

export const nginxBaseline: BenchSuite = {
  name: 'nginx',
  description: 'CPU per response: one gateway process vs one nginx worker (proxy_cache and plain), cache hits and relays',
  async run() {
    pinThisProcess(LOAD_CORE);
    const sqlite = testDatabases.find((kind) => kind.name === 'sqlite') ?? fail('no SQLite test database');
    const service = await startTestService(sqlite, { trustProxy: true });
    const started: Array<RunningServer | RunningNginx> = [];
    try {
      const nginx = await startNginx(PROXY_CORE, new URL(service.origin).host);
      started.push(nginx);
      const caching = await startGateway(service.root, true);
      started.push(caching);
      const plain = await startGateway(service.root, false);
      started.push(plain);
      const bare = await startPinnedServer(PROXY_CORE, (port) => ['--import', 'tsx', BARE_PROXY_SCRIPT, service.origin, String(port)]);
      started.push(bare);

      const headers = { 'x-serviceapikey': service.admin.apiKey };
      const first = (await (await fetch(`${service.root}/TimeEntries?$top=1&$format=json`, { headers })).json()) as { d: { results: Array<{ ID: number }> } };
      const id = first.d.results[0]?.ID ?? fail('no time entry');
      const entity: LoadRequest = { path: `/V1/Api.svc/TimeEntries(${id})?$format=json`, headers };
      const page: LoadRequest = { path: '/V1/Api.svc/TimeEntries?$top=100&$format=json', headers };
      const rest: LoadRequest = { path: `/api/v1/time-entries/${id}`, headers };
      const side = (origin: string, pid: number, request: LoadRequest): Side => ({ origin, pid, request });
      const scenarios: Scenario[] = [
        { name: 'cache hit, one time entry, OData face', gateway: side(caching.origin, caching.pid, entity), nginx: side(nginx.cachingOrigin, nginx.workerPid, entity), target: 2, cached: true },
        { name: 'cache hit, page of 100, OData face', gateway: side(caching.origin, caching.pid, page), nginx: side(nginx.cachingOrigin, nginx.workerPid, page), target: 2, cached: true },
        { name: 'cache hit, one time entry, REST face (nginx: the OData entity)', gateway: side(caching.origin, caching.pid, rest), nginx: side(nginx.cachingOrigin, nginx.workerPid, entity), target: 2, cached: true },
        { name: 'no cache, added per entity', gateway: side(plain.origin, plain.pid, entity), nginx: side(nginx.plainOrigin, nginx.workerPid, entity), target: 2, cached: false, floor: side(bare.origin, bare.pid, entity) },
        { name: 'no cache, added per page of 100', gateway: side(plain.origin, plain.pid, page), nginx: side(nginx.plainOrigin, nginx.workerPid, page), target: 3, cached: false, floor: side(bare.origin, bare.pid, page) },
      ];
      const sizes: string[] = [];
      for (const scenario of scenarios) {
        const gatewaySize = await check(scenario.gateway, scenario.cached);
        const nginxSize = await check(scenario.nginx, scenario.cached);
        sizes.push(`${scenario.name}: ${gatewaySize} / ${nginxSize} B`);
      }
      console.log(`one gateway process and one nginx worker (nginx-light, proxy_cache or plain) on core ${PROXY_CORE}, the service (SQLite, demo account) and autocannon on core ${LOAD_CORE}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${ROUND_SECONDS} s per side (after ${WARMUP_SECONDS} s warm-up), gateway and nginx alternating; CPU per response of the proxy process (/proc utime + stime); medians of the rounds. Body sizes gateway / nginx: ${sizes.join('; ')}.\n`);

      const rows: string[][] = [];
      for (const scenario of scenarios) {
        await measure(scenario.gateway, WARMUP_SECONDS);
        await measure(scenario.nginx, WARMUP_SECONDS);
        if (scenario.floor !== undefined) await measure(scenario.floor, WARMUP_SECONDS);
        const results = { gateway: [] as LoadResult[], nginx: [] as LoadResult[], floor: [] as LoadResult[] };
        for (let round = 0; round < ROUNDS; round++) {
          const order = round % 2 === 0 ? (['gateway', 'nginx', 'floor'] as const) : (['floor', 'nginx', 'gateway'] as const);
          for (const which of order) {
            const target = scenario[which];
            if (target !== undefined) results[which].push(await measure(target, ROUND_SECONDS));
          }
        }
        const cpu = (list: LoadResult[]) => list.map((r) => r.serverCpuMsPerRequest ?? fail('no CPU time measured'));
        const ratios = cpu(results.gateway).map((g, i) => g / (cpu(results.nginx)[i] as number));
        const ratio = median(ratios);
        const floorRatios = cpu(results.floor).map((f, i) => f / (cpu(results.nginx)[i] as number));
        rows.push([
          scenario.name,
          micros(median(cpu(results.nginx))),
          micros(median(cpu(results.gateway))),
          formatRatio(ratio),
          ratios.map(formatRatio).join(' '),
          `${formatRate(median(results.nginx.map((r) => r.requestsPerSecond)))} / ${formatRate(median(results.gateway.map((r) => r.requestsPerSecond)))}`,
          `≤ ${scenario.target}×: ${ratio <= scenario.target ? 'met' : 'NOT met'}`,
          floorRatios.length === 0 ? '—' : `${micros(median(cpu(results.floor)))}, ${formatRatio(median(floorRatios))} (${floorRatios.map(formatRatio).join(' ')})`,
        ]);
      }
      console.log(markdownTable(['path', 'nginx CPU / response', 'gateway CPU / response', 'gateway / nginx', 'rounds', 'req/s nginx / gateway', 'target', 'bare Node proxy: CPU / response, / nginx (rounds)'], rows));
    } finally {
      await Promise.all(started.map((server) => server.stop()));
      await service.close();
    }
  },
};
