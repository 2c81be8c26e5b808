// What `$batch` saves a client on one connection (issue 28): 100 reads of single time entries as
// one batch against the same 100 GETs one after another, and 100 creates as one changeset against
// 100 POSTs, on SQLite and on PostgreSQL. The service runs as `timegate service` pinned to core 0,
// this process (the client) to core 1. Each round sends both sides, the side that goes first
// alternating; a ratio is the median of the per-round ratios, with their spread as the noise.
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import type { RunningServer } from './http-load.js';
import { cpuMs, pinThisProcess, startPinnedServer } from './http-load.js';
import { formatRatio, markdownTable, median } from './report.js';
import type { BenchPlace, SeededAccount } from './service-fixture.js';
import { postgresPlace, seedAccount, sqlitePlace } from './service-fixture.js';
import type { BenchSuite } from './suite.js';

const ENTRIES = 20_000;
const OPERATIONS = 100;
const ROUNDS = 7;
/** Batches (and so runs of 100 singles) per side per round. */
const REPEATS = { reads: 10, writes: 3 } as const;
const SERVER_CORE = 0;
const LOAD_CORE = 1;
const ROOT = '/V1/Api.svc';
const BOUNDARY = 'batch_bench';
const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

interface Request {
  readonly method: 'GET' | 'POST';
  /** Below the service root. */
  readonly path: string;
  readonly body?: string;
}

/** The same requests, sent one by one or as one batch (writes in one changeset). */
interface Scenario {
  readonly name: string;
  readonly repeats: number;
  readonly requests: (round: number, repeat: number) => readonly Request[];
  /** The status each single request answers with. */
  readonly status: number;
}

interface Side {
  readonly wallMs: number[];
  readonly cpuMs: number[];
}

function fail(message: string): never {
  throw new Error(`batch bench: ${message}`);
}

function scenarios(account: SeededAccount): Scenario[] {
  const date = (ms: number) => `\\/Date(${ms})\\/`;
  return [
    {
      name: `${OPERATIONS} reads of a time entry, JSON`,
      repeats: REPEATS.reads,
      status: 200,
      requests: (round, repeat) => Array.from({ length: OPERATIONS }, (_, i) => {
        const id = account.entryIds[((round + 1) * 31 + repeat * 7 + i) % account.entryIds.length] as number;
        return { method: 'GET' as const, path: `TimeEntries(${id})?$format=json` };
      }),
    },
    {
      name: `${OPERATIONS} creates of a time entry, JSON`,
      repeats: REPEATS.writes,
      status: 201,
      requests: (round, repeat) => Array.from({ length: OPERATIONS }, (_, i) => {
        const start = Date.UTC(2026, 0, 5, 8) + (((round + 1) * REPEATS.writes + repeat) * OPERATIONS + i) * 3_600_000;
        return {
          method: 'POST' as const,
          path: 'TimeEntries',
          body: `{"ProjectID":${account.projectId},"StartTime":"${date(start)}","EndTime":"${date(start + 1_800_000)}","Comment":"Batch-Last"}`,
        };
      }),
    },
  ];
}

function batchBody(requests: readonly Request[]): string {
  const part = (request: Request) => `Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n`
    + `${request.method} ${request.path} HTTP/1.1\r\nAccept: application/json\r\n`
    + (request.body === undefined ? '\r\n' : `Content-Type: application/json\r\n\r\n${request.body}`);
  const writes = requests.filter((r) => r.method !== 'GET');
  const reads = requests.filter((r) => r.method === 'GET').map((r) => `--${BOUNDARY}\r\n${part(r)}\r\n`).join('');
  const changeset = writes.length === 0 ? '' : `--${BOUNDARY}\r\nContent-Type: multipart/mixed; boundary=cs\r\n\r\n`
    + `${writes.map((r) => `--cs\r\n${part(r)}\r\n`).join('')}--cs--\r\n`;
  return `${reads}${changeset}--${BOUNDARY}--\r\n`;
}

