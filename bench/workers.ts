// Every core (issue 30): `--workers auto` against one process, in the same run. The gateway's
// cache hit (one time entry as OData JSON, filled once) through one process with its in-memory
// cache, through one process on Redis, and through `--workers auto --redis`; the service's JSON
// page of 100 on SQLite (20,000 seeded entries) through one process and through `--workers auto`.
// Nothing is pinned: the workers need every core, and the load and Redis share them, as they
// would on a small machine. The load is Debian's wrk (bench/wrk-load.ts), a process of its own in
// C: autocannon in this process tops out below what two gateway workers answer. The gateway's hit
// is one entity, not a page: receiving an 80 kB page costs the load generator and the kernel about
// what the gateway spends sending it (two workers and wrk then share two cores, and the page ran
// at 0.96x one process in the run of 11-27 09:56), so only a small answer shows what the
// gateway's own work gains from a second core. Rounds alternate the runs; a ratio is the
// median of the per-round ratios. The load average before and after says how busy the machine
// was. A last run of the gateway on Redis, one process and the workers, says where the cores go
// (cpuShares): wrk and Redis share them with the workers, which bounds what a second worker can
// gain on a 2-core machine. TG_BENCH_ROUNDS and TG_BENCH_SECONDS shorten it.
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { testDatabases } from '../test/helpers/databases.js';
import { startTestService } from '../test/helpers/service.js';
import type { LoadRequest, LoadResult, RunningServer } from './http-load.js';
import { childrenOf, freePort, stopProcess, waitUntilUp } from './http-load.js';
import { alternatingLoadRounds, comparisonTable, roundsOf } from './load-rounds.js';
import type { LoadRun, ThroughputComparison } from './load-rounds.js';
import { formatRate, markdownTable, median } from './report.js';
import { seedAccount, sqlitePlace } from './service-fixture.js';
import { ensureWrk, wrkLoad } from './wrk-load.js';
import type { BenchSuite } from './suite.js';

const CONNECTIONS = 32;
// A hit on Redis waits for a PING on the instance's subscription (gateway/cache/local-copies.ts):
// at 32 connections its round trip, not the CPU, bounds the gateway's throughput (one process on
// Redis and two workers both at about 30,000 req/s, 11-27 10:04), so the gateway runs are loaded
// with enough connections to keep every worker's core busy.
const GATEWAY_CONNECTIONS = 128;
const ROUNDS = Number(process.env.TG_BENCH_ROUNDS ?? 3);
const ROUND_SECONDS = Number(process.env.TG_BENCH_SECONDS ?? 4);
const WARMUP_SECONDS = 2;
const ENTRIES = 20_000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TIMEGATE = fileURLToPath(new URL('../bin/timegate.js', import.meta.url));

const PLAN = { connections: CONNECTIONS, rounds: ROUNDS, roundSeconds: ROUND_SECONDS, warmupSeconds: WARMUP_SECONDS, serverCpu: false, loader: wrkLoad };

function fail(message: string): never {
  throw new Error(`workers bench: ${message}`);
}

/** `timegate <args> --port <free>`, unpinned, once `/healthz` answers (every worker, for --workers). */
async function startTimegate(args: readonly string[]): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [TIMEGATE, ...args, '--port', String(port), '--log-level', 'silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const origin = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_resolve, reject) => child.once('exit', (code) => reject(new Error(`timegate ${args.join(' ')} exited with ${code}`))));
  try {
    await Promise.race([waitUntilUp(`${origin}/healthz`), exited]);
    // With --workers, /healthz answers once the first worker listens, and the primary's line
    // saying all do is not logged at level silent: wait for every worker process, then a while.
    if (args.includes('--workers')) {
      while ((await childrenOf(child.pid as number)).length < availableParallelism()) await new Promise((resolve) => setTimeout(resolve, 200));
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  exited.catch(() => undefined);
  return { origin, pid: child.pid as number, stop: () => stopProcess(child) };
}

async function expectOk(run: LoadRun, header?: string): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const response = await fetch(run.server.origin + run.request.path, { headers: run.request.headers ?? {} });
    await response.arrayBuffer();
    if (response.status !== 200) fail(`${run.name}: ${response.status}`);
    if (i === 1 && header !== undefined && response.headers.get('x-cache') !== header) fail(`${run.name}: X-Cache ${response.headers.get('x-cache')}`);
  }
}

