import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import type { JsonSchema } from '../../codegen/json-schema.js';
import { buildSchemaSet, buildSchemas } from '../../codegen/json-schema.js';

const timeTracking = readEdmx(readFileSync('spec/timetracking.edmx', 'utf8'));
const northwind = readEdmx(readFileSync('test/fixtures/northwind/northwind.edmx', 'utf8'));
const schemas = buildSchemas(timeTracking);
const nw = buildSchemas(northwind);

function schema(set: Record<string, JsonSchema>, name: string): JsonSchema {
  const found = set[name];
  if (!found) throw new Error(`no schema ${name}`);
  return found;
}

function props(s: JsonSchema): Record<string, JsonSchema> {
  return s.properties ?? {};
}

describe('time-tracking schemas', () => {
  it('has the read, input, list, query, parameter, coded-value and Problem schemas, sorted by name', () => {
    expect(Object.keys(schemas)).toEqual([
      'AccountSetting', 'AccountSettingList', 'AccountSettingSelection', 'AccountSettingSelectionList', 'AccountSettingsListQuery', 'ChangeSet',
      'Client', 'ClientCreate', 'ClientList', 'ClientSelection', 'ClientSelectionList', 'ClientUpdate', 'ClientsListQuery',
      'GetChangesDigestParameters', 'Problem',
      'Project', 'ProjectCreate', 'ProjectList', 'ProjectSelection', 'ProjectSelectionList', 'ProjectUpdate', 'ProjectsListQuery',
      'StartStopWatchParameters',
      'Task', 'TaskCreate', 'TaskList', 'TaskSelection', 'TaskSelectionList', 'TaskUpdate', 'TasksListQuery',
      'TimeEntriesListQuery', 'TimeEntry', 'TimeEntryCreate', 'TimeEntryList', 'TimeEntrySelection', 'TimeEntrySelectionList', 'TimeEntryTypeId', 'TimeEntryUpdate',
      'User', 'UserAccessRights', 'UserList', 'UserSelection', 'UserSelectionList', 'UsersListQuery',
    ]);
  });

  it('requires on create only what has no default, is not nullable and is not filled by the service', () => {
    expect(schema(schemas, 'ProjectCreate').required).toEqual(['name']);
    expect(schema(schemas, 'TimeEntryCreate').required).toEqual(['projectId', 'startTime']);
    expect(Object.keys(props(schema(schemas, 'ProjectCreate')))).not.toContain('id');
    expect(Object.keys(props(schema(schemas, 'TimeEntryCreate')))).not.toContain('durationSeconds');
    expect(schema(schemas, 'ProjectCreate').additionalProperties).toBe(false);
    expect(props(schema(schemas, 'ProjectCreate')).active?.default).toBe(false);
  });

  it('makes nothing required on update and keeps non-nullable properties non-null', () => {
    const update = schema(schemas, 'ProjectUpdate');
    expect(update.required).toBeUndefined();
    expect(update.additionalProperties).toBe(false);
    expect(props(update).active?.type).toBe('boolean');
    expect(props(update).comment?.type).toEqual(['string', 'null']);
  });

  it('reads every property as required, server-set ones read-only, navigation optional', () => {
    const project = schema(schemas, 'Project');
    expect(project.required).toContain('comment');
    expect(project.required).not.toContain('client');
    expect(props(project).id?.readOnly).toBe(true);
    expect(props(project).lastChangeTime).toMatchObject({ type: 'string', format: 'date-time', readOnly: true });
    expect(props(project).client?.anyOf).toEqual([{ $ref: '#/components/schemas/Client' }, { type: 'null' }]);
    expect(props(project).timeEntries).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/TimeEntry' } });
  });

  it('describes what a select returns: the read properties, none required, navigations to selections', () => {
    const project = schema(schemas, 'Project');
    const selection = schema(schemas, 'ProjectSelection');
    expect(selection.required).toBeUndefined();
    expect(selection.description).toContain('`select`');
    expect(Object.keys(props(selection))).toEqual(Object.keys(props(project)));
    expect(props(selection).name).toEqual(props(project).name);
    expect(props(selection).id?.readOnly).toBe(true);
    expect(props(selection).client?.anyOf).toEqual([{ $ref: '#/components/schemas/ClientSelection' }, { type: 'null' }]);
    expect(props(selection).timeEntries).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/TimeEntrySelection' } });
    expect(schema(schemas, 'ProjectSelectionList')).toMatchObject({
      required: ['items', 'next'],
      properties: { items: { type: 'array', items: { $ref: '#/components/schemas/ProjectSelection' } }, total: { type: 'integer' } },
    });
  });

  it('describes properties from their facets', () => {
    expect(props(schema(schemas, 'Project')).comment?.description).toBe('At most 1500 characters.');
    expect(props(schema(schemas, 'TimeEntry')).userId?.description).toContain('Filled in by the service when omitted on create.');
    expect(props(schema(schemas, 'Project')).id?.description).toBe('Key. Set by the service; read-only.');
  });

  it('gives coded values an enum with their names', () => {
    expect(schema(schemas, 'UserAccessRights')).toMatchObject({ type: 'integer', enum: [10, 20], 'x-enum-varnames': ['StandardUser', 'Administrator'] });
    expect(props(schema(schemas, 'User')).accessRights?.$ref).toBe('#/components/schemas/UserAccessRights');
    expect(props(schema(schemas, 'TimeEntryCreate')).typeId).toMatchObject({ $ref: '#/components/schemas/TimeEntryTypeId', default: 2 });
  });

  it('has no create or update input for read-only sets', () => {
    expect(schemas.UserCreate).toBeUndefined();
    expect(schemas.AccountSettingUpdate).toBeUndefined();
  });

  it('has list query parameters: equality per filterable property plus the list options', () => {
    const query = schema(schemas, 'ProjectsListQuery');
    expect(Object.keys(props(query))).toEqual(expect.arrayContaining(['name', 'clientId', 'filter', 'orderBy', 'select', 'expand', 'limit', 'cursor', 'count']));
    expect(Object.keys(props(query))).not.toContain('assignedUsers');
    expect(props(query).limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 100 });
    expect(Object.keys(props(schema(schemas, 'AccountSettingsListQuery')))).not.toContain('expand');
  });

  it('has function parameters, required when not nullable', () => {
    expect(schema(schemas, 'StartStopWatchParameters').required).toEqual(['projectId']);
    expect(schema(schemas, 'GetChangesDigestParameters').required).toEqual(['lastSynchronizationTime']);
    expect(buildSchemaSet(timeTracking).queryStringSchemas).toContain('GetChangesDigestParameters');
    expect(buildSchemaSet(timeTracking).queryStringSchemas).not.toContain('StartStopWatchParameters');
  });

  it('has the RFC 9457 Problem', () => {
    expect(schema(schemas, 'Problem').required).toEqual(['type', 'title', 'status']);
    expect(Object.keys(props(schema(schemas, 'Problem')))).toEqual(['type', 'title', 'status', 'detail', 'instance', 'code', 'errors']);
  });
});

