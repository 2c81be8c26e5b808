// How fast the programs start (issue 29): `timegate --help` and `timegate seed --help` against
// `node -e 0` in one hyperfine run (Debian's hyperfine, installed by apt-get when missing, like
// nginx for its suite), and `timegate service` from spawn to its first answer against a bare
// node:http server started the same way, in alternating rounds. Both sides run on the Node the
// bench runs on; on a Node without type stripping (before 22.18) the CLI runs its TypeScript
// through tsx, so run the suite on the project's Node to measure what users get.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDebianTool } from './debian-tools.js';
import { freePort, stopProcess } from './http-load.js';
import { formatRatio, markdownTable, median } from './report.js';
import type { BenchSuite } from './suite.js';

const ROUNDS = Number(process.env.TG_BENCH_ROUNDS ?? 7);
const HYPERFINE = '/usr/bin/hyperfine';
const TIMEGATE = fileURLToPath(new URL('../bin/timegate.js', import.meta.url));
const BARE_SERVER = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.argv[1]), '127.0.0.1')";

function hyperfine(): string {
  return ensureDebianTool(HYPERFINE, 'hyperfine', 'the start-up suite');
}

interface HyperfineResult {
  readonly command: string;
  readonly mean: number;
  readonly stddev: number;
}

/** One hyperfine run of every command; mean and standard deviation in seconds. */
async function timeCommands(commands: readonly string[]): Promise<HyperfineResult[]> {
  const folder = await mkdtemp(join(tmpdir(), 'timegate-bench-start-'));
  try {
    const out = join(folder, 'hyperfine.json');
    execFileSync(hyperfine(), ['--warmup', '3', '--runs', '30', '--shell', 'none', '--style', 'none', '--export-json', out, ...commands], { stdio: 'ignore' });
    return (JSON.parse(await readFile(out, 'utf8')) as { results: HyperfineResult[] }).results;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Milliseconds from spawn until `url` answers 200 (polled every 2 ms); the process is stopped. */
async function untilFirstAnswer(args: readonly string[], url: (port: number) => string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args.map((a) => a.replace('{port}', String(port))), { stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`start-up bench: ${args.join(' ')} exited with ${child.exitCode}`);
      const answer = await fetch(url(port)).catch(() => undefined);
      if (answer?.status === 200) return performance.now() - started;
      await new Promise((wait) => setTimeout(wait, 2));
    }
  } finally {
    await stopProcess(child);
  }
}

export const cliStart: BenchSuite = {
  name: 'cli-start',
  description: '`timegate --help` against `node -e 0` (hyperfine); service start to first answer against bare node:http',
  async run() {
    const node = process.execPath;
    const [bare, help, seedHelp] = await timeCommands([`${node} -e 0`, `${node} ${TIMEGATE} --help`, `${node} ${TIMEGATE} seed --help`]) as [HyperfineResult, HyperfineResult, HyperfineResult];
    const ms = (r: HyperfineResult) => `${(r.mean * 1000).toFixed(1)} ± ${(r.stddev * 1000).toFixed(1)} ms`;

    const folder = await mkdtemp(join(tmpdir(), 'timegate-bench-start-'));
    const db = join(folder, 'start.sqlite');
    const service = [TIMEGATE, 'service', '--db', db, '--port', '{port}', '--log-level', 'silent'];
    const bareServer = ['-e', BARE_SERVER, '{port}'];
    const serviceUrl = (port: number) => `http://127.0.0.1:${port}/healthz`;
    const bareUrl = (port: number) => `http://127.0.0.1:${port}/`;
    try {
      const firstStart = await untilFirstAnswer(service, serviceUrl);
      const ours: number[] = [];
      const baseline: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternating which starts first, so neither always runs in the other's wake.
        const serviceFirst = round % 2 === 0;
        const before = await untilFirstAnswer(serviceFirst ? service : bareServer, serviceFirst ? serviceUrl : bareUrl);
        const after = await untilFirstAnswer(serviceFirst ? bareServer : service, serviceFirst ? bareUrl : serviceUrl);
        ours.push(serviceFirst ? before : after);
        baseline.push(serviceFirst ? after : before);
      }
      const ratios = ours.map((o, i) => o / (baseline[i] as number));
      console.log(markdownTable(['what', 'baseline', 'ours', 'baseline figure', 'ratio (spread)'], [
        ['`timegate --help`', '`node -e 0`', ms(help), ms(bare), formatRatio(help.mean / bare.mean)],
        ['`timegate seed --help`', '`node -e 0`', ms(seedHelp), ms(bare), formatRatio(seedHelp.mean / bare.mean)],
        ['`timegate service` to its first answer (`/healthz`, migrated SQLite)', 'bare node:http to its first answer', `${median(ours).toFixed(0)} ms`, `${median(baseline).toFixed(0)} ms`,
          `${formatRatio(median(ratios))} (${formatRatio(Math.min(...ratios))} to ${formatRatio(Math.max(...ratios))})`],
        ['`timegate service`, first start (creates and migrates the file)', '—', `${firstStart.toFixed(0)} ms`, '—', '—'],
      ]));
      console.log(`\nNode ${process.version}${process.features.typescript ? '' : ' (no type stripping: the CLI ran through tsx, not the compiled dist/)'}; ${ROUNDS} rounds.`);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  },
};
