// Shared printing for suites: Markdown tables (pasted as they are into BENCHMARKS.md) and the
// figures in them. Rates are ops/s; comparisons are ratios to a baseline measured in the same
// run, because absolute rates move with the machine and ratios much less.
import type { Bench } from 'tinybench';

export interface Rate {
  /** Operations per second over the whole sampling time (includes GC pauses). */
  readonly opsPerSecond: number;
  /** Relative margin of error of the mean latency, in percent. */
  readonly rmePercent: number;
}

/** The rate of a finished tinybench task; a task that threw fails the whole suite. */
export function rateOf(bench: Bench, taskName: string): Rate {
  const result = bench.getTask(taskName)?.result;
  if (!result) throw new Error(`no task ${taskName}`);
  if (result.state === 'errored') throw result.error;
  if (result.state !== 'completed') throw new Error(`task ${taskName} did not complete (${result.state})`);
  return { opsPerSecond: 1000 / result.period, rmePercent: result.latency.rme };
}

/** `12 345` (whole ops/s; a thin space would not survive every terminal). */
export function formatRate(rate: Rate): string {
  const whole = Math.round(rate.opsPerSecond).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  return `${whole} ±${rate.rmePercent.toFixed(1)}%`;
}

export function formatRatio(ratio: number): string {
  return `${ratio.toFixed(2)}×`;
}

/** `≥ 0.80× ✓` or `≥ 0.80× ✗`; '—' when nothing is promised. */
export function formatTarget(ratio: number, target: number | undefined): string {
  if (target === undefined) return '—';
  return `≥ ${formatRatio(target)} ${ratio >= target ? 'met' : 'NOT MET'}`;
}

export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}
