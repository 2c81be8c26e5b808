// The REST contract as a user of openapi.json meets it: paths, operations, parameters,
// shapes and errors, for the time-tracking model and the unrelated Northwind fixture.
import { readFileSync } from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { buildOpenApiDocument } from '../../codegen/emit-openapi.js';

type Doc = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject;
type Parameter = OpenAPIV3_1.ParameterObject;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

function documentOf(edmx: string): Doc {
  return buildOpenApiDocument(readEdmx(readFileSync(edmx, 'utf8')));
}

const timeTracking = documentOf('spec/timetracking.edmx');
const northwind = documentOf('test/fixtures/northwind/northwind.edmx');

function methodsOf(doc: Doc, path: string): string[] {
  const item = doc.paths?.[path];
  if (!item) throw new Error(`no path ${path}`);
  return METHODS.filter((m) => item[m] !== undefined);
}

function operation(doc: Doc, path: string, method: (typeof METHODS)[number]): Operation {
  const op = doc.paths?.[path]?.[method];
  if (!op) throw new Error(`no ${method} ${path}`);
  return op;
}

/** Parameters with shared ones ($ref to components.parameters) resolved. */
function parametersOf(doc: Doc, op: Operation): Parameter[] {
  return (op.parameters ?? []).map((p) => {
    if (!('$ref' in p)) return p;
    const resolved = doc.components?.parameters?.[p.$ref.replace('#/components/parameters/', '')];
    if (!resolved || '$ref' in resolved) throw new Error(`unresolved ${p.$ref}`);
    return resolved;
  });
}

function allOperations(doc: Doc): [string, string, Operation][] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((m) => (item?.[m] ? [[path, m, item[m]] as [string, string, Operation]] : [])),
  );
}

function schema(doc: Doc, name: string): OpenAPIV3_1.SchemaObject {
  const s = doc.components?.schemas?.[name];
  if (!s) throw new Error(`no schema ${name}`);
  return s;
}

