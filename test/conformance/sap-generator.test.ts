// The acceptance bar for spec/timetracking.edmx: SAP's OData V2 client generator (a strict,
// widely used consumer of V2 metadata) loads it without a single warning, and the client it
// generates type-checks against @sap-cloud-sdk/odata-v2.
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SAP_GENERATOR_CLI = 'node_modules/@sap-cloud-sdk/generator/dist/cli.js';
const TSC = 'node_modules/typescript/bin/tsc';
const TIMEOUT_MS = 90_000;

interface Run {
  readonly code: number | null;
  readonly output: string;
}

function node(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    // FORCE_COLOR=0: the generator's log levels must be plain words to be matched.
    const child = spawn(process.execPath, args, { env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

let tmp: string;
let generation: Run;
let clientDir: string;

beforeAll(async () => {
  await mkdir(join('test', 'conformance', '.tmp'), { recursive: true });
  tmp = await mkdtemp(join('test', 'conformance', '.tmp', 'sap-generator-'));
  const input = join(tmp, 'timetracking.edmx');
  await copyFile('spec/timetracking.edmx', input);
  // The service root is not part of $metadata; without it the generator warns that it guessed "/".
  const optionsPerService = join(tmp, 'options-per-service.json');
  const key = relative(process.cwd(), input).split('\\').join('/');
  await writeFile(optionsPerService, JSON.stringify({ [key]: { directoryName: 'timetracking', basePath: '/V1/Api.svc', packageName: 'timetracking' } }));
  const outputDir = join(tmp, 'out');
  generation = await node([SAP_GENERATOR_CLI, '--input', input, '--outputDir', outputDir, '--optionsPerService', optionsPerService, '--overwrite']);
  clientDir = join(outputDir, 'timetracking');
}, TIMEOUT_MS);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('@sap-cloud-sdk/generator on spec/timetracking.edmx', () => {
  it('generates a client without warnings or errors', async () => {
    expect(generation.output).not.toMatch(/\b(WARN|ERROR)\b/);
    expect(generation.code).toBe(0);
    const files = await readdir(clientDir);
    for (const name of ['Projects.ts', 'Clients.ts', 'Tasks.ts', 'TimeEntries.ts', 'Users.ts', 'AccountSettings.ts', 'ChangeSet.ts', 'operations.ts']) {
      expect(files).toContain(name);
    }
  });

  it('the generated client compiles with tsc (strict) against @sap-cloud-sdk/odata-v2', async () => {
    // The generator writes CommonJS-style TypeScript (extensionless imports); the repository is ESM.
    await writeFile(join(tmp, 'package.json'), JSON.stringify({ type: 'commonjs', private: true }));
    await writeFile(
      join(tmp, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'node16',
          moduleResolution: 'node16',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        include: ['out/**/*.ts'],
      }),
    );
    const compile = await node([TSC, '-p', join(tmp, 'tsconfig.json')]);
    expect(compile.output).toBe('');
    expect(compile.code).toBe(0);
  }, TIMEOUT_MS);
});
