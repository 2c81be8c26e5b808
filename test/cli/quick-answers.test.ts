// Every `timegate` command answers --help, and refuses a wrong command line, at once: before it
// loads a single package (Fastify, Kysely and the database drivers, ajv, ioredis, the XML parser),
// which is what made `timegate seed --help` take five times as long as `node -e 0`. The packages
// a process loaded are told by a module preloaded into it (test/helpers/loaded-packages.ts).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timegate } from '../helpers/cli.js';

const HOOK = pathToFileURL(resolve('test/helpers/loaded-packages.ts')).href;

/** A command line each command refuses (exit 2) before it does anything. */
const WRONG: Readonly<Record<string, readonly string[]>> = {
  start: ['--port', 'x'],
  service: ['--port', 'x'],
  gateway: ['--upstream', 'ftp://x/y'],
  codegen: ['--out', 'x'],
  admin: [],
  export: ['--from', '2026-01-01'],
  seed: ['--entries', 'many'],
};

describe.each(Object.keys(WRONG))('timegate %s', (command) => {
  let folder: string;
  let runs = 0;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'tg-quick-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  /** Runs the command; what it printed and the packages it loaded. */
  async function run(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string; packages: string[] }> {
    const file = join(folder, `run-${++runs}.txt`);
    const answer = await timegate([command, ...args], { NODE_OPTIONS: `--import ${HOOK}`, LOADED_PACKAGES_FILE: file, UPSTREAM_URL: '', DATABASE_URL: '' });
    const packages = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    return { ...answer, packages };
  }

  it('answers --help without loading a package', async () => {
    const help = await run(['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^Usage: timegate ${command}`));
    expect(help.packages).toEqual([]);
  }, 60_000);

  it('refuses a wrong command line in one line without loading a package', async () => {
    const wrong = await run(WRONG[command] as readonly string[]);
    expect(wrong.code, wrong.stderr).toBe(2);
    expect(wrong.stderr).toMatch(new RegExp(`^timegate ${command}: .* \\(see timegate ${command} --help\\)\\n$`));
    expect(wrong.packages).toEqual([]);
  }, 60_000);
});
