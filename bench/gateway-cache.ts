// Load benchmark of the gateway's read cache and rate limiter (issue 6): cache hits on the REST
// face and on the OData face, each beside a bare Fastify route sending the same bytes (the most
// any Node server can do with them here), and a rate-limited route beside the same route
// without limits. The gateways are `timegate gateway` with every edge feature (metrics, auth,
// resilience, passthrough). Each server under test runs as its own process pinned to core 0, autocannon
// loads from this process on core 1; the upstream (the real service on SQLite, in this process)
// is only asked once per cached URL. Rounds alternate the runs; a ratio is the median of the
// per-round ratios, so a burst of noise on the shared machine spoils one round, not the result.
// With TG_BENCH_BASELINE_TREE (baseline-tree.ts) the other checkout's gateway serves the same
// hits in the same rounds, compared by req/s and by the gateway's CPU per response.
import { fileURLToPath } from 'node:url';
import { testDatabases } from '../test/helpers/databases.js';
import { startTestService } from '../test/helpers/service.js';
import type { LoadRequest, LoadResult, RunningServer } from './http-load.js';
import { pinThisProcess, startBaselineServer, startPinnedServer } from './http-load.js';
import { alternatingLoadRounds, comparisonTable, roundsOf } from './load-rounds.js';
import type { LoadRun, ThroughputComparison } from './load-rounds.js';
import { formatRate, markdownTable, median } from './report.js';
import type { BenchSuite } from './suite.js';
import { BASELINE_TREE, baselineFile } from './baseline-tree.js';

const CONNECTIONS = 10;
const ROUNDS = 5;
const ROUND_SECONDS = 3;
const WARMUP_SECONDS = 2;
const SERVER_CORE = 0;
const LOAD_CORE = 1;
/** High enough that no request of the run is refused: what is measured is the counting. */
const UNREACHED_LIMIT = '1000000000/1m';
const TIMEGATE = fileURLToPath(new URL('../bin/timegate.js', import.meta.url));

const PLAN = { connections: CONNECTIONS, rounds: ROUNDS, roundSeconds: ROUND_SECONDS, warmupSeconds: WARMUP_SECONDS, serverCpu: true };

function fail(message: string): never {
  throw new Error(`gateway-cache bench: ${message}`);
}

/** Fills the gateway's entry for `request` and returns the bytes a hit sends. */
async function cachedBytes(origin: string, request: LoadRequest): Promise<{ body: string; contentType: string }> {
  const init = { headers: request.headers ?? {} };
  const first = await fetch(origin + request.path, init);
  await first.text();
  const hit = await fetch(origin + request.path, init);
  const body = await hit.text();
  if (hit.status !== 200 || hit.headers.get('x-cache') !== 'HIT') fail(`${request.path}: ${hit.status}, X-Cache ${hit.headers.get('x-cache')}`);
  return { body, contentType: hit.headers.get('content-type') ?? fail('no content type') };
}

function startGatewayServer(upstreamRoot: string, limit: string | undefined, timegate = TIMEGATE): Promise<RunningServer> {
  return startPinnedServer(SERVER_CORE, (port) => [
    timegate, 'gateway', '--upstream', upstreamRoot, '--port', String(port), '--log-level', 'silent', '--cache-ttl', '1h',
    ...(limit === undefined ? [] : ['--rate-limit', limit]),
  ]);
}

