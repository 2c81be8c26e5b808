import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MALFORMED_CASES } from './fixtures/malformed-edmx.js';
import { expectOneLineError, timegate as run } from '../helpers/cli.js';

const timegate = (...args: string[]) => run(args);

// A full generation loads ts-morph and ajv in a fresh process: seconds each, more on a busy machine.
const GENERATION_TIMEOUT_MS = 120_000;

let tmp: string;
let server: Server;
let baseUrl: string;
let closedPortUrl: string;

beforeAll(async () => {
  tmp = await mkdtemp(join('test', 'codegen', '.tmp', 'cli-'));
  const spec = await readFile('spec/timetracking.edmx', 'utf8');
  server = createServer((request, response) => {
    if (request.url === '/odata/$metadata') {
      response.writeHead(200, { 'content-type': 'application/xml' }).end(spec);
    } else {
      response.writeHead(404, 'Not Found').end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedPortUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/$metadata`;
  await new Promise((resolve) => closed.close(resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(tmp, { recursive: true, force: true });
});

describe.concurrent('timegate codegen refuses malformed EDMX with one line and exit code 1', () => {
  it.each(MALFORMED_CASES.map((c, i) => [c.name, c, i] as const))('%s', async (_, { xml, mentions }, i) => {
    const edmx = join(tmp, `malformed-${i}.edmx`);
    const out = join(tmp, `malformed-${i}-out`);
    await writeFile(edmx, xml);
    const run = await timegate('codegen', '--edmx', edmx, '--out', out);
    const line = expectOneLineError(run, 1);
    expect(line.startsWith('timegate codegen: ')).toBe(true);
    for (const words of mentions) expect(line).toContain(words);
    expect(run.stdout).toBe('');
    await expect(stat(out)).rejects.toThrow();
  });
});

describe.concurrent('timegate codegen reports unreadable sources on one line', () => {
  it('a missing file', async () => {
    const line = expectOneLineError(await timegate('codegen', '--edmx', join(tmp, 'nope.edmx'), '--out', join(tmp, 'x')), 1);
    expect(line).toContain('nope.edmx: no such file');
  });

  it('a refused connection', async () => {
    const line = expectOneLineError(await timegate('codegen', '--edmx', closedPortUrl, '--out', join(tmp, 'x')), 1);
    expect(line).toContain(`cannot fetch ${closedPortUrl}`);
  });

  it('an HTTP error status', async () => {
    const line = expectOneLineError(await timegate('codegen', '--edmx', `${baseUrl}/missing/$metadata`, '--out', join(tmp, 'x')), 1);
    expect(line).toContain('HTTP 404');
  });

  it('generates from a live $metadata URL', async () => {
    const out = join(tmp, 'from-url');
    const run = await timegate('codegen', '--edmx', `${baseUrl}/odata/$metadata`, '--out', out);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const openapi = JSON.parse(await readFile(join(out, 'openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toContain('/time-entries');
  }, GENERATION_TIMEOUT_MS);
});

describe.concurrent('timegate command line', () => {
  it('--help lists the subcommands', async () => {
    const run = await timegate('--help');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\s+codegen\s+/m);
  });

  it('codegen --help shows its options', async () => {
    const run = await timegate('codegen', '--help');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--edmx');
    expect(run.stdout).toContain('--check');
  });

  it('an unknown subcommand is a usage error (exit 2)', async () => {
    const line = expectOneLineError(await timegate('frobnicate'), 2);
    expect(line).toContain("unknown command 'frobnicate'");
  });

  it('an unknown flag is a usage error (exit 2)', async () => {
    const line = expectOneLineError(await timegate('codegen', '--edmx', 'spec/timetracking.edmx', '--out', 'x', '--verbose'), 2);
    expect(line).toContain('--verbose');
  });

  it('a missing --out is a usage error (exit 2)', async () => {
    const line = expectOneLineError(await timegate('codegen', '--edmx', 'spec/timetracking.edmx'), 2);
    expect(line).toContain('--out');
  });
});

describe('timegate codegen writes only what changed, and --check finds stale, missing and extra files', () => {
  const edmx = 'test/fixtures/northwind/northwind.edmx';
  let out: string;

  beforeAll(async () => {
    out = join(tmp, 'northwind');
    const run = await timegate('codegen', '--edmx', edmx, '--out', out);
    expect(run.code).toBe(0);
  });

  it('a second run rewrites nothing and --check passes', async () => {
    const before = await stat(join(out, 'types.ts'));
    const run = await timegate('codegen', '--edmx', edmx, '--out', out);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/0 written, \d+ unchanged, 0 removed/);
    expect((await stat(join(out, 'types.ts'))).mtimeMs).toBe(before.mtimeMs);
    const check = await timegate('codegen', '--edmx', edmx, '--out', out, '--check');
    expect(check.code).toBe(0);
    expect(check.stderr).toBe('');
  }, GENERATION_TIMEOUT_MS);

  it('--check lists each difference on its own line and exits 1; a write run repairs them', async () => {
    const produced = (await readdir(out)).sort();
    await writeFile(join(out, 'types.ts'), '// generated by timegate codegen, do not edit\nexport {};\n');
    await unlink(join(out, 'model.ts'));
    await writeFile(join(out, 'old-client.ts'), '// generated by timegate codegen, do not edit\n');
    await writeFile(join(out, 'README.txt'), 'hand-written, not ours\n');

    const check = await timegate('codegen', '--edmx', edmx, '--out', out, '--check');
    expect(check.code).toBe(1);
    expect(check.stderr.split('\n').filter(Boolean), check.stderr).toEqual([
      `missing ${out}/model.ts`,
      `extra   ${out}/old-client.ts`,
      `stale   ${out}/types.ts`,
      expect.stringMatching(/^timegate codegen: 3 file\(s\) in .* differ/),
    ]);

    const repair = await timegate('codegen', '--edmx', edmx, '--out', out);
    expect(repair.code).toBe(0);
    expect(repair.stdout).toContain(`removed ${out}/old-client.ts`);
    expect((await readdir(out)).sort()).toEqual([...produced, 'README.txt'].sort());
    expect((await timegate('codegen', '--edmx', edmx, '--out', out, '--check')).code).toBe(0);
  }, GENERATION_TIMEOUT_MS);
});
