// Load tests over real HTTP for the server suites: autocannon from this process, the server under
// test in another, each pinned to its own core (taskset) so they do not steal from each other on
// the two-core machine. Also the baseline every server suite measures beside itself: a bare
// Fastify route sending fixed bytes, on the same core and the same way.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Pool } from 'undici';

export interface LoadRequest {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export interface LoadOptions {
  readonly origin: string;
  /** One request repeated, or a sequence each connection runs in a loop. */
  readonly requests: readonly LoadRequest[];
  readonly connections?: number;
  readonly durationSeconds?: number;
  /** Headers per connection (e.g. one user's key each), added to every request it sends. */
  readonly connectionHeaders?: readonly Record<string, string>[];
  /** Each connection starts its loop at its own place in `requests` (for independent requests). */
  readonly spread?: boolean;
  /** The server's process id: its CPU time per request is measured too (Linux /proc). */
  readonly serverPid?: number;
}

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Non-2xx responses and socket errors: a run with any is not a valid measurement. */
  readonly failures: number;
  /**
   * CPU time the server process spent per response (ms, all its threads), when its pid was
   * given. Unlike req/s it hardly moves when other work shares the machine's cores.
   */
  readonly serverCpuMsPerRequest?: number;
  /** CPU time the load generator spent per request (ms), where it runs as a process of its own (wrk). */
  readonly loadCpuMsPerRequest?: number;
}

const CORES = 2;
/** USER_HZ of /proc times: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Runs this process on one core (best effort: a machine without taskset just shares). */
export function pinThisProcess(core: number): void {
  try {
    execFileSync('taskset', ['-pc', String(core % CORES), String(process.pid)], { stdio: 'ignore' });
  } catch {
    // Not pinned: the numbers get noisier, not wrong.
  }
}

/** `node <args>` on one core. */
export function spawnPinned(core: number, args: readonly string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn('taskset', ['-c', String(core % CORES), process.execPath, ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...env },
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls `url` until it answers 2xx (a started server), or fails after `timeoutMs`. */
export async function waitUntilUp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const requests = options.requests.map((request) => ({
    method: (request.method ?? 'GET') as 'GET',
    path: request.path,
    ...(request.headers === undefined ? {} : { headers: request.headers }),
    ...(request.body === undefined ? {} : { body: request.body }),
  }));
  const connectionHeaders = options.connectionHeaders;
  const connections = options.connections ?? 10;
  let nextClient = 0;
  const cpuBefore = options.serverPid === undefined ? undefined : await cpuMs(options.serverPid);
  const result = await autocannon({
    url: options.origin,
    connections,
    duration: options.durationSeconds ?? 8,
    requests,
    // Each connection gets its own copy of the sequence (autocannon clones the options per
    // client), with its own headers on every request of it and, when spread, its own starting
    // place, so connections do not all ask for the same entity at the same moment.
    setupClient: (client: autocannon.Client) => {
      const n = nextClient++;
      const start = options.spread === true ? Math.floor((n * requests.length) / connections) : 0;
      const extra = connectionHeaders?.[n % connectionHeaders.length];
      client.setRequests([...requests.slice(start), ...requests.slice(0, start)].map((request) =>
        extra === undefined ? request : { ...request, headers: { ...request.headers, ...extra } }));
    },
  });
  const cpuSpent = cpuBefore === undefined || options.serverPid === undefined ? undefined : (await cpuMs(options.serverPid)) - cpuBefore;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    ...(cpuSpent === undefined || result.requests.total === 0 ? {} : { serverCpuMsPerRequest: cpuSpent / result.requests.total }),
  };
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is field 3. */
async function statFields(pid: number | 'self'): Promise<string[]> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The pids of a process's live children (the workers of `--workers`). */
export async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  return text.trim().split(/\s+/).filter(Boolean).map(Number);
}

/**
 * User + system CPU time so far (ms) of a process and its live children (the workers of
 * `--workers`), from /proc/<pid>/stat.
 */
