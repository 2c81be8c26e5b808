import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { emitValidators } from '../../codegen/emit-validators.js';
import type { GeneratedFile } from '../../codegen/emitter.js';
import { tempFolders } from '../helpers/emitted-code.js';

interface FieldError {
  pointer: string;
  detail: string;
}
interface ValidatorsModule {
  validators: Readonly<Record<string, ValidateFunction>>;
  queryStringSchemas: readonly string[];
  describeErrors(errors: readonly ErrorObject[] | null | undefined): FieldError[];
}

const freshDir = tempFolders();

async function emitAndImport(edmx: string): Promise<{ files: GeneratedFile[]; module: ValidatorsModule }> {
  const files = await emitValidators(readEdmx(readFileSync(edmx, 'utf8')));
  const dir = freshDir('validators-');
  for (const file of files) writeFileSync(path.join(dir, file.path), file.contents);
  const module = (await import(pathToFileURL(path.join(dir, 'validators.js')).href)) as ValidatorsModule;
  return { files, module };
}

/** Validates and returns the described errors ([] when valid). */
function check(module: ValidatorsModule, schema: string, data: unknown): FieldError[] {
  const validate = module.validators[schema];
  if (!validate) throw new Error(`no validator ${schema}`);
  const valid = validate(data);
  const errors = module.describeErrors(validate.errors);
  expect(valid).toBe(errors.length === 0);
  return errors;
}