function report(runs: readonly LoadRun[], results: Map<string, LoadResult[]>, comparisons: readonly ThroughputComparison[]): void {
  console.log(
    `${CONNECTIONS} connections, ${ROUNDS} rounds of ${ROUND_SECONDS} s per run (after ${WARMUP_SECONDS} s warm-up), ` +
      `servers on core ${SERVER_CORE}, load on core ${LOAD_CORE}; medians of the rounds.\n`,
  );
  console.log(
    markdownTable(
      ['run', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/response (rounds)'],
      runs.map((run) => {
        const rounds = roundsOf(results, run.name);
        const cpu = rounds.map((r) => (r.serverCpuMsPerRequest ?? NaN) * 1000);
        return [run.name, formatRate(median(rounds.map((r) => r.requestsPerSecond))), median(rounds.map((r) => r.p50Ms)).toFixed(2), median(rounds.map((r) => r.p99Ms)).toFixed(2),
          `${median(cpu).toFixed(0)} (${cpu.map((c) => c.toFixed(0)).join(' ')})`];
      }),
    ),
  );
  console.log('');
  console.log(comparisonTable(results, comparisons));
}

export const gatewayCache: BenchSuite = {
  name: 'gateway-cache',
  description: 'gateway cache hits (REST, OData) vs bare Fastify with the same bytes; rate-limited vs unlimited route',
  async run() {
    pinThisProcess(LOAD_CORE);
    const sqlite = testDatabases.find((kind) => kind.name === 'sqlite') ?? fail('no SQLite test database');
    const service = await startTestService(sqlite);
    const servers: RunningServer[] = [];
    try {
      const plain = await startGatewayServer(service.root, undefined);
      servers.push(plain);
      const limited = await startGatewayServer(service.root, UNREACHED_LIMIT);
      servers.push(limited);
      const headers = { 'x-serviceapikey': service.admin.apiKey };
      const rest: LoadRequest = { path: '/api/v1/time-entries?limit=100', headers };
      const odata: LoadRequest = { path: '/V1/Api.svc/TimeEntries?$top=100&$format=json', headers };
      const restBytes = await cachedBytes(plain.origin, rest);
      const odataBytes = await cachedBytes(plain.origin, odata);
      await cachedBytes(limited.origin, rest);
      const limitedCheck = await fetch(limited.origin + rest.path, { headers });
      if (!limitedCheck.headers.get('ratelimit-policy')) fail('the limited gateway sends no RateLimit-Policy');
      await limitedCheck.text();
      const restBaseline = await startBaselineServer(SERVER_CORE, restBytes.body, restBytes.contentType);
      servers.push(restBaseline);
      const odataBaseline = await startBaselineServer(SERVER_CORE, odataBytes.body, odataBytes.contentType);
      servers.push(odataBaseline);

      const before = BASELINE_TREE === undefined ? undefined : await startGatewayServer(service.root, undefined, baselineFile(BASELINE_TREE, 'bin/timegate.js'));
      if (before !== undefined) {
        servers.push(before);
        await cachedBytes(before.origin, rest);
        await cachedBytes(before.origin, odata);
      }

      const runs: LoadRun[] = [
        { name: 'REST cache hit (time entries, list)', server: plain, request: rest },
        { name: 'baseline: bare Fastify, REST bytes', server: restBaseline, request: rest },
        { name: 'OData cache hit (TimeEntries, JSON page)', server: plain, request: odata },
        { name: 'baseline: bare Fastify, OData bytes', server: odataBaseline, request: odata },
        { name: 'REST cache hit, rate-limited', server: limited, request: rest },
        ...(before === undefined ? [] : [
          { name: `REST cache hit, gateway of ${BASELINE_TREE}`, server: before, request: rest },
          { name: `OData cache hit, gateway of ${BASELINE_TREE}`, server: before, request: odata },
        ]),
      ];
      console.log(`REST body ${restBytes.body.length} bytes, OData body ${odataBytes.body.length} bytes; upstream: timegate service on SQLite (demo account)`);
      const results = await alternatingLoadRounds(runs, PLAN);
      report(runs, results, [
        { name: 'REST cache hit / bare Fastify', ours: runs[0]!.name, baseline: runs[1]!.name, target: 0.5 },
        { name: 'OData cache hit / bare Fastify', ours: runs[2]!.name, baseline: runs[3]!.name, target: 0.5 },
        { name: 'rate-limited / unlimited (same route)', ours: runs[4]!.name, baseline: runs[0]!.name, target: 0.8 },
        ...(before === undefined ? [] : [
          { name: 'REST cache hit: this tree / baseline tree', ours: runs[0]!.name, baseline: runs[5]!.name, target: 0.9 },
          { name: 'OData cache hit: this tree / baseline tree', ours: runs[2]!.name, baseline: runs[6]!.name, target: 0.9 },
        ]),
      ]);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      await service.close();
    }
  },
};