describe('Northwind schemas', () => {
  it('names schemas in PascalCase and keys a composite key on create', () => {
    expect(nw.OrderDetailCreate?.required).toEqual(['orderId', 'productId', 'unitPrice']);
    expect(nw.OrderDetailsListQuery).toBeDefined();
    expect(nw.ShipmentSummary).toBeDefined();
  });

  it('maps every Edm type to its REST JSON shape', () => {
    const shipment = props(schema(nw, 'Shipment'));
    expect(shipment.shipmentId).toMatchObject({ type: 'string', format: 'uuid' });
    expect(shipment.trackingNumber).toMatchObject({ type: ['string', 'null'], pattern: '^-?[0-9]{1,19}$' });
    expect(shipment.shippedAt).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
    expect(shipment.weightKg?.type).toEqual(['number', 'null']);
    expect(shipment.packageCount).toMatchObject({ type: 'integer', minimum: 0, maximum: 255 });
    expect(shipment.label).toMatchObject({ contentEncoding: 'base64' });
    expect(props(schema(nw, 'Order')).preferredDeliveryTime).toMatchObject({ format: 'duration' });
    expect(props(schema(nw, 'OrderCreate')).rowVersion?.default).toBe('0');
  });

  it('lets a Decimal pattern respect Precision and Scale', () => {
    const pattern = props(schema(nw, 'Product')).unitPrice?.pattern ?? '';
    const matches = (text: string): boolean => new RegExp(pattern).test(text);
    expect([matches('12'), matches('-12.5'), matches('123456789012345.1234')]).toEqual([true, true, true]);
    expect([matches('1.23456'), matches('1234567890123456'), matches('1e5'), matches('12.')]).toEqual([false, false, false, false]);
  });
});