describe('time-tracking validators', () => {
  let tt: ValidatorsModule;
  let files: GeneratedFile[];
  beforeAll(async () => {
    ({ module: tt, files } = await emitAndImport('spec/timetracking.edmx'));
  });

  it('accepts a valid create, update and read payload', () => {
    expect(check(tt, 'ProjectCreate', { name: 'Website', comment: null, hourlyRate: '95.50', clientId: 7 })).toEqual([]);
    expect(check(tt, 'TimeEntryCreate', { projectId: 7, startTime: '2026-11-22T09:00:00Z', endTime: null, typeId: 1 })).toEqual([]);
    expect(check(tt, 'TimeEntryUpdate', { comment: 'late', endTime: '2026-11-22T10:00:00Z' })).toEqual([]);
    expect(check(tt, 'ChangeSet', {
      totalClients: 1, changedClients: 0, totalProjects: 2, changedProjects: 1, totalTasks: 0, changedTasks: 0,
      totalUsers: 1, changedUsers: 0, totalTimeEntries: 5, changedTimeEntries: 2, deletedTimeEntryIds: '3,4',
      currentServerTime: '2026-11-22T09:00:00.000Z',
    })).toEqual([]);
  });

  it('names a missing required field', () => {
    expect(check(tt, 'ProjectCreate', { comment: 'no name' })).toEqual([{ pointer: '/name', detail: "missing required property 'name'" }]);
  });

  it('names a too-long field with its maximum', () => {
    expect(check(tt, 'ProjectCreate', { name: 'Website', comment: 'x'.repeat(1501) })).toEqual([
      { pointer: '/comment', detail: "'comment' is too long (max 1500 characters)" },
    ]);
  });

  it('names a field of the wrong type', () => {
    expect(check(tt, 'ProjectCreate', { name: 42 })).toEqual([{ pointer: '/name', detail: "'name' must be a string" }]);
    expect(check(tt, 'TimeEntryCreate', { projectId: '7', startTime: '2026-11-22T09:00:00Z' })).toEqual([
      { pointer: '/projectId', detail: "'projectId' must be an integer" },
    ]);
  });

  it('refuses an unknown field and a server-set id on create', () => {
    expect(check(tt, 'ProjectCreate', { name: 'Website', colour: 'red' })).toEqual([{ pointer: '/colour', detail: "property 'colour' is not allowed" }]);
    expect(check(tt, 'ProjectCreate', { id: 5, name: 'Website' })).toEqual([{ pointer: '/id', detail: "property 'id' is not allowed" }]);
  });

  it('refuses null for a non-nullable property in an update, allows it for a nullable one', () => {
    expect(check(tt, 'ProjectUpdate', { active: null })).toEqual([{ pointer: '/active', detail: "'active' must be a boolean (true or false)" }]);
    expect(check(tt, 'ProjectUpdate', { comment: null, clientId: null })).toEqual([]);
  });

  it('refuses a date-time that is not RFC 3339', () => {
    expect(check(tt, 'TimeEntryCreate', { projectId: 7, startTime: '22.11.2026 09:00' })).toEqual([
      { pointer: '/startTime', detail: "'startTime' must be an RFC 3339 date-time such as 2026-11-22T09:00:00Z" },
    ]);
  });

  it('refuses a Decimal with too many fraction digits, or as a number', () => {
    expect(check(tt, 'ProjectUpdate', { hourlyRate: '95.505' })).toEqual([
      { pointer: '/hourlyRate', detail: "'hourlyRate' must be a decimal number as a string with at most 16 digits before and at most 2 after the decimal point" },
    ]);
    expect(check(tt, 'ProjectUpdate', { hourlyRate: 95.5 })).toEqual([{ pointer: '/hourlyRate', detail: "'hourlyRate' must be a string or null" }]);
  });

  it('refuses a coded value that is not defined, nullable or not', () => {
    expect(check(tt, 'TimeEntryUpdate', { typeId: 3 })).toEqual([{ pointer: '/typeId', detail: "'typeId' must be one of 1, 2" }]);
  });

  it('reports every problem of a payload at once', () => {
    const errors = check(tt, 'TimeEntryCreate', { id: 1, comment: 'x'.repeat(1501) });
    expect(errors.map((e) => e.pointer).sort()).toEqual(['/comment', '/id', '/projectId', '/startTime']);
  });

  it('coerces query strings of lists and GET operations, and checks their ranges', () => {
    const query: Record<string, unknown> = { limit: '50', count: 'true', clientId: '7', orderBy: 'name desc' };
    expect(check(tt, 'ProjectsListQuery', query)).toEqual([]);
    expect(query).toEqual({ limit: 50, count: true, clientId: 7, orderBy: 'name desc' });
    expect(check(tt, 'ProjectsListQuery', { limit: '5000', colour: 'red' })).toEqual([
      { pointer: '/colour', detail: "property 'colour' is not allowed" },
      { pointer: '/limit', detail: "'limit' must be at most 1000" },
    ]);
    expect(check(tt, 'GetChangesDigestParameters', {})).toEqual([
      { pointer: '/lastSynchronizationTime', detail: "missing required property 'lastSynchronizationTime'" },
    ]);
    expect(tt.queryStringSchemas).toContain('TimeEntriesListQuery');
  });

  it('does not coerce JSON bodies', () => {
    expect(check(tt, 'StartStopWatchParameters', { projectId: 7, billable: true })).toEqual([]);
    expect(check(tt, 'StartStopWatchParameters', { projectId: '7' })).toEqual([{ pointer: '/projectId', detail: "'projectId' must be an integer" }]);
  });

  it('loads nothing but the ajv and ajv-formats runtime, and compiles nothing at load', () => {
    const js = files.find((f) => f.path === 'validators.js')?.contents ?? '';
    expect([...js.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1])).toEqual(['node:module']);
    const required = new Set([...js.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
    expect([...required].sort()).toEqual(['ajv-formats/dist/formats', 'ajv/dist/runtime/ucs2length']);
    expect(js).not.toMatch(/\bnew Ajv|\.compile\(/);
    expect(js.split('\n')[0]).toBe('// generated by timegate codegen, do not edit');
  });

  it('writes all schemas to schemas.json', () => {
    const json = JSON.parse(files.find((f) => f.path === 'schemas.json')?.contents ?? '{}') as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(Object.keys(tt.validators));
  });

  it('is byte-identical when emitted again', async () => {
    const again = await emitValidators(readEdmx(readFileSync('spec/timetracking.edmx', 'utf8')));
    expect(again).toEqual(files);
  });
});

describe('Northwind validators', () => {
  let nw: ValidatorsModule;
  beforeAll(async () => {
    ({ module: nw } = await emitAndImport('test/fixtures/northwind/northwind.edmx'));
  });

  it('accepts a valid order detail with its composite key and Decimal as string', () => {
    expect(check(nw, 'OrderDetailCreate', { orderId: 10248, productId: 11, unitPrice: '14.0000', quantity: 12 })).toEqual([]);
  });

  it('checks Guid, Int64, Byte, Time, DateTimeOffset and Binary values', () => {
    const shipment = {
      shipmentId: '0f8fad5b-d9cb-469f-a165-70867728950e', orderId: 1, carrier: 'UPS', trackingNumber: '9007199254740993',
      shippedAt: '2026-11-22T10:00:00+01:00', weightKg: 1.5, packageCount: 2, label: 'AAEC',
    };
    expect(check(nw, 'ShipmentCreate', shipment)).toEqual([]);
    expect(check(nw, 'ShipmentCreate', { ...shipment, shipmentId: 'nope', trackingNumber: 5, packageCount: 256 })).toEqual([
      { pointer: '/shipmentId', detail: "'shipmentId' must be a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e" },
      { pointer: '/trackingNumber', detail: "'trackingNumber' must be a string or null" },
      { pointer: '/packageCount', detail: "'packageCount' must be at most 255" },
    ]);
    expect(check(nw, 'OrderUpdate', { preferredDeliveryTime: '9:30' })).toEqual([
      { pointer: '/preferredDeliveryTime', detail: "'preferredDeliveryTime' must be an ISO 8601 duration such as PT9H30M" },
    ]);
  });

  it('refuses a Decimal beyond Precision 19, Scale 4', () => {
    expect(check(nw, 'OrderDetailUpdate', { unitPrice: '1.23456' })).toEqual([
      { pointer: '/unitPrice', detail: "'unitPrice' must be a decimal number as a string with at most 15 digits before and at most 4 after the decimal point" },
    ]);
  });

  it('names the missing parts of a composite key', () => {
    expect(check(nw, 'OrderDetailCreate', { unitPrice: '1' }).map((e) => e.detail)).toEqual([
      "missing required property 'orderId'",
      "missing required property 'productId'",
    ]);
  });
});
