// Load from Debian's wrk, a load generator in C in a process of its own, for the suites where
// autocannon (JavaScript, in the bench's own process) would be the bottleneck: the workers suite
// loads a gateway whose cache hits cost about 40 µs of CPU, so two workers ask for about 50,000
// req/s, more than autocannon sends on one core of this machine (about 26,000 req/s, the workers
// suite of 11-27 07:27). GET only, one wrk thread; the same LoadResult as http-load.ts's load().
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureDebianTool } from './debian-tools.js';
import type { LoadOptions, LoadResult } from './http-load.js';
import { cpuMs, endedChildrenCpuMs } from './http-load.js';

const WRK = '/usr/bin/wrk';
const run = promisify(execFile);

export function ensureWrk(): string {
  return ensureDebianTool(WRK, 'wrk', 'the load of the workers suite');
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/** `1.23ms` → 1.23. */
function milliseconds(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (match === null) throw new Error(`wrk: cannot read the latency ${text}`);
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/** The figures of wrk's `--latency` report. */
export function parseWrkReport(text: string): Omit<LoadResult, 'serverCpuMsPerRequest'> & { readonly requests: number } {
  const field = (pattern: RegExp): string => {
    const match = pattern.exec(text);
    if (match === null) throw new Error(`wrk: no ${pattern.source} in its report:\n${text}`);
    return match[1] as string;
  };
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const nonOk = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  return {
    requests: Number(field(/(\d+) requests in /)),
    requestsPerSecond: Number(field(/Requests\/sec:\s+([\d.]+)/)),
    p50Ms: milliseconds(field(/^\s+50%\s+(\S+)\s*$/m)),
    p99Ms: milliseconds(field(/^\s+99%\s+(\S+)\s*$/m)),
    failures: Number(nonOk?.[1] ?? 0) + (socketErrors === null ? 0 : socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0)),
  };
}

export async function wrkLoad(options: LoadOptions): Promise<LoadResult> {
  const [request, ...more] = options.requests;
  if (request === undefined || more.length > 0 || (request.method ?? 'GET') !== 'GET' || options.connectionHeaders !== undefined) {
    throw new Error('wrkLoad sends one GET, the same headers on every connection');
  }
  const headers = Object.entries(request.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const cpuBefore = options.serverPid === undefined ? undefined : await cpuMs(options.serverPid);
  // wrk's own CPU shows in this process's children's time once it has exited.
  const loadBefore = await endedChildrenCpuMs();
  const { stdout } = await run(ensureWrk(), ['-t1', `-c${options.connections ?? 10}`, `-d${options.durationSeconds ?? 8}s`, '--latency', ...headers, options.origin + request.path]);
  const loadSpent = (await endedChildrenCpuMs()) - loadBefore;
  const cpuSpent = cpuBefore === undefined || options.serverPid === undefined ? undefined : (await cpuMs(options.serverPid)) - cpuBefore;
  const { requests, ...result } = parseWrkReport(stdout);
  if (requests === 0) return result;
  return { ...result, loadCpuMsPerRequest: loadSpent / requests, ...(cpuSpent === undefined ? {} : { serverCpuMsPerRequest: cpuSpent / requests }) };
}
