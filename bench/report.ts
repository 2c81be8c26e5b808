// Shared measuring and printing for micro suites. Rates are ops/s; comparisons are ratios to a
// baseline measured in the same run, because absolute rates move with the machine and ratios
// much less. A run is several short rounds with every task in each, alternating the order, and
// a ratio is the median of its per-round ratios: a burst of load on a shared machine then
// spoils one round, not the comparison. Tables are Markdown, pasted as is into BENCHMARKS.md.
import { Bench } from 'tinybench';

export type Task = () => unknown;

export interface RoundOptions {
  readonly rounds: number;
  /** Sampling time of each task in each round. */
  readonly timeMs: number;
}

/** ops/s of each task in each round (whole sampling time, GC pauses included). */
export async function measureRounds(
  tasks: ReadonlyMap<string, Task>,
  options: RoundOptions,
): Promise<Map<string, number[]>> {
  const rates = new Map([...tasks.keys()].map((name) => [name, [] as number[]]));
  for (let round = 0; round < options.rounds; round++) {
    const bench = new Bench({ time: options.timeMs, warmupTime: Math.min(250, options.timeMs), throws: true });
    const names = [...tasks.keys()];
    if (round % 2 === 1) names.reverse(); // no task always runs in another's wake
    for (const name of names) bench.add(name, tasks.get(name) as Task);
    await bench.run();
    for (const name of names) {
      const result = bench.getTask(name)?.result;
      if (result?.state !== 'completed') throw new Error(`task ${name} did not complete (${result?.state})`);
      rates.get(name)?.push(1000 / result.period);
    }
  }
  return rates;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface Comparison {
  /** Median ops/s of ours and of the baseline. */
  readonly ours: number;
  readonly baseline: number;
  /** Median of the per-round ratios ours / baseline, and their least and greatest. */
  readonly ratio: number;
  readonly low: number;
  readonly high: number;
}

export function compare(ours: readonly number[], baseline: readonly number[]): Comparison {
  const ratios = ours.map((rate, i) => rate / (baseline[i] as number));
  return {
    ours: median(ours),
    baseline: median(baseline),
    ratio: median(ratios),
    low: Math.min(...ratios),
    high: Math.max(...ratios),
  };
}

/** `12 345` (whole ops/s, grouped). */
export function formatRate(opsPerSecond: number): string {
  return Math.round(opsPerSecond).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

export function formatRatio(ratio: number): string {
  return `${ratio.toFixed(2)}×`;
}

/** `≥ 0.80×: met` or `≥ 0.80×: NOT met`; '—' when nothing is promised. */
export function formatTarget(ratio: number, target: number | undefined): string {
  if (target === undefined) return '—';
  return `≥ ${formatRatio(target)}: ${ratio >= target ? 'met' : 'NOT met'}`;
}

export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}
