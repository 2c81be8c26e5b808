// Load benchmark of the time-tracking service (issue 4) on 200k seeded time entries, first on
// SQLite, then on PostgreSQL: the service runs as `timegate service` in a child process pinned
// to core 0, autocannon loads it from this process pinned to core 1. Beside it, in the same
// rounds, a bare Fastify route sending the bytes of the JSON page of 100 (the baseline), so the
// numbers are also ratios to what this machine can serve at all.
//
// TIMEGATE_BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each service child into <dir>.
import { fileURLToPath } from 'node:url';
import type { LoadRequest, LoadResult, RunningServer } from './http-load.js';
import { load, pinThisProcess, startBaselineServer, startPinnedServer } from './http-load.js';
import { formatRate, formatRatio, markdownTable, median } from './report.js';
import type { BenchPlace, SeededAccount } from './service-fixture.js';
import { postgresPlace, seedAccount, sqlitePlace } from './service-fixture.js';
import type { BenchSuite } from './suite.js';

const ENTRIES = 200_000;
const PAGE_SIZE = 100;
const DEEP_PAGE = 500;
const CONNECTIONS = 10;
const ROUNDS = 3;
const ROUND_SECONDS = 4;
const WARMUP_SECONDS = 2;
const SERVER_CORE = 0;
const LOAD_CORE = 1;
const ROOT = '/V1/Api.svc';
const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** One load scenario: what each connection sends in a loop, and a check that it is answered right. */
interface Scenario {
  readonly name: string;
  readonly requests: readonly LoadRequest[];
  readonly connectionHeaders?: readonly Record<string, string>[];
  /** The requests are independent: each connection may start anywhere in the list. */
  readonly spread?: boolean;
  /** Sends the scenario's requests once and throws unless the answers are what a client wants. */
  readonly check: (origin: string) => Promise<void>;
  /** SAP CAP with its OData V2 adapter on this machine (issue 4), req/s. */
  readonly cap?: number;
}

type Results = ReadonlyMap<string, readonly LoadResult[]>;

/** What issue 4 asks of a scenario, judged on the results of every scenario. */
interface Target {
  readonly text: string;
  readonly value: (results: Results) => string;
  readonly met: (results: Results) => boolean;
}

const BASELINE = 'baseline: bare Fastify, same bytes as the JSON page';

function fail(message: string): never {
  throw new Error(`service bench: ${message}`);
}

function odataDate(ms: number): string {
  return `\\/Date(${ms})\\/`;
}

