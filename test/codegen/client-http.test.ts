// The generated client on the wire: a real HTTP server records what the client sends and
// answers as the REST face would.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { emitClient } from '../../codegen/emit-client.js';

interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

const recorded: Recorded[] = [];
const replies = new Map<string, Reply>();
let baseUrl = '';
const dirs: string[] = [];

const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    const url = request.url ?? '';
    recorded.push({ method: request.method ?? '', url, headers: request.headers, body });
    const reply = replies.get(`${request.method} ${url}`) ?? {
      status: 404,
      headers: { 'content-type': 'application/problem+json' },
      body: { type: 'about:blank', title: 'Not Found', status: 404, detail: `no reply for ${request.method} ${url}` },
    };
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
  });
});

/** The generated client module of a model, loaded from a fresh directory. */
async function loadClient(edmx: string): Promise<Record<string, unknown>> {
  const tmpRoot = path.resolve('test/codegen/.tmp');
  mkdirSync(tmpRoot, { recursive: true });
  const dir = mkdtempSync(path.join(tmpRoot, 'client-http-'));
  dirs.push(dir);
  const [file] = await emitClient(readEdmx(readFileSync(edmx, 'utf8')));
  if (!file) throw new Error('emitClient produced no file');
  writeFileSync(path.join(dir, file.path), file.contents);
  return (await import(pathToFileURL(path.join(dir, file.path)).href)) as Record<string, unknown>;
}

// The generated module is loaded at run time; these are the shapes the tests call.
interface Page {
  items: { id: number }[];
  next: string | null;
}
interface TimeTrackingClient {
  projects: {
    list(query?: object): Promise<Page>;
    pages(query?: object): AsyncGenerator<Page>;
    get(key: number, options?: object): Promise<{ id: number } | null>;
    update(key: number, patch: object, options?: object): Promise<{ id: number }>;
    delete(key: number, options?: object): Promise<void>;
    timeEntries(key: number, query?: object): Promise<Page>;
    client(key: number, options?: object): Promise<{ id: number }>;
  };
  timeEntries: {
    createAll(items: object[]): Promise<{ id: number }[]>;
  };
  startStopWatch(params: object): Promise<{ id: number }>;
  getChangesDigest(params: object): Promise<{ totalClients: number }>;
}
type CreateClient<C> = (options: { baseUrl: string; apiKey?: string; auth?: string; headers?: Record<string, string> }) => C;
interface ProblemErrorLike {
  name: string;
  index?: number;
  status: number;
  problem: { title: string; status: number; detail?: string };
}

let timeTracking: Record<string, unknown>;
let tt: TimeTrackingClient;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  timeTracking = await loadClient('spec/timetracking.edmx');
  tt = (timeTracking.createClient as CreateClient<TimeTrackingClient>)({ baseUrl: `${baseUrl}/`, apiKey: 'secret' });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function lastRequest(): Recorded {
  const last = recorded.at(-1);
  if (!last) throw new Error('no request was sent');
  return last;
}