export async function cpuMs(pid: number): Promise<number> {
  const fields = await statFields(pid);
  let ticks = Number(fields[11]) + Number(fields[12]);
  for (const child of await childrenOf(pid).catch(() => [])) {
    const childFields = await statFields(child).catch(() => undefined);
    if (childFields !== undefined) ticks += Number(childFields[11]) + Number(childFields[12]);
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** CPU time (ms) of this process's children that have exited and been waited for (cutime + cstime). */
export async function endedChildrenCpuMs(): Promise<number> {
  const fields = await statFields('self');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Warms the server up (JIT, caches, connection pools), then measures. */
export async function measure(options: LoadOptions): Promise<LoadResult> {
  await load({ ...options, durationSeconds: 2 });
  return load(options);
}

export interface RunningServer {
  readonly origin: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * `node <script> ...args` on `core`, listening on a free port given as `--port`-like argument by
 * `argsFor(port)`, once its `/healthz` answers.
 */
export async function startPinnedServer(core: number, argsFor: (port: number) => readonly string[],
  env: NodeJS.ProcessEnv = {}): Promise<RunningServer> {
  const port = await freePort();
  const child = spawnPinned(core, argsFor(port), env);
  const origin = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server ${argsFor(port).join(' ')} exited with ${code} before it was up`)));
  });
  try {
    await Promise.race([waitUntilUp(`${origin}/healthz`), exited]);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  exited.catch(() => undefined);
  return { origin, pid: child.pid as number, stop: () => stopProcess(child) };
}

/** The bare Fastify baseline (bench/baseline-server.ts) answering every GET with `body`. */
export async function startBaselineServer(core: number, body: string, contentType: string): Promise<RunningServer> {
  const folder = await mkdtemp(join(tmpdir(), 'timegate-bench-'));
  const bodyFile = join(folder, 'body');
  await writeFile(bodyFile, body);
  const script = fileURLToPath(new URL('./baseline-server.ts', import.meta.url));
  try {
    const server = await startPinnedServer(core, (port) => ['--import', 'tsx', script, bodyFile, contentType, String(port)]);
    return {
      origin: server.origin,
      pid: server.pid,
      stop: async () => {
        await server.stop();
        await rm(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

/** The value at fraction `p` (0..1) of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

/** One side of a latency comparison: a one-connection pool and the request it is sent. */
export interface LatencySide {
  readonly pool: Pool;
  readonly request: LoadRequest;
}

/**
 * Latencies (ms, ascending, one list per side) of `count` GETs to each side, sent one after
 * another on kept-alive connections and interleaved (one to each side in turn, the side that goes
 * first rotating): added latency shows here, where a loaded run would measure queueing. On a
 * machine whose speed drifts within seconds (a VM beside busy neighbours) every side meets the
 * same drift; blocks of requests per side charged it to whichever side ran then.
 */
async function interleavedLatencies(sides: readonly LatencySide[], count: number): Promise<number[][]> {
  const latencies: number[][] = sides.map(() => []);
  for (let i = 0; i < count; i++) {
    for (let turn = 0; turn < sides.length; turn++) {
      const index = (i + turn) % sides.length;
      const { pool, request } = sides[index] as LatencySide;
      const started = process.hrtime.bigint();
      const response = await pool.request({ method: 'GET', path: request.path, headers: request.headers ?? {} });
      await response.body.arrayBuffer();
      (latencies[index] as number[]).push(Number(process.hrtime.bigint() - started) / 1e6);
      if (response.statusCode !== 200) throw new Error(`${request.path}: ${response.statusCode}`);
    }
  }
  return latencies.map((list) => list.sort((a, b) => a - b));
}

/** Per side, the p50 and p99 (ms) of each round of interleavedLatencies. */
export interface LatencyRounds {
  readonly p50: number[][];
  readonly p99: number[][];
}

/** `warmup` interleaved requests per side, then `rounds` rounds of `perRound`, summarised. */
export async function latencyRounds(sides: readonly LatencySide[], rounds: number, perRound: number, warmup: number): Promise<LatencyRounds> {
  await interleavedLatencies(sides, warmup);
  const measured: LatencyRounds = { p50: sides.map(() => []), p99: sides.map(() => []) };
  for (let round = 0; round < rounds; round++) {
    const latencies = await interleavedLatencies(sides, perRound);
    latencies.forEach((sorted, i) => {
      (measured.p50[i] as number[]).push(percentile(sorted, 0.5));
      (measured.p99[i] as number[]).push(percentile(sorted, 0.99));
    });
  }
  return measured;
}
