// Third-party TypeScript generators fed the committed generated/openapi.json, as a user would:
// hey-api (@hey-api/openapi-ts, fetch client), orval (fetch client) and openapi-typescript (with
// openapi-fetch). Their output must type a plain read (`GET /projects/{id}`) as the whole entity,
// `name` a `string` and not `string | undefined`, and only the `:select` read as partial.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import openapiTS, { astToString } from 'openapi-typescript';
import { generate as orval } from 'orval';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve('.');
const documentFile = path.join(repoRoot, 'generated/openapi.json');
const tmpRoot = path.resolve('test/codegen/.tmp');
let dir = '';

beforeAll(() => {
  mkdirSync(tmpRoot, { recursive: true });
  dir = mkdtempSync(path.join(tmpRoot, 'generators-'));
});
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

function typeErrors(files: string[]): string[] {
  const config = ts.readConfigFile(path.join(repoRoot, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot);
  // orval's fetch client iterates `Headers`, which needs DOM.Iterable beside the repository's libs.
  const lib = [...(options.lib ?? []), 'lib.dom.iterable.d.ts'];
  const program = ts.createProgram(files, { ...options, lib, noEmit: true });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file === undefined ? '' : `${path.relative(dir, d.file.fileName)}: `;
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

/** Each generator's output in its own folder, and a file using it the way a client would. */
const USAGES = {
  'hey-api': `
import { getProject, getProjectSelection } from './index.js';
import type { Project } from './types.gen.js';

export async function projectName(id: number): Promise<string> {
  const { data } = await getProject({ path: { id }, throwOnError: true });
  const whole: Project = data;
  const name: string = data.name;
  return whole.active ? name : '';
}

export async function selectedName(id: number): Promise<string | undefined> {
  const { data } = await getProjectSelection({ path: { id }, query: { select: 'name' }, throwOnError: true });
  // @ts-expect-error a selection may leave the name out
  const name: string = data.name;
  return name;
}
`,
  orval: `
import { getProject, getProjectSelection } from './api.js';

export async function projectName(id: number): Promise<string | undefined> {
  const response = await getProject(id);
  if (response.status !== 200) return undefined;
  const name: string = response.data.name;
  return name;
}

export async function selectedName(id: number): Promise<string | undefined> {
  const response = await getProjectSelection(id, { select: 'name' });
  if (response.status !== 200) return undefined;
  // @ts-expect-error a selection may leave the name out
  const name: string = response.data.name;
  return name;
}
`,
  'openapi-typescript': `
import createClient from 'openapi-fetch';
import type { paths } from './openapi.js';

type ProjectRead = paths['/projects/{id}']['get']['responses'][200]['content']['application/json'];
export const fromType = (project: ProjectRead): string => project.name;

export async function projectName(id: number): Promise<string | undefined> {
  const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080/api/v1' });
  const { data } = await client.GET('/projects/{id}', { params: { path: { id } } });
  if (data === undefined) return undefined;
  const name: string = data.name;
  return name;
}

export async function selectedName(id: number): Promise<string | undefined> {
  const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080/api/v1' });
  const { data } = await client.GET('/projects/{id}:select', { params: { path: { id }, query: { select: 'name' } } });
  if (data === undefined) return undefined;
  // @ts-expect-error a selection may leave the name out
  const name: string = data.name;
  return name;
}
`,
} as const;

async function generateAll(): Promise<string[]> {
  const heyDir = path.join(dir, 'hey-api');
  await heyApi({ input: documentFile, output: heyDir, logs: { level: 'silent' } });
  const orvalDir = path.join(dir, 'orval');
  await orval({ input: { target: documentFile }, output: { target: path.join(orvalDir, 'api.ts'), client: 'fetch', mode: 'single' } });
  const otsDir = path.join(dir, 'openapi-typescript');
  mkdirSync(otsDir, { recursive: true });
  writeFileSync(path.join(otsDir, 'openapi.d.ts'), astToString(await openapiTS(new URL(`file://${documentFile}`))));
  return Object.entries(USAGES).map(([generator, usage]) => {
    const file = path.join(dir, generator, 'usage.ts');
    writeFileSync(file, usage);
    return file;
  });
}

describe('generated/openapi.json through third-party TypeScript generators', () => {
  it('types a plain GET /projects/{id} as the whole Project (name: string) in hey-api, orval and openapi-typescript output, and the :select read as partial', async () => {
    const usages = await generateAll();
    expect(typeErrors(usages)).toEqual([]);
  }, 60_000);
});