describe('openapi.json of the time-tracking model', () => {
  it('describes the REST face under /api/v1, titled after the entity container, with a license', () => {
    expect(timeTracking.openapi).toBe('3.1.0');
    expect(timeTracking.servers).toEqual([{ url: '/api/v1', description: expect.any(String) }]);
    expect(timeTracking.info.title).toBe('Time Tracking Service REST API');
    expect(timeTracking.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it('lists projects with one typed equality parameter per filterable property plus the list options', () => {
    const params = parametersOf(timeTracking, operation(timeTracking, '/projects', 'get'));
    const byName = new Map(params.map((p) => [p.name, p]));
    expect(byName.get('clientId')).toMatchObject({ in: 'query', schema: { type: 'integer' } });
    expect(byName.get('active')).toMatchObject({ in: 'query', schema: { type: 'boolean' } });
    expect(byName.get('hourlyRate')).toMatchObject({ in: 'query', schema: { type: 'string' } });
    // not filterable in the model: no equality parameter
    expect(byName.has('assignedUsers')).toBe(false);
    expect(byName.has('assignedToCurrentUser')).toBe(false);
    for (const option of ['filter', 'orderBy', 'expand', 'limit', 'cursor', 'count']) {
      expect(byName.get(option)?.in).toBe('query');
    }
    // `select` narrows the answer, so it has an operation of its own: GET /projects:select.
    expect(byName.has('select')).toBe(false);
    const selecting = parametersOf(timeTracking, operation(timeTracking, '/projects:select', 'get'));
    expect(selecting.map((p) => p.name)).toEqual([...params.map((p) => p.name).slice(0, -4), 'select', 'expand', 'limit', 'cursor', 'count']);
    // optional: the pages after the first carry it in their cursor
    expect(selecting.find((p) => p.name === 'select')?.required).toBeUndefined();
    expect(byName.get('limit')?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 100 });
    expect(byName.get('count')?.schema).toMatchObject({ type: 'boolean' });
    expect(operation(timeTracking, '/projects', 'get').operationId).toBe('listProjects');
  });

  it('answers a list with the page shape { items, next, total? }', () => {
    expect(operation(timeTracking, '/time-entries', 'get').responses?.['200']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/TimeEntryList' } } },
    });
    expect(operation(timeTracking, '/time-entries:select', 'get')).toMatchObject({
      operationId: 'listTimeEntriesSelection',
      responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/TimeEntrySelectionList' } } } } },
    });
    expect(schema(timeTracking, 'TimeEntryList')).toMatchObject({
      required: ['items', 'next'],
      properties: { next: { type: ['string', 'null'] }, total: { type: 'integer' } },
    });
  });

  it('offers GET, PATCH and DELETE on a time entry, with ETag and conditional headers', () => {
    expect(methodsOf(timeTracking, '/time-entries/{id}')).toEqual(['get', 'delete', 'patch']);
    const get = operation(timeTracking, '/time-entries/{id}', 'get');
    expect(get.operationId).toBe('getTimeEntry');
    expect(parametersOf(timeTracking, get).map((p) => `${p.in}:${p.name}`)).toEqual(['path:id', 'query:expand', 'header:If-None-Match']);
    expect(get.responses?.['200']).toMatchObject({ headers: { ETag: { $ref: '#/components/headers/ETag' } } });
    // A get answers the whole entity, every property required; `select` is the `:select` twin's,
    // whose answer requires nothing: one schema per response, as generators type it.
    expect(get.responses?.['200']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/TimeEntry' } } } });
    expect(schema(timeTracking, 'TimeEntry').required).toContain('comment');
    const selecting = operation(timeTracking, '/time-entries/{id}:select', 'get');
    expect(selecting.operationId).toBe('getTimeEntrySelection');
    expect(parametersOf(timeTracking, selecting).map((p) => `${p.in}:${p.name}:${String(p.required ?? false)}`)).toEqual([
      'path:id:true',
      'query:select:true',
      'query:expand:false',
      'header:If-None-Match:false',
    ]);
    expect(selecting.responses?.['200']).toMatchObject({
      headers: { ETag: { $ref: '#/components/headers/ETag' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/TimeEntrySelection' } } },
    });
    expect(schema(timeTracking, 'TimeEntrySelection').required).toBeUndefined();
    // Writes answer the full entity, which `select` does not apply to.
    expect(operation(timeTracking, '/time-entries/{id}', 'patch').responses?.['200']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/TimeEntry' } } },
    });
    expect(get.responses?.['304']).toBeDefined();
    const patch = operation(timeTracking, '/time-entries/{id}', 'patch');
    expect(Object.keys((patch.requestBody as OpenAPIV3_1.RequestBodyObject).content)).toEqual([
      'application/merge-patch+json',
      'application/json',
    ]);
    expect(parametersOf(timeTracking, patch).map((p) => p.name)).toContain('If-Match');
    expect(patch.responses?.['412']).toEqual({ $ref: '#/components/responses/PreconditionFailed' });
    const del = operation(timeTracking, '/time-entries/{id}', 'delete');
    expect(Object.keys(del.responses ?? {})).toContain('204');
    expect(del.responses?.['412']).toBeDefined();
  });

  it('creates with POST: <Type>Create body, 201 with Location and ETag', () => {
    const post = operation(timeTracking, '/projects', 'post');
    expect(post.operationId).toBe('createProject');
    expect(post.requestBody).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/ProjectCreate' } } } });
    expect(post.responses?.['201']).toMatchObject({
      headers: { Location: { $ref: '#/components/headers/Location' }, ETag: { $ref: '#/components/headers/ETag' } },
    });
  });

  it('offers only what the set capabilities allow: users and account settings are read-only', () => {
    expect(methodsOf(timeTracking, '/users')).toEqual(['get']);
    expect(methodsOf(timeTracking, '/users/{id}')).toEqual(['get']);
    expect(methodsOf(timeTracking, '/account-settings')).toEqual(['get']);
    expect(methodsOf(timeTracking, '/account-settings/{id}')).toEqual(['get']);
  });

  it('exposes navigation to-one and to-many as sub-resources', () => {
    expect(operation(timeTracking, '/projects/{id}/client', 'get')).toMatchObject({
      operationId: 'getProjectClient',
      responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Client' } } } } },
    });
    expect(operation(timeTracking, '/projects/{id}/client:select', 'get')).toMatchObject({
      operationId: 'getProjectClientSelection',
      responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/ClientSelection' } } } } },
    });
    expect(operation(timeTracking, '/projects/{id}/time-entries:select', 'get').operationId).toBe('listProjectTimeEntriesSelection');
    const entries = operation(timeTracking, '/projects/{id}/time-entries', 'get');
    expect(entries.operationId).toBe('listProjectTimeEntries');
    expect(parametersOf(timeTracking, entries).map((p) => p.name)).toEqual(expect.arrayContaining(['id', 'projectId', 'cursor']));
    expect(entries.responses?.['404']).toEqual({ $ref: '#/components/responses/NotFound' });
  });

  it('makes the stopwatch a resource: GET and POST /stopwatch, POST /stopwatch/halt; the digest a GET', () => {
    expect(methodsOf(timeTracking, '/stopwatch')).toEqual(['get', 'post']);
    expect(methodsOf(timeTracking, '/stopwatch/halt')).toEqual(['post']);
    const start = operation(timeTracking, '/stopwatch', 'post');
    expect(start).toMatchObject({
      operationId: 'startStopWatch',
      tags: ['Stopwatch'],
      requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/StartStopWatchParameters' } } } },
      responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/TimeEntry' } } } } },
    });
    expect(operation(timeTracking, '/stopwatch', 'get')).toMatchObject({ operationId: 'currentStopWatch', responses: { '404': {} } });
    expect(operation(timeTracking, '/stopwatch/halt', 'post').operationId).toBe('haltStopWatch');
    const digest = operation(timeTracking, '/changes-digest', 'get');
    expect(digest).toMatchObject({ operationId: 'getChangesDigest', tags: ['ChangesDigest'] });
    expect(parametersOf(timeTracking, digest)).toEqual([
      expect.objectContaining({ name: 'lastSynchronizationTime', in: 'query', required: true, schema: expect.objectContaining({ format: 'date-time' }) }),
    ]);
  });

  it('has a tag with a description for every entity set and function group, and uses no other', () => {
    const tags = timeTracking.tags ?? [];
    expect(tags.map((t) => t.name)).toEqual(['Projects', 'Clients', 'Tasks', 'TimeEntries', 'Users', 'AccountSettings', 'Stopwatch', 'ChangesDigest']);
    for (const tag of tags) expect(tag.description).toBeTruthy();
    const used = new Set(allOperations(timeTracking).flatMap(([, , op]) => op.tags ?? []));
    expect([...used].sort()).toEqual(tags.map((t) => t.name).sort());
  });

  it('types Decimal as a string and coded values as an enum with x-enum-varnames', () => {
    const project = schema(timeTracking, 'Project');
    expect(project.properties?.hourlyRate).toMatchObject({ type: ['string', 'null'], pattern: expect.any(String) });
    expect(schema(timeTracking, 'UserAccessRights')).toMatchObject({ enum: [10, 20], 'x-enum-varnames': ['StandardUser', 'Administrator'] });
    const accessRights = parametersOf(timeTracking, operation(timeTracking, '/users', 'get')).find((p) => p.name === 'accessRights');
    expect(accessRights?.schema).toEqual({ $ref: '#/components/schemas/UserAccessRights' });
  });

  it('accepts any of the four key forms, the header by default, but no query-string key for writes', () => {
    expect(Object.keys(timeTracking.components?.securitySchemes ?? {})).toEqual(['apiKeyHeader', 'bearerAuth', 'basicAuth', 'apiKeyQuery']);
    expect(timeTracking.components?.securitySchemes?.apiKeyHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-ServiceApiKey' });
    expect(timeTracking.security).toEqual([{ apiKeyHeader: [] }, { bearerAuth: [] }, { basicAuth: [] }]);
    for (const [path, method, op] of allOperations(timeTracking)) {
      const requirements = op.security ?? timeTracking.security ?? [];
      expect(requirements[0], `${method} ${path}`).toEqual({ apiKeyHeader: [] });
      expect(requirements.some((r) => 'apiKeyQuery' in r), `${method} ${path}`).toBe(method === 'get');
    }
  });

  it('documents the headers the gateway sends: request id and rate limits on every answer, cache status on cached reads', () => {
    const answerHeaders = ['X-Request-Id', 'RateLimit-Policy', 'RateLimit'];
    const headersOf = (response: OpenAPIV3_1.ResponseObject | OpenAPIV3_1.ReferenceObject | undefined): string[] => {
      const resolved = response !== undefined && '$ref' in response ? timeTracking.components?.responses?.[response.$ref.split('/').pop() as string] : response;
      return Object.keys((resolved as OpenAPIV3_1.ResponseObject | undefined)?.headers ?? {});
    };
    for (const [path, method, op] of allOperations(timeTracking)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        expect(headersOf(response), `${method} ${path} ${status}`).toEqual(expect.arrayContaining(answerHeaders));
      }
    }
    expect(headersOf(operation(timeTracking, '/projects', 'get').responses?.['200'])).toEqual([...answerHeaders, 'Cache-Status', 'X-Cache', 'Age']);
    expect(headersOf(operation(timeTracking, '/projects', 'post').responses?.['201'])).toEqual(['Location', 'ETag', ...answerHeaders]);
    expect(headersOf(timeTracking.components?.responses?.TooManyRequests)).toContain('Retry-After');
    expect(timeTracking.components?.headers?.RateLimitPolicy).toMatchObject({ schema: { type: 'string' }, example: '"read";q=100;w=60' });
  });

  it('gives examples that fit their schemas, and keeps no schema no operation uses', () => {
    const project = schema(timeTracking, 'Project').properties ?? {};
    expect(project.name).toMatchObject({ examples: ['Name'] });
    expect(project.hourlyRate).toMatchObject({ examples: ['95.50'] });
    expect(project.lastChangeTime).toMatchObject({ examples: ['2026-11-22T09:00:00+01:00'] });
    expect(schema(timeTracking, 'Problem').examples).toEqual([expect.objectContaining({ status: 404 })]);
    const names = Object.keys(timeTracking.components?.schemas ?? {});
    expect(names.filter((name) => name.endsWith('ListQuery'))).toEqual([]);
    const text = JSON.stringify({ paths: timeTracking.paths, components: { ...timeTracking.components, schemas: undefined } });
    const referenced = (name: string) => text.includes(`"#/components/schemas/${name}"`) || names.some((other) => other !== name && JSON.stringify(schema(timeTracking, other)).includes(`"#/components/schemas/${name}"`));
    expect(names.filter((name) => !referenced(name))).toEqual([]);
  });
});

describe.each([
  ['time tracking', timeTracking],
  ['Northwind', northwind],
])('every operation of the %s document', (_name, doc) => {
  it('has a unique operationId, a summary and a description', () => {
    const operations = allOperations(doc);
    const ids = operations.map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, method, op] of operations) {
      expect(op.summary, `${method} ${path}`).toBeTruthy();
      expect(op.description, `${method} ${path}`).toBeTruthy();
    }
  });

  it('documents 4xx errors as RFC 9457 problem documents', () => {
    for (const [path, method, op] of allOperations(doc)) {
      const problems = Object.entries(op.responses ?? {}).filter(([status]) => /^4/.test(status));
      expect(problems.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const [, response] of problems) {
        const ref = '$ref' in response ? response.$ref : '';
        const resolved = doc.components?.responses?.[ref.replace('#/components/responses/', '')];
        expect(resolved, `${method} ${path} ${ref}`).toMatchObject({
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        });
      }
    }
    expect(schema(doc, 'Problem')).toMatchObject({ required: ['type', 'title', 'status'] });
  });
});

describe('openapi.json of the Northwind fixture', () => {
  it('addresses a composite key with one path segment per key property, in key order', () => {
    expect(methodsOf(northwind, '/order-details/{orderId}/{productId}')).toEqual(['get', 'delete', 'patch']);
    const get = operation(northwind, '/order-details/{orderId}/{productId}', 'get');
    expect(get.operationId).toBe('getOrderDetail');
    expect(parametersOf(northwind, get).filter((p) => p.in === 'path').map((p) => p.name)).toEqual(['orderId', 'productId']);
    expect(operation(northwind, '/order-details', 'get').operationId).toBe('listOrderDetails');
    expect(operation(northwind, '/order-details/{orderId}/{productId}/product', 'get').operationId).toBe('getOrderDetailProduct');
  });

  it('keeps Decimal, Int64 and Guid values as strings, also in key and query parameters', () => {
    expect(schema(northwind, 'OrderDetail').properties?.unitPrice).toMatchObject({ type: 'string', pattern: expect.any(String) });
    const shipmentKey = parametersOf(northwind, operation(northwind, '/shipments/{shipmentId}', 'get')).find((p) => p.in === 'path');
    expect(shipmentKey?.schema).toMatchObject({ type: 'string', format: 'uuid' });
    const tracking = parametersOf(northwind, operation(northwind, '/shipments', 'get')).find((p) => p.name === 'trackingNumber');
    expect(tracking?.schema).toMatchObject({ type: 'string', pattern: '^-?[0-9]{1,19}$' });
  });

  it('maps function imports without tg:rest to their HTTP method and a kebab-case path', () => {
    expect(operation(northwind, '/get-products-above-price', 'get')).toMatchObject({
      operationId: 'getProductsAbovePrice',
      responses: { '200': { content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Product' } } } } } },
    });
    expect(operation(northwind, '/discontinue-product', 'post').requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/DiscontinueProductParameters' } } },
    });
  });
});