async function expectOk(origin: string, request: LoadRequest, status = 200): Promise<string> {
  const response = await fetch(origin + request.path, {
    method: request.method ?? 'GET',
    ...(request.headers === undefined ? {} : { headers: request.headers }),
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const text = await response.text();
  if (response.status !== status) fail(`${request.method ?? 'GET'} ${request.path}: ${response.status} ${text.slice(0, 300)}`);
  return text;
}

async function expectEntries(origin: string, request: LoadRequest, count: number, first?: number): Promise<void> {
  const body = JSON.parse(await expectOk(origin, request)) as { d: { results: Array<{ ID: number }> } };
  if (body.d.results.length !== count) fail(`${request.path}: ${body.d.results.length} entries, not ${count}`);
  if (first !== undefined && body.d.results[0]?.ID !== first) fail(`${request.path}: starts at ${body.d.results[0]?.ID}, not ${first}`);
}

function scenarios(account: SeededAccount): Scenario[] {
  const admin = { 'x-serviceapikey': account.adminKey };
  const json = { ...admin, accept: 'application/json' };
  const page: LoadRequest = { path: `${ROOT}/TimeEntries?$format=json`, headers: admin };
  const from = account.middleStartTime.toISOString().slice(0, 19);
  const filtered: LoadRequest = {
    path: `${ROOT}/TimeEntries?$filter=${encodeURIComponent(`ProjectID eq ${account.projectId} and StartTime gt datetime'${from}'`)}&$orderby=StartTime&$format=json`,
    headers: admin,
  };
  const deep: LoadRequest = { path: `${ROOT}/TimeEntries?$format=json&$skiptoken='${account.deepPageFirstId}'`, headers: admin };
  const start = Date.UTC(2026, 0, 5, 8);
  const post: LoadRequest = {
    method: 'POST',
    path: `${ROOT}/TimeEntries`,
    headers: { ...json, 'content-type': 'application/json' },
    body: `{"ProjectID":${account.projectId},"StartTime":"${odataDate(start)}","EndTime":"${odataDate(start + 3_600_000)}","Comment":"Lasttest"}`,
  };
  // Tunnelled through POST, as SAP UI5 and the Cloud SDK send it (autocannon knows no MERGE verb).
  const merge = (id: number): LoadRequest => ({
    method: 'POST',
    path: `${ROOT}/TimeEntries(${id})`,
    headers: { ...json, 'content-type': 'application/json', 'x-http-method': 'MERGE' },
    body: '{"Comment":"Lasttest geaendert","Billable":true}',
  });
  const stopwatch: LoadRequest[] = [
    { path: `${ROOT}/StartStopWatch?ProjectID=${account.projectId}&Comment='Lasttest'&$format=json` },
    { path: `${ROOT}/HaltStopWatch?$format=json` },
  ];
  const userHeaders = account.userKeys.map((key) => ({ 'x-serviceapikey': key }));
  return [
    {
      name: `single entity JSON (${account.entryIds.length} ids rotated)`,
      requests: account.entryIds.map((id) => ({ path: `${ROOT}/TimeEntries(${id})?$format=json`, headers: admin })),
      spread: true,
      check: async (origin) => {
        const id = account.entryIds[0];
        const body = JSON.parse(await expectOk(origin, { path: `${ROOT}/TimeEntries(${id})?$format=json`, headers: admin })) as { d: { ID: number } };
        if (body.d.ID !== id) fail(`TimeEntries(${id}) answered ID ${body.d.ID}`);
      },
      cap: 500,
    },
    {
      name: 'page of 100, JSON',
      requests: [page],
      check: async (origin) => {
        const body = JSON.parse(await expectOk(origin, page)) as { d: { results: unknown[]; __next?: string } };
        if (body.d.results.length !== PAGE_SIZE) fail(`page of ${body.d.results.length}`);
        // Page 500's token below is computed, not followed: it must be what the next link says.
        if (!body.d.__next?.endsWith(`$skiptoken='${account.secondPageFirstId}'`)) fail(`next link ${body.d.__next} is not the computed token's form`);
      },
      cap: 220,
    },
    {
      name: 'page of 100, Atom',
      requests: [{ path: `${ROOT}/TimeEntries`, headers: admin }],
      check: async (origin) => {
        const text = await expectOk(origin, { path: `${ROOT}/TimeEntries`, headers: admin });
        if (text.split('<entry>').length - 1 !== PAGE_SIZE && text.split('<entry ').length - 1 !== PAGE_SIZE) fail('Atom page has not 100 entries');
      },
      cap: 200,
    },
    {
      name: 'filtered page (ProjectID, StartTime gt, $orderby=StartTime), JSON',
      requests: [filtered],
      check: (origin) => expectEntries(origin, filtered, PAGE_SIZE),
      cap: 190,
    },
    {
      name: `page ${DEEP_PAGE} by $skiptoken, JSON`,
      requests: [deep],
      check: (origin) => expectEntries(origin, deep, PAGE_SIZE, account.deepPageFirstId),
    },
    {
      name: 'POST a time entry, JSON',
      requests: [post],
      check: async (origin) => void await expectOk(origin, post, 201),
      cap: 400,
    },
    {
      // An edit of a booked entry as a client makes it: a few fields, no If-Match, over many entries.
      name: `MERGE a time entry (${account.entryIds.length} ids rotated), JSON`,
      requests: account.entryIds.map((id) => merge(id)),
      spread: true,
      check: async (origin) => {
        const id = account.entryIds[0] as number;
        await expectOk(origin, merge(id), 204);
        const body = JSON.parse(await expectOk(origin, { path: `${ROOT}/TimeEntries(${id})?$format=json`, headers: admin })) as { d: { Comment: string } };
        if (body.d.Comment !== 'Lasttest geaendert') fail(`MERGE of TimeEntries(${id}) did not change Comment: ${body.d.Comment}`);
      },
    },
    {
      name: `StartStopWatch + HaltStopWatch (${userHeaders.length} users, one per connection)`,
      requests: stopwatch,
      connectionHeaders: userHeaders,
      check: async (origin) => {
        for (const request of stopwatch) await expectOk(origin, { ...request, headers: userHeaders[0] as Record<string, string> });
      },
    },
  ];
}

function rates(results: Results, name: string): number[] {
  return (results.get(name) ?? []).map((r) => r.requestsPerSecond);
}

/** Median of the per-round ratios of two scenarios' req/s. */
function ratio(results: Results, ours: string, baseline: string): number {
  const base = rates(results, baseline);
  return median(rates(results, ours).map((rate, i) => rate / (base[i] as number)));
}

function targets(list: readonly Scenario[]): Map<string, Target> {
  const [single, jsonPage, atomPage, filtered, deep] = list.map((s) => s.name) as [string, string, string, string, string];
  const atLeast = (name: string, rate: number): Target => ({
    text: `≥ ${formatRate(rate)} req/s`,
    value: (r) => formatRate(median(rates(r, name))),
    met: (r) => median(rates(r, name)) >= rate,
  });
  const relative = (name: string, of: string, wanted: number, label: string): Target => ({
    text: `≥ ${formatRatio(wanted)} ${label}`,
    value: (r) => formatRatio(ratio(r, name, of)),
    met: (r) => ratio(r, name, of) >= wanted,
  });
  const p99 = (r: Results) => median((r.get(filtered) ?? []).map((x) => x.p99Ms));
  return new Map([
    [single, atLeast(single, 8000)],
    [jsonPage, atLeast(jsonPage, 2500)],
    [atomPage, relative(atomPage, jsonPage, 0.66, 'JSON page')],
    [filtered, { text: 'p99 ≤ 10 ms', value: (r) => `${p99(r)} ms`, met: (r) => p99(r) <= 10 }],
    [deep, relative(deep, jsonPage, 0.9, 'first page')],
  ]);
}

async function measureAll(service: RunningServer, baseline: RunningServer, list: readonly Scenario[]): Promise<Results> {
  const runs = [
    { name: BASELINE, origin: baseline.origin, serverPid: baseline.pid, requests: [{ path: `${ROOT}/TimeEntries?$format=json` }] as LoadRequest[] },
    ...list.map((s) => ({
      name: s.name, origin: service.origin, serverPid: service.pid, requests: s.requests, connectionHeaders: s.connectionHeaders, spread: s.spread,
    })),
  ];
  const results = new Map(runs.map((run) => [run.name, [] as LoadResult[]]));
  for (const run of runs) await load({ ...run, connections: CONNECTIONS, durationSeconds: WARMUP_SECONDS });
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order, so no scenario always runs in the wake of another (e.g. the writes).
    const order = round % 2 === 0 ? runs : [...runs].reverse();
    for (const run of order) {
      results.get(run.name)?.push(await load({ ...run, connections: CONNECTIONS, durationSeconds: ROUND_SECONDS }));
    }
  }
  return results;
}

function cpuPerRequest(runs: readonly LoadResult[]): string {
  const values = runs.flatMap((r) => (r.serverCpuMsPerRequest === undefined ? [] : [r.serverCpuMsPerRequest]));
  return values.length === 0 ? '—' : median(values).toFixed(3);
}

function report(place: BenchPlace, account: SeededAccount, list: readonly Scenario[], results: Results): void {
  const goals = targets(list);
  const rows = [BASELINE, ...list.map((s) => s.name)].map((name) => {
    const runs = results.get(name) ?? [];
    const failures = runs.reduce((sum, r) => sum + r.failures, 0);
    const goal = goals.get(name);
    const cap = list.find((s) => s.name === name)?.cap;
    return [
      name,
      formatRate(median(rates(results, name))) + (failures > 0 ? ` (INVALID: ${failures} failed responses)` : ''),
      `${median(runs.map((r) => r.p50Ms))}`,
      `${median(runs.map((r) => r.p99Ms))}`,
      cpuPerRequest(runs),
      name === BASELINE ? '1.00×' : formatRatio(ratio(results, name, BASELINE)),
      goal === undefined ? '—' : `${goal.text}: ${goal.value(results)} ${goal.met(results) ? 'met' : 'NOT met'}`,
      cap === undefined ? '—' : formatRate(cap),
    ];
  });
  const base = rates(results, BASELINE);
  const spread = (Math.max(...base) - Math.min(...base)) / median(base);
  console.log(`### ${place.name}\n`);
  console.log(`${account.entries.toLocaleString('en')} time entries seeded in ${account.seconds.toFixed(1)} s. ` +
    `${CONNECTIONS} connections, ${ROUNDS} rounds of ${ROUND_SECONDS} s per scenario (after ${WARMUP_SECONDS} s warm-up), ` +
    'order alternating; req/s, p50 and p99 (ms) are medians over the rounds, × baseline the median of per-round ratios. ' +
    'Server CPU is the CPU time of the server process per response (all its threads; not the database server\'s on PostgreSQL): ' +
    'it moves much less than req/s when other work shares the cores.\n');
  console.log(markdownTable(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'server CPU ms/req', '× baseline', 'target (issue 4)', 'SAP CAP req/s'], rows));
  console.log(`\nNoise: baseline rounds ${base.map(formatRate).join(', ')} req/s, spread ${(spread * 100).toFixed(1)}% of the median.\n`);
}