function report(runs: readonly LoadRun[], results: Map<string, LoadResult[]>, comparisons: readonly ThroughputComparison[]): void {
  console.log(markdownTable(['run', 'req/s', 'p50 ms', 'p99 ms', 'req/s per round'], runs.map((run) => {
    const rounds = roundsOf(results, run.name);
    return [run.name, formatRate(median(rounds.map((r) => r.requestsPerSecond))), median(rounds.map((r) => r.p50Ms)).toFixed(2),
      median(rounds.map((r) => r.p99Ms)).toFixed(2), rounds.map((r) => formatRate(r.requestsPerSecond)).join(' ')];
  })));
  console.log('');
  console.log(comparisonTable(results, comparisons));
}

const load1 = () => loadavg().map((value) => value.toFixed(1)).join(' ');

/** Redis's own CPU time so far (ms), from INFO (the server may be on another machine). */
async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1000;
}

/**
 * Who spends the cores while `run` is loaded: the gateway (every worker), wrk and Redis, per
 * request and in cores. On a machine whose cores the load shares, two workers reach at most
 * 2g / (g + w + r) times one process's throughput (g the gateway's CPU per hit, w and r wrk's
 * and Redis's per request), which the last column gives for one process's figures.
 */
async function cpuShares(runs: readonly LoadRun[], redis: Redis): Promise<string> {
  const rows: string[][] = [];
  for (const [i, run] of runs.entries()) {
    const redisBefore = await redisCpuMs(redis);
    const result = await wrkLoad({ origin: run.server.origin, requests: [run.request], connections: GATEWAY_CONNECTIONS, durationSeconds: ROUND_SECONDS, serverPid: run.server.pid });
    const requests = result.requestsPerSecond * ROUND_SECONDS;
    const g = (result.serverCpuMsPerRequest ?? Number.NaN) * 1000;
    const w = (result.loadCpuMsPerRequest ?? Number.NaN) * 1000;
    const r = (((await redisCpuMs(redis)) - redisBefore) / requests) * 1000;
    const cores = (microseconds: number) => ((microseconds * result.requestsPerSecond) / 1e6).toFixed(2);
    rows.push([run.name, formatRate(result.requestsPerSecond), `${g.toFixed(1)} (${cores(g)})`, `${w.toFixed(1)} (${cores(w)})`, `${r.toFixed(1)} (${cores(r)})`,
      i === 0 ? `${((availableParallelism() * g) / (g + w + r)).toFixed(2)}×` : '—']);
  }
  return markdownTable(['run', 'req/s', 'gateway µs / request (cores)', 'wrk µs / request (cores)', 'Redis µs / request (cores)', 'ceiling of the workers on these cores'], rows);
}