async function sendSingles(pool: Pool, key: string, requests: readonly Request[], status: number): Promise<void> {
  for (const request of requests) {
    const response = await pool.request({
      method: request.method, path: `${ROOT}/${request.path}`, body: request.body,
      headers: { 'x-serviceapikey': key, accept: 'application/json', ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
    });
    const text = await response.body.text();
    if (response.statusCode !== status) fail(`${request.method} ${request.path}: ${response.statusCode} ${text.slice(0, 200)}`);
  }
}

async function sendBatch(pool: Pool, key: string, requests: readonly Request[], status: number): Promise<void> {
  const response = await pool.request({
    method: 'POST', path: `${ROOT}/$batch`, body: batchBody(requests),
    headers: { 'x-serviceapikey': key, 'content-type': `multipart/mixed; boundary=${BOUNDARY}` },
  });
  const text = await response.body.text();
  if (response.statusCode !== 202) fail(`$batch: ${response.statusCode} ${text.slice(0, 300)}`);
  const answered = [...text.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((m) => Number(m[1]));
  if (answered.length !== requests.length || answered.some((s) => s !== status)) fail(`$batch answered ${answered.slice(0, 5).join(', ')}... for ${requests.length} requests`);
}

/** Wall and server CPU time of `send`, in ms per request. */
async function timed(server: RunningServer, count: number, send: () => Promise<void>): Promise<{ wall: number; cpu: number }> {
  const cpuBefore = await cpuMs(server.pid);
  const started = process.hrtime.bigint();
  await send();
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  return { wall: wall / count, cpu: ((await cpuMs(server.pid)) - cpuBefore) / count };
}

async function measure(server: RunningServer, pool: Pool, key: string, scenario: Scenario): Promise<{ singles: Side; batch: Side }> {
  const singles: Side = { wallMs: [], cpuMs: [] };
  const batch: Side = { wallMs: [], cpuMs: [] };
  const count = scenario.repeats * OPERATIONS;
  // Warm-up (JIT, statement caches), not measured.
  await sendSingles(pool, key, scenario.requests(-1, 0), scenario.status);
  await sendBatch(pool, key, scenario.requests(-1, 1), scenario.status);
  for (let round = 0; round < ROUNDS; round++) {
    const sides = [
      async () => {
        const t = await timed(server, count, async () => {
          for (let r = 0; r < scenario.repeats; r++) await sendSingles(pool, key, scenario.requests(round, r), scenario.status);
        });
        singles.wallMs.push(t.wall);
        singles.cpuMs.push(t.cpu);
      },
      async () => {
        const t = await timed(server, count, async () => {
          for (let r = 0; r < scenario.repeats; r++) await sendBatch(pool, key, scenario.requests(round + ROUNDS, r), scenario.status);
        });
        batch.wallMs.push(t.wall);
        batch.cpuMs.push(t.cpu);
      },
    ];
    for (const side of round % 2 === 0 ? sides : sides.reverse()) await side();
  }
  return { singles, batch };
}

function ratios(singles: readonly number[], batch: readonly number[]): { median: number; low: number; high: number } {
  const each = singles.map((s, i) => s / (batch[i] as number));
  return { median: median(each), low: Math.min(...each), high: Math.max(...each) };
}

async function benchOn(place: BenchPlace): Promise<void> {
  const account = await seedAccount(place.url, { entries: ENTRIES, keyedUsers: 1, sampleIds: 256, deepPage: 2, pageSize: 100 });
  const bin = fileURLToPath(new URL('../bin/timegate.js', import.meta.url));
  const server = await startPinnedServer(SERVER_CORE, (port) => [bin, 'service', '--port', String(port), '--log-level', 'warn', '--db', place.url]);
  const pool = new Pool(server.origin, { connections: 1 });
  try {
    const rows: string[][] = [];
    for (const scenario of scenarios(account)) {
      const { singles, batch } = await measure(server, pool, account.adminKey, scenario);
      const wall = ratios(singles.wallMs, batch.wallMs);
      const cpu = ratios(singles.cpuMs, batch.cpuMs);
      const ms = (values: readonly number[]) => (median(values) * OPERATIONS).toFixed(1);
      rows.push([
        scenario.name,
        ms(singles.wallMs), ms(batch.wallMs), `${formatRatio(wall.median)} (${formatRatio(wall.low)} to ${formatRatio(wall.high)})`,
        ms(singles.cpuMs), ms(batch.cpuMs), `${formatRatio(cpu.median)} (${formatRatio(cpu.low)} to ${formatRatio(cpu.high)})`,
      ]);
    }
    console.log(`### ${place.name}\n`);
    console.log(`${account.entries.toLocaleString('en')} time entries. One kept-alive connection; per round ${REPEATS.reads} (reads) or ${REPEATS.writes} (creates) `
      + `batches of ${OPERATIONS} and as many runs of ${OPERATIONS} single requests, ${ROUNDS} rounds, the side going first alternating. `
      + `ms are medians over the rounds for ${OPERATIONS} operations; a ratio is singles ÷ batch, the median of the per-round ratios (least to greatest: the noise). `
      + 'Server CPU is the service process\'s (not the PostgreSQL server\'s).\n');
    console.log(markdownTable(['operations', 'singles ms', 'batch ms', 'batch faster by', 'singles server CPU ms', 'batch server CPU ms', 'batch cheaper by'], rows));
    console.log('');
  } finally {
    await pool.close();
    await server.stop();
  }
}

async function run(): Promise<void> {
  // Configuration read once, here at the edge.
  const postgresUrl = process.env.DATABASE_URL || DEFAULT_POSTGRES_URL;
  pinThisProcess(LOAD_CORE);
  for (const open of [sqlitePlace, () => postgresPlace(postgresUrl)]) {
    const place = await open();
    try {
      await benchOn(place);
    } finally {
      await place.dispose();
    }
  }
}

export const serviceBatch: BenchSuite = {
  name: 'batch',
  description: '$batch against single requests on one connection: 100 reads as one batch, 100 creates as one changeset (SQLite and PostgreSQL)',
  run,
};
