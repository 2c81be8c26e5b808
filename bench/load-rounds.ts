// Throughput side by side: each run loaded in turn after a warm-up of each, the order reversed
// every other round so the machine's drift hits every run alike, and ratios of req/s taken per
// round (a slow round spoils one ratio, not the comparison). The suites that compare servers by
// throughput (gateway-cache, workers) share it.
import type { LoadOptions, LoadRequest, LoadResult, RunningServer } from './http-load.js';
import { load } from './http-load.js';
import { formatRatio, formatTarget, markdownTable, median } from './report.js';

export interface LoadRun {
  readonly name: string;
  readonly server: RunningServer;
  readonly request: LoadRequest;
}

export interface RoundsPlan {
  readonly connections: number;
  readonly rounds: number;
  readonly roundSeconds: number;
  readonly warmupSeconds: number;
  /** Measure each server process's CPU per response too. */
  readonly serverCpu: boolean;
  /** What sends the load: autocannon in this process (load()) unless told otherwise (wrk-load.ts). */
  readonly loader?: (options: LoadOptions) => Promise<LoadResult>;
}

/** Every run's result per round, by name; a failed request stops the suite. */
export async function alternatingLoadRounds(runs: readonly LoadRun[], plan: RoundsPlan): Promise<Map<string, LoadResult[]>> {
  const results = new Map(runs.map((run) => [run.name, [] as LoadResult[]]));
  const options = (run: LoadRun) => ({
    origin: run.server.origin,
    requests: [run.request],
    connections: plan.connections,
    ...(plan.serverCpu ? { serverPid: run.server.pid } : {}),
  });
  const send = plan.loader ?? load;
  for (const run of runs) await send({ ...options(run), durationSeconds: plan.warmupSeconds });
  for (let round = 0; round < plan.rounds; round++) {
    const order = round % 2 === 0 ? runs : [...runs].reverse();
    for (const run of order) {
      const result = await send({ ...options(run), durationSeconds: plan.roundSeconds });
      if (result.failures > 0) throw new Error(`${run.name}: ${result.failures} failed requests in round ${round + 1}`);
      results.get(run.name)?.push(result);
    }
  }
  return results;
}

export interface ThroughputComparison {
  readonly name: string;
  /** The names of two runs. */
  readonly ours: string;
  readonly baseline: string;
  readonly target?: number;
}

/** The rounds of one run, by name. */
export function roundsOf(results: ReadonlyMap<string, LoadResult[]>, name: string): LoadResult[] {
  const rounds = results.get(name);
  if (rounds === undefined) throw new Error(`no results for ${name}`);
  return rounds;
}

/** A Markdown table of req/s ratios: the median of the per-round ratios, every round, the target. */
export function comparisonTable(results: ReadonlyMap<string, LoadResult[]>, comparisons: readonly ThroughputComparison[]): string {
  return markdownTable(['comparison', 'ratio (median of rounds)', 'rounds', 'target'], comparisons.map((c) => {
    const baseline = roundsOf(results, c.baseline);
    const ratios = roundsOf(results, c.ours).map((r, i) => r.requestsPerSecond / (baseline[i] as LoadResult).requestsPerSecond);
    const ratio = median(ratios);
    return [c.name, formatRatio(ratio), ratios.map(formatRatio).join(' '), formatTarget(ratio, c.target)];
  }));
}
