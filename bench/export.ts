// `timegate export` of a million entries (issue 27): the export must stream, so its peak resident
// memory (VmHWM of the child process, polled from /proc) stays under 200 MB however many entries
// there are, and its time is reported as a ratio to `timegate seed` writing the same rows, both
// as child processes on one SQLite file. Rounds alternate which of the two runs first; each
// round's seed writes a fresh file, the exports read the one seeded before the rounds.
//
// The commands run as compiled JavaScript (dist/, built first), as `bin/timegate.js` runs them on
// the project's Node: through tsx on an older Node the loader alone would add about 40 MB.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatRatio, markdownTable, median } from './report.js';
import type { BenchSuite } from './suite.js';

const ENTRIES = Number(process.env.TG_BENCH_EXPORT_ENTRIES ?? 1_000_000);
const ROUNDS = Number(process.env.TG_BENCH_ROUNDS ?? 3);
const PEAK_BUDGET_MB = 200;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

interface Run {
  readonly seconds: number;
  /** Peak resident set (VmHWM), MB. */
  readonly peakMb: number;
  readonly stdout: string;
}

async function highWaterMb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined; // gone
  }
}

/** Runs `timegate <args>` to its end: wall time, and the peak resident set the kernel kept for it. */
function timegate(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peakMb = 0;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // VmHWM only grows: the last reading before the exit is the peak up to a poll's interval.
    const poll = setInterval(() => {
      if (child.pid !== undefined) void highWaterMb(child.pid).then((mb) => { if (mb !== undefined) peakMb = Math.max(peakMb, mb); });
    }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) reject(new Error(`timegate ${args.join(' ')} exited with ${code}: ${stderr.trim().split('\n').at(-1) ?? ''}`));
      else resolve({ seconds, peakMb, stdout });
    });
  });
}

async function seed(db: string): Promise<Run> {
  return timegate(['seed', '--entries', String(ENTRIES), '--db', db]);
}

async function exportTo(db: string, accountId: number, format: 'csv' | 'xlsx', out: string): Promise<Run> {
  const run = await timegate(['export', '--account', String(accountId), '--format', format, '--out', out, '--db', db]);
  const written = (JSON.parse(run.stdout) as { entries: number }).entries;
  if (written !== ENTRIES) throw new Error(`export wrote ${written} entries, not ${ENTRIES}`);
  return run;
}

const mb = (value: number) => `${value.toFixed(0)} MB`;
const s = (value: number) => `${value.toFixed(1)} s`;

export const exportBench: BenchSuite = {
  name: 'export',
  description: `timegate export of ${ENTRIES.toLocaleString('en')} entries (CSV, XLSX): peak RSS (budget ${PEAK_BUDGET_MB} MB) and time as a ratio to timegate seed of as many rows`,
  async run() {
    console.log('building dist/ (npm run build) ...');
    execFileSync(process.execPath, [join(ROOT, 'bin', 'build.js')], { stdio: 'ignore' });
    const folder = await mkdtemp(join(tmpdir(), 'timegate-bench-export-'));
    try {
      const source = join(folder, 'source.sqlite');
      const seeded = JSON.parse((await seed(source)).stdout) as { accountId: number };
      const times: Record<'seed' | 'csv' | 'xlsx', number[]> = { seed: [], csv: [], xlsx: [] };
      const peaks: Record<'seed' | 'csv' | 'xlsx', number[]> = { seed: [], csv: [], xlsx: [] };
      const sizes: Record<'csv' | 'xlsx', number> = { csv: 0, xlsx: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const steps: Array<() => Promise<void>> = [
          async () => {
            const db = join(folder, `round-${round}.sqlite`);
            const run = await seed(db);
            times.seed.push(run.seconds);
            peaks.seed.push(run.peakMb);
            await rm(db, { force: true });
            await rm(`${db}-wal`, { force: true });
            await rm(`${db}-shm`, { force: true });
          },
          ...(['csv', 'xlsx'] as const).map((format) => async () => {
            const out = join(folder, `export.${format}`);
            const run = await exportTo(source, seeded.accountId, format, out);
            times[format].push(run.seconds);
            peaks[format].push(run.peakMb);
            sizes[format] = (await stat(out)).size;
            await rm(out, { force: true });
          }),
        ];
        // Seed first in even rounds, last in odd ones: neither side always runs in the other's wake.
        for (const step of round % 2 === 0 ? steps : [...steps].reverse()) await step();
        console.log(`round ${round + 1}/${ROUNDS}: seed ${s(times.seed[round] as number)}, csv ${s(times.csv[round] as number)} `
          + `(${mb(peaks.csv[round] as number)}), xlsx ${s(times.xlsx[round] as number)} (${mb(peaks.xlsx[round] as number)})`);
      }
      const ratios = (format: 'csv' | 'xlsx') => times[format].map((t, i) => t / (times.seed[i] as number));
      const row = (name: string, format: 'seed' | 'csv' | 'xlsx', size: string) => {
        const r = format === 'seed' ? [1] : ratios(format);
        return [name, s(median(times[format])), format === 'seed' ? '1.00× (baseline)' : `${formatRatio(median(r))} (${formatRatio(Math.min(...r))} to ${formatRatio(Math.max(...r))})`,
          mb(Math.max(...peaks[format])), format === 'seed' ? '—' : Math.max(...peaks[format]) < PEAK_BUDGET_MB ? `< ${PEAK_BUDGET_MB} MB: met` : `< ${PEAK_BUDGET_MB} MB: NOT met`, size];
      };
      console.log(`\n${ENTRIES.toLocaleString('en')} entries, ${ROUNDS} alternating rounds, SQLite file; time is the median, the ratio the median of per-round ratios to seed (range)\n`);
      console.log(markdownTable(['command', 'time', 'time / seed', 'peak RSS', 'budget', 'file'], [
        row('`timegate seed`', 'seed', '—'),
        row('`timegate export --format csv`', 'csv', mb(sizes.csv / 1_048_576)),
        row('`timegate export --format xlsx`', 'xlsx', mb(sizes.xlsx / 1_048_576)),
      ]));
      const over = (['csv', 'xlsx'] as const).filter((format) => Math.max(...peaks[format]) >= PEAK_BUDGET_MB);
      if (over.length > 0) throw new Error(`export ${over.join(' and ')} went over ${PEAK_BUDGET_MB} MB of resident memory`);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  },
};