export const workersBench: BenchSuite = {
  name: 'workers',
  description: '--workers auto vs one process: gateway cache hits of an entity (Redis) and the service JSON page (SQLite)',
  async run() {
    ensureWrk();
    console.log(`load average before: ${load1()}; wrk (one thread), ${CONNECTIONS} connections, ${ROUNDS} rounds of ${ROUND_SECONDS} s per run (after ${WARMUP_SECONDS} s warm-up), alternating; nothing pinned; medians of the rounds.\n`);
    const sqlite = testDatabases.find((kind) => kind.name === 'sqlite') ?? fail('no SQLite test database');
    const servers: RunningServer[] = [];
    const service = await startTestService(sqlite, { trustProxy: true });
    const place = await sqlitePlace();
    try {
      // The gateway: a cache hit answers from memory (one process) or from Redis.
      const upstream = ['gateway', '--upstream', service.root, '--cache-ttl', '1h'];
      const redis = ['--redis', REDIS_URL, '--redis-prefix', `tg-bench-${process.pid}-${Date.now()}:`];
      const memoryOne = await startTimegate(upstream);
      servers.push(memoryOne);
      const redisOne = await startTimegate([...upstream, ...redis]);
      servers.push(redisOne);
      const redisAuto = await startTimegate([...upstream, ...redis, '--workers', 'auto']);
      servers.push(redisAuto);
      const admin = { 'x-serviceapikey': service.admin.apiKey };
      const first = (await (await fetch(`${service.root}/TimeEntries?$top=1&$format=json`, { headers: admin })).json()) as { d: { results: Array<{ ID: number }> } };
      const id = first.d.results[0]?.ID ?? fail('no time entry');
      const entity: LoadRequest = { path: `/V1/Api.svc/TimeEntries(${id})?$format=json`, headers: admin };
      const gatewayRuns: LoadRun[] = [
        { name: 'gateway cache hit, one process, memory', server: memoryOne, request: entity },
        { name: 'gateway cache hit, one process, Redis', server: redisOne, request: entity },
        { name: 'gateway cache hit, --workers auto, Redis', server: redisAuto, request: entity },
      ];
      for (const run of gatewayRuns) await expectOk(run, 'HIT');

      // The service on a seeded SQLite file.
      const seeded = await seedAccount(place.url, { entries: ENTRIES, keyedUsers: 1, sampleIds: 1, deepPage: 2, pageSize: 100 });
      const serviceOne = await startTimegate(['service', '--db', place.url]);
      servers.push(serviceOne);
      const serviceAuto = await startTimegate(['service', '--db', place.url, '--workers', 'auto']);
      servers.push(serviceAuto);
      const servicePage: LoadRequest = { path: '/V1/Api.svc/TimeEntries?$top=100&$format=json', headers: { 'x-serviceapikey': seeded.adminKey } };
      const serviceRuns: LoadRun[] = [
        { name: 'service JSON page of 100, one process', server: serviceOne, request: servicePage },
        { name: 'service JSON page of 100, --workers auto', server: serviceAuto, request: servicePage },
      ];
      for (const run of serviceRuns) await expectOk(run);

      console.log(`### gateway: cache hit, one time entry, OData JSON (${GATEWAY_CONNECTIONS} connections)\n`);
      report(gatewayRuns, await alternatingLoadRounds(gatewayRuns, { ...PLAN, connections: GATEWAY_CONNECTIONS }), [
        { name: '--workers auto (Redis) / one process (memory)', ours: gatewayRuns[2]!.name, baseline: gatewayRuns[0]!.name, target: 1.6 },
        { name: '--workers auto (Redis) / one process (Redis)', ours: gatewayRuns[2]!.name, baseline: gatewayRuns[1]!.name },
      ]);
      console.log(`\nWhere the cores go (one more ${ROUND_SECONDS} s run each; the ceiling is the most two workers can gain while the load and Redis share their cores):\n`);
      const info = new Redis(REDIS_URL);
      try {
        console.log(await cpuShares([gatewayRuns[1]!, gatewayRuns[2]!], info));
      } finally {
        info.disconnect();
      }
      console.log(`\n### service: JSON page of 100 on SQLite (${ENTRIES} entries)\n`);
      report(serviceRuns, await alternatingLoadRounds(serviceRuns, PLAN), [
        { name: '--workers auto / one process', ours: serviceRuns[1]!.name, baseline: serviceRuns[0]!.name, target: 1.5 },
      ]);
      console.log(`\nload average after: ${load1()}`);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      await service.close();
      await place.dispose();
    }
  },
};
