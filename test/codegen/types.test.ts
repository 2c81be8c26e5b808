import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { emitModel } from '../../codegen/emit-model.js';
import { emitTypes } from '../../codegen/emit-types.js';
import { emitValidators } from '../../codegen/emit-validators.js';

const repoRoot = path.resolve('.');
const tmpRoot = path.resolve('test/codegen/.tmp');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Emits types.ts, validators.* and model.ts of a model into a fresh directory, plus the given extra files. */
async function emitInto(edmx: string, extra: Record<string, string>): Promise<string> {
  mkdirSync(tmpRoot, { recursive: true });
  const dir = mkdtempSync(path.join(tmpRoot, 'types-'));
  dirs.push(dir);
  const model = readEdmx(readFileSync(edmx, 'utf8'));
  const context = { outDir: dir, repoRoot };
  const files = [...(await emitTypes(model)), ...(await emitValidators(model)), ...(await emitModel(model, context))];
  for (const file of files) writeFileSync(path.join(dir, file.path), file.contents);
  for (const [name, text] of Object.entries(extra)) writeFileSync(path.join(dir, name), text);
  return dir;
}

/** Type errors of the given files under the repository's compiler options. */
function typeErrors(files: string[]): string[] {
  const config = ts.readConfigFile(path.join(repoRoot, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot);
  const program = ts.createProgram(files, { ...options, noEmit: true });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

async function lintMessages(files: string[]): Promise<string[]> {
  const eslint = new ESLint({ cwd: repoRoot, ignore: false });
  const results = await eslint.lintFiles(files);
  return results.flatMap((r) => r.messages.map((m) => `${path.basename(r.filePath)}:${m.line} ${m.ruleId ?? ''} ${m.message}`));
}

const timeTrackingUsage = `
import type { Project, ProjectCreate, ProjectUpdate, TimeEntry, TimeEntriesListQuery, StartStopWatchParameters, Problem } from './types.js';
import { UserAccessRights, TimeEntryTypeId, resourcePaths } from './types.js';
import { ProjectCreate as validateProjectCreate, describeErrors, validators } from './validators.js';

export const create: ProjectCreate = { name: 'Website', hourlyRate: '95.50', clientId: null };
// @ts-expect-error the service sets id: it is not part of a create
export const withId: ProjectCreate = { name: 'Website', id: 1 };
// @ts-expect-error name is required on create
export const nameless: ProjectCreate = { comment: 'x' };
export const update: ProjectUpdate = { comment: null };
// @ts-expect-error active is not nullable
export const nullActive: ProjectUpdate = { active: null };
export const admin: UserAccessRights = UserAccessRights.Administrator;
// @ts-expect-error 30 is no coded value of AccessRights
export const bad: UserAccessRights = 30;
export const stopwatchEntry: TimeEntryTypeId = TimeEntryTypeId.StartEnd;
export const path: 'time-entries' = resourcePaths.TimeEntries;
export const query: TimeEntriesListQuery = { projectId: 7, limit: 50, count: true, expand: 'project' };
export const start: StartStopWatchParameters = { projectId: 7, taskId: null };
export const problem: Problem = { type: 'about:blank', title: 'Bad Request', status: 400, errors: [{ pointer: '/name', detail: 'missing' }] };

export function clientName(entry: TimeEntry): string | undefined {
  const project: Project | null | undefined = entry.project;
  return project?.client?.name;
}

export function check(body: unknown): string[] {
  if (validateProjectCreate(body)) return [body.name];
  const other = validators['ProjectUpdate'];
  other?.({});
  return describeErrors(validateProjectCreate.errors).map((e) => e.pointer + ' ' + e.detail);
}
`;

const northwindUsage = `
import type { OrderDetail, OrderDetailCreate, Shipment, ShipmentSummary } from './types.js';

export const line: OrderDetailCreate = { orderId: 10248, productId: 11, unitPrice: '14.0000' };
export const shipment: Pick<Shipment, 'shipmentId' | 'trackingNumber' | 'packageCount'> = { shipmentId: '0f8fad5b-d9cb-469f-a165-70867728950e', trackingNumber: '9007199254740993', packageCount: 1 };
export function price(detail: OrderDetail): string {
  return detail.unitPrice;
}
export const summary: ShipmentSummary = { orderId: 1, shipmentCount: 0, totalWeightKg: null, lastShippedAt: null };
`;

// Compiling and linting emitted files takes tens of seconds on a busy two-core machine.
describe('types.ts', { timeout: 120_000 }, () => {
  it('type-checks and lints clean for the time-tracking model, with create/update/read shapes a client relies on', async () => {
    const dir = await emitInto('spec/timetracking.edmx', { 'usage.ts': timeTrackingUsage });
    const files = ['types.ts', 'validators.d.ts', 'model.ts', 'usage.ts'].map((f) => path.join(dir, f));
    expect(typeErrors(files)).toEqual([]);
    expect(await lintMessages(files.slice(0, 3))).toEqual([]);
  });

  it('type-checks and lints clean for the Northwind fixture', async () => {
    const dir = await emitInto('test/fixtures/northwind/northwind.edmx', { 'usage.ts': northwindUsage });
    const files = ['types.ts', 'validators.d.ts', 'model.ts', 'usage.ts'].map((f) => path.join(dir, f));
    expect(typeErrors(files)).toEqual([]);
    expect(await lintMessages(files.slice(0, 3))).toEqual([]);
  });

  it('documents properties from their facets and is headed as generated', async () => {
    const [file] = await emitTypes(readEdmx(readFileSync('spec/timetracking.edmx', 'utf8')));
    const text = file?.contents ?? '';
    expect(text.split('\n')[0]).toBe('// generated by timegate codegen, do not edit');
    expect(text).toContain('export const UserAccessRights = { StandardUser: 10, Administrator: 20 } as const;');
    expect(text).toContain('export type UserAccessRights = 10 | 20;');
    expect(text).toMatch(/\/\*\* At most 1500 characters\. \*\/\n {2}comment: string \| null;/);
    expect(text).toMatch(/\* @default false\n {3}\*\/\n {2}active\?: boolean;/);
  });

  it('is byte-identical when emitted again', async () => {
    const model = readEdmx(readFileSync('spec/timetracking.edmx', 'utf8'));
    expect(await emitTypes(model)).toEqual(await emitTypes(model));
  });
});
