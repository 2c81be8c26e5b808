import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { emitOpenApi } from '../../codegen/emit-openapi.js';
import { repoRoot, tempFolders, typeErrors } from '../helpers/emitted-code.js';

const run = promisify(execFile);
const freshDir = tempFolders();

const MODELS = {
  'time tracking': 'spec/timetracking.edmx',
  Northwind: 'test/fixtures/northwind/northwind.edmx',
} as const;

async function emitInto(edmx: string): Promise<{ dir: string; file: string; contents: string }> {
  const dir = freshDir('openapi-');
  const [generated] = await emitOpenApi(readEdmx(readFileSync(edmx, 'utf8')));
  if (!generated) throw new Error('emitOpenApi produced no file');
  const file = path.join(dir, generated.path);
  writeFileSync(file, generated.contents);
  return { dir, file, contents: generated.contents };
}

interface RedoclyReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string }[];
}

async function redoclyLint(file: string): Promise<RedoclyReport> {
  const binary = path.join(repoRoot, 'node_modules/.bin/redocly');
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  // exit code 1 means "problems found": the JSON report says which, so read it either way
  const { stdout } = await run(binary, ['lint', path.basename(file), '--extends', 'recommended', '--format', 'json'], {
    cwd: path.dirname(file),
    env,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return JSON.parse(stdout) as RedoclyReport;
}

interface SpectralProblem {
  code: string;
  message: string;
  severity: number;
  path: string[];
}

/** Spectral with the repository's ruleset (`spectral:oas`), as `npx spectral lint` runs it. */
async function spectralLint(file: string): Promise<SpectralProblem[]> {
  const binary = path.join(repoRoot, 'node_modules/.bin/spectral');
  const args = ['lint', file, '--ruleset', path.join(repoRoot, '.spectral.yaml'), '--format', 'json', '--quiet'];
  // exit code 1 means "problems found": the JSON report says which, so read it either way
  const { stdout } = await run(binary, args, { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  );
  return JSON.parse(stdout === '' ? '[]' : stdout) as SpectralProblem[];
}

describe.each(Object.entries(MODELS))('openapi.json of the %s model', (_name, edmx) => {
  it('passes redocly lint with the recommended rules without errors or warnings', async () => {
    const { file } = await emitInto(edmx);
    const report = await redoclyLint(file);
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(report.problems).toEqual([]);
    expect(report.totals.warnings).toBe(0);
  }, 60_000);

  it('passes spectral lint with the spectral:oas rules without a finding', async () => {
    const { file } = await emitInto(edmx);
    const problems = await spectralLint(file);
    expect(problems.map((p) => `${p.code}: ${p.message} at ${p.path.join('.')}`)).toEqual([]);
  }, 60_000);

  it('is a valid OpenAPI 3.1 document for swagger-parser, every $ref resolving', async () => {
    const { file } = await emitInto(edmx);
    const api = await SwaggerParser.validate(file);
    expect('openapi' in api && api.openapi).toBe('3.1.0');
  });

  it('turns into TypeScript types with openapi-typescript that compile under the strict tsconfig', async () => {
    const { dir, file } = await emitInto(edmx);
    const ast = await openapiTS(new URL(`file://${file}`));
    const typesFile = path.join(dir, 'openapi.d.ts');
    writeFileSync(typesFile, astToString(ast));
    expect(typeErrors([typesFile])).toEqual([]);
  }, 60_000);

  it('is pretty-printed with two spaces, ends in a newline and is byte-identical when emitted again', async () => {
    const model = readEdmx(readFileSync(edmx, 'utf8'));
    const [first] = await emitOpenApi(model);
    const [second] = await emitOpenApi(readEdmx(readFileSync(edmx, 'utf8')));
    expect(first?.path).toBe('openapi.json');
    expect(second?.contents).toBe(first?.contents);
    const text = first?.contents ?? '';
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  });
});

describe('openapi-typescript types of the time-tracking document', () => {
  it('type the list query, the read shape and the problem the way a client uses them', async () => {
    const { dir, file } = await emitInto(MODELS['time tracking']);
    writeFileSync(path.join(dir, 'openapi.d.ts'), astToString(await openapiTS(new URL(`file://${file}`))));
    const usage = `
import type { components, paths } from './openapi.js';
type ListQuery = NonNullable<paths['/projects']['get']['parameters']['query']>;
export const query: ListQuery = { clientId: 7, active: true, limit: 50, orderBy: 'name desc,id' };
// @ts-expect-error clientId is an integer, not a string
export const wrong: ListQuery = { clientId: '7' };
export const rate: components['schemas']['Project']['hourlyRate'] = '95.50';
// @ts-expect-error Decimal travels as a string
export const numericRate: components['schemas']['Project']['hourlyRate'] = 95.5;
export const problem: components['schemas']['Problem'] = { type: 'about:blank', title: 'Not Found', status: 404 };
export type StopwatchStart = paths['/stopwatch']['post']['requestBody'];
`;
    const usageFile = path.join(dir, 'usage.ts');
    writeFileSync(usageFile, usage);
    expect(typeErrors([usageFile])).toEqual([]);
  }, 60_000);
});