describe('the generated client over HTTP', () => {
  it('lists with equality filters and options in the query string and the key in X-ServiceApiKey', async () => {
    replies.set('GET /api/v1/projects?clientId=7&active=true&limit=2', { status: 200, body: { items: [{ id: 1 }], next: null } });
    const page = await tt.projects.list({ clientId: 7, active: true, limit: 2, cursor: undefined });
    expect(page.items).toEqual([{ id: 1 }]);
    expect(lastRequest().headers['x-serviceapikey']).toBe('secret');
    expect(lastRequest().headers.accept).toBe('application/json');
  });

  it('follows next through every page', async () => {
    replies.set('GET /api/v1/projects?limit=1', { status: 200, body: { items: [{ id: 1 }], next: '/api/v1/projects?limit=1&cursor=abc' } });
    replies.set('GET /api/v1/projects?limit=1&cursor=abc', { status: 200, body: { items: [{ id: 2 }], next: null } });
    const ids: number[] = [];
    for await (const page of tt.projects.pages({ limit: 1 })) ids.push(...page.items.map((i) => i.id));
    expect(ids).toEqual([1, 2]);
  });

  it('remembers the ETag of a read and sends it back as If-Match on update and delete', async () => {
    replies.set('GET /api/v1/projects/7', { status: 200, headers: { etag: '"v1"' }, body: { id: 7 } });
    replies.set('PATCH /api/v1/projects/7', { status: 200, headers: { etag: '"v2"' }, body: { id: 7 } });
    replies.set('DELETE /api/v1/projects/7', { status: 204 });
    const etagOf = timeTracking.etagOf as (resource: object) => string | undefined;
    const project = await tt.projects.get(7);
    expect(project && etagOf(project)).toBe('"v1"');
    const updated = await tt.projects.update(7, { comment: null }, { ifMatch: '"v1"' });
    expect(etagOf(updated)).toBe('"v2"');
    const patch = lastRequest();
    expect(patch.headers['content-type']).toBe('application/merge-patch+json');
    expect(patch.headers['if-match']).toBe('"v1"');
    expect(JSON.parse(patch.body)).toEqual({ comment: null });
    await expect(tt.projects.delete(7, { ifMatch: '"v2"' })).resolves.toBeUndefined();
    expect(lastRequest().headers['if-match']).toBe('"v2"');
  });

  it('resolves a conditional read to null on 304 Not Modified', async () => {
    replies.set('GET /api/v1/projects/8:select?select=name', { status: 304 });
    await expect(tt.projects.get(8, { select: 'name', ifNoneMatch: '"v1"' })).resolves.toBeNull();
    expect(lastRequest().headers['if-none-match']).toBe('"v1"');
  });

  it('sends reads with select to their :select twins, and reads without to the plain paths', async () => {
    replies.set('GET /api/v1/projects:select?select=id&limit=1', { status: 200, body: { items: [{ id: 1 }], next: '/api/v1/projects:select?cursor=c2' } });
    replies.set('GET /api/v1/projects:select?cursor=c2', { status: 200, body: { items: [{ id: 2 }], next: null } });
    const ids: number[] = [];
    for await (const page of tt.projects.pages({ select: 'id', limit: 1 })) ids.push(...page.items.map((i) => i.id));
    expect(ids).toEqual([1, 2]);
    replies.set('GET /api/v1/projects/7:select?select=name%2Cclient%2Fname&expand=client', { status: 200, body: { name: 'Website', client: { name: 'ACME' } } });
    await expect(tt.projects.get(7, { select: 'name,client/name', expand: 'client' })).resolves.toEqual({ name: 'Website', client: { name: 'ACME' } });
    replies.set('GET /api/v1/projects/7/time-entries:select?select=id', { status: 200, body: { items: [{ id: 3 }], next: null } });
    await expect(tt.projects.timeEntries(7, { select: 'id' })).resolves.toEqual({ items: [{ id: 3 }], next: null });
    replies.set('GET /api/v1/projects/7/client:select?select=id', { status: 200, body: { id: 4 } });
    await expect(tt.projects.client(7, { select: 'id' })).resolves.toEqual({ id: 4 });
    replies.set('GET /api/v1/projects/7/client', { status: 200, body: { id: 4, name: 'ACME' } });
    await expect(tt.projects.client(7)).resolves.toEqual({ id: 4, name: 'ACME' });
    replies.set('GET /api/v1/projects?limit=1', { status: 200, body: { items: [{ id: 1 }], next: null } });
    await tt.projects.list({ limit: 1, select: undefined });
    expect(lastRequest().url).toBe('/api/v1/projects?limit=1');
  });

  it('bulk-creates with one POST to :batch and names the refused item by its index', async () => {
    const items = [{ projectId: 1, startTime: '2026-11-22T09:00:00Z' }, { projectId: 1, startTime: '2026-11-23T09:00:00Z' }];
    replies.set('POST /api/v1/time-entries:batch', { status: 201, body: { items: [{ id: 11 }, { id: 12 }] } });
    await expect(tt.timeEntries.createAll(items)).resolves.toEqual([{ id: 11 }, { id: 12 }]);
    expect(JSON.parse(lastRequest().body)).toEqual(items);
    const problem = (status: number, pointer?: string) => ({
      status,
      headers: { 'content-type': 'application/problem+json' },
      body: { type: 'about:blank', title: 'Refused', status, detail: 'refused', ...(pointer ? { errors: [{ pointer, detail: 'bad' }] } : {}) },
    });
    const BatchItemError = timeTracking.BatchItemError as new (...args: never[]) => ProblemErrorLike;
    const ProblemError = timeTracking.ProblemError as new (...args: never[]) => ProblemErrorLike;
    for (const [status, pointer, index] of [[409, '/1', 1], [422, '/1/startTime', 1], [422, '/10/endTime', 10]] as const) {
      replies.set('POST /api/v1/time-entries:batch', problem(status, pointer));
      const error = await tt.timeEntries.createAll(items).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BatchItemError);
      expect(error).toBeInstanceOf(ProblemError);
      expect(error).toMatchObject({ name: 'BatchItemError', status, index, problem: { errors: [{ pointer }] } });
    }
    // A problem that names no item (no key, too many, a malformed pointer) is a plain ProblemError.
    for (const [status, pointer] of [[401, undefined], [413, undefined], [422, '/startTime'], [422, '/x1']] as const) {
      replies.set('POST /api/v1/time-entries:batch', problem(status, pointer));
      const error = (await tt.timeEntries.createAll(items).catch((e: unknown) => e)) as ProblemErrorLike;
      expect(error).toBeInstanceOf(ProblemError);
      expect(error).not.toBeInstanceOf(BatchItemError);
      expect(error.status).toBe(status);
    }
  });

  it('throws a ProblemError carrying the status and the problem document', async () => {
    replies.set('GET /api/v1/projects/9', {
      status: 404,
      headers: { 'content-type': 'application/problem+json' },
      body: { type: 'about:blank', title: 'Not Found', status: 404, detail: 'Project 9 does not exist.' },
    });
    const ProblemError = timeTracking.ProblemError as new (...args: never[]) => ProblemErrorLike;
    const error = await tt.projects.get(9).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 404, message: 'Project 9 does not exist.', problem: { title: 'Not Found', status: 404 } });
  });

  it('gives a ProblemError for an error answer that is no problem document', async () => {
    replies.set('GET /api/v1/projects/10', { status: 502, headers: { 'content-type': 'text/plain' } });
    const error = (await tt.projects.get(10).catch((e: unknown) => e)) as ProblemErrorLike;
    expect(error.status).toBe(502);
    expect(error.problem).toMatchObject({ status: 502, title: expect.any(String) });
  });

  it('navigates to related lists and calls service operations: POST with a JSON body, GET with a query', async () => {
    replies.set('GET /api/v1/projects/7/time-entries?billable=false', { status: 200, body: { items: [], next: null } });
    await expect(tt.projects.timeEntries(7, { billable: false })).resolves.toEqual({ items: [], next: null });
    replies.set('POST /api/v1/stopwatch', { status: 200, body: { id: 99 } });
    await expect(tt.startStopWatch({ projectId: 7, comment: 'standup' })).resolves.toEqual({ id: 99 });
    expect(lastRequest().headers['content-type']).toBe('application/json');
    expect(JSON.parse(lastRequest().body)).toEqual({ projectId: 7, comment: 'standup' });
    replies.set('GET /api/v1/changes-digest?lastSynchronizationTime=2026-11-22T09%3A00%3A00Z', { status: 200, body: { totalClients: 3 } });
    await expect(tt.getChangesDigest({ lastSynchronizationTime: '2026-11-22T09:00:00Z' })).resolves.toEqual({ totalClients: 3 });
  });

  it('sends the key as a bearer token or a basic-auth password when asked', async () => {
    replies.set('GET /api/v1/projects', { status: 200, body: { items: [], next: null } });
    const create = timeTracking.createClient as CreateClient<TimeTrackingClient>;
    await create({ baseUrl, apiKey: 'k1', auth: 'bearer' }).projects.list();
    expect(lastRequest().headers.authorization).toBe('Bearer k1');
    expect(lastRequest().headers['x-serviceapikey']).toBeUndefined();
    await create({ baseUrl, apiKey: 'k2', auth: 'basic', headers: { 'X-Trace': 't', Accept: 'application/json;q=1' } }).projects.list();
    expect(lastRequest().headers.accept).toBe('application/json;q=1');
    const basic = String(lastRequest().headers.authorization);
    expect(Buffer.from(basic.replace('Basic ', ''), 'base64').toString().split(':')[1]).toBe('k2');
    expect(lastRequest().headers['x-trace']).toBe('t');
  });

  it('addresses a composite key with one encoded path segment per key property (Northwind)', async () => {
    const northwind = await loadClient('test/fixtures/northwind/northwind.edmx');
    const create = northwind.createClient as CreateClient<{
      orderDetails: { get(key: { orderId: number; productId: number }, options?: object): Promise<unknown> };
      shipments: { get(key: string): Promise<unknown> };
    }>;
    const client = create({ baseUrl });
    replies.set('GET /api/v1/order-details/10248/11', { status: 200, body: { orderId: 10248, productId: 11 } });
    await expect(client.orderDetails.get({ orderId: 10248, productId: 11 })).resolves.toEqual({ orderId: 10248, productId: 11 });
    replies.set('GET /api/v1/order-details/10248/11:select?select=quantity', { status: 200, body: { quantity: 3 } });
    await expect(client.orderDetails.get({ orderId: 10248, productId: 11 }, { select: 'quantity' })).resolves.toEqual({ quantity: 3 });
    replies.set('GET /api/v1/shipments/a%2Fb', { status: 200, body: { shipmentId: 'a/b' } });
    await expect(client.shipments.get('a/b')).resolves.toEqual({ shipmentId: 'a/b' });
  });
});