async function benchOn(place: BenchPlace, profileDir: string | undefined): Promise<void> {
  const account = await seedAccount(place.url, {
    entries: ENTRIES, keyedUsers: CONNECTIONS, sampleIds: 256, deepPage: DEEP_PAGE, pageSize: PAGE_SIZE,
  });
  const bin = fileURLToPath(new URL('../bin/timegate.js', import.meta.url));
  const profile = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir];
  const service = await startPinnedServer(SERVER_CORE, (port) =>
    [...profile, bin, 'service', '--port', String(port), '--log-level', 'warn', '--db', place.url, '--page-size', String(PAGE_SIZE)]);
  try {
    const list = scenarios(account);
    for (const scenario of list) await scenario.check(service.origin);
    const pageResponse = await fetch(`${service.origin}${ROOT}/TimeEntries?$format=json`, { headers: { 'x-serviceapikey': account.adminKey } });
    const baseline = await startBaselineServer(SERVER_CORE, await pageResponse.text(), pageResponse.headers.get('content-type') ?? fail('no content type'));
    try {
      report(place, account, list, await measureAll(service, baseline, list));
    } finally {
      await baseline.stop();
    }
  } finally {
    await service.stop();
  }
}

async function run(): Promise<void> {
  // Configuration read once, here at the edge.
  const postgresUrl = process.env.DATABASE_URL || DEFAULT_POSTGRES_URL;
  const profileDir = process.env.TIMEGATE_BENCH_CPU_PROF || undefined;
  pinThisProcess(LOAD_CORE);
  console.log('CAP reference (issue 4): SAP CAP with its OData V2 adapter on this machine, same model and 200k entries.\n');
  for (const open of [sqlitePlace, () => postgresPlace(postgresUrl)]) {
    const place = await open();
    try {
      await benchOn(place, profileDir);
    } finally {
      await place.dispose();
    }
  }
}

export const serviceHttp: BenchSuite = {
  name: 'service',
  description: 'time-tracking service over HTTP (autocannon): 200k entries on SQLite and PostgreSQL, beside a bare Fastify baseline',
  run,
};
