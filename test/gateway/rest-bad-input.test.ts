// Bad input never reaches the upstream: each case is a problem+json 4xx naming what is wrong
// (every failing field with a JSON pointer), and the service's request counter does not move.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabaseKind } from '../helpers/databases.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestGateway } from '../helpers/gateway.js';
import { artefactsOf, startTestGateway } from '../helpers/gateway.js';
import { ODataClient } from '../helpers/odata-client.js';
import { otherAccount } from '../helpers/odata-payloads.js';
import { RestContract } from './rest-contract.js';
import { restClient } from './rest-fixture.js';

const BODY_LIMIT = 4096;

describe.each(testDatabases)('REST face refuses bad input before the upstream on $name', (kind: TestDatabaseKind) => {
  let t: TestGateway;
  let contract: RestContract;
  let rest: ReturnType<typeof restClient>;
  let key: string;

  beforeAll(async () => {
    t = await startTestGateway(kind, { features: [], config: { bodyLimitBytes: BODY_LIMIT } });
    contract = new RestContract((await artefactsOf()).openapi);
    rest = restClient(t);
    key = t.service.admin.apiKey;
  });
  afterAll(() => t?.close());

  /** Sends, expects a problem with `status`, and proves the upstream was not asked. */
  async function refused(send: () => Promise<Response>, status: number) {
    const before = t.service.requestCount();
    const problem = await contract.problem(await send(), status);
    expect(t.service.requestCount(), 'the upstream was called').toBe(before);
    return problem;
  }

  it('lists every invalid field of a body with its pointer: unknown, wrong type, too long, server-set', async () => {
    const problem = await refused(() => rest.post('/projects', key, { name: 'x'.repeat(51), active: 'yes', colour: 'red', id: 9, timeBudget: 1.5 }), 422);
    expect(problem.type).toBe('urn:timegate:problem:invalid-body');
    const pointers = (problem.errors ?? []).map((e) => e.pointer).sort();
    expect(pointers).toEqual(expect.arrayContaining(['/active', '/name', '/timeBudget']));
    expect(pointers.some((p) => p === '/colour' || p === '/id' || p === '')).toBe(true);
    expect(problem.errors?.find((e) => e.pointer === '/name')?.detail).toMatch(/50/);
    const missing = await refused(() => rest.post('/projects', key, { active: true }), 422);
    expect(missing.errors?.map((e) => e.pointer).join(' ')).toMatch(/name/);
    const update = await refused(() => rest.patch('/projects/1', key, { name: null, lastChangeTime: '2026-01-01T00:00:00Z' }), 422);
    expect(update.errors?.length).toBeGreaterThanOrEqual(1);
    const stopwatch = await refused(() => rest.post('/stopwatch', key, { projectId: 'one', comment: 'c'.repeat(1501) }), 422);
    expect(stopwatch.errors?.map((e) => e.pointer).sort()).toEqual(['/comment', '/projectId']);
    await refused(() => rest.post('/projects', key, '[1,2]'), 422);
  });

  it('refuses malformed JSON, wrong media types and oversized bodies', async () => {
    await refused(() => rest.post('/projects', key, '{"name": "unterminated', 'application/json'), 400);
    const text = await refused(() => rest.post('/projects', key, 'name=Website', 'text/plain'), 415);
    expect(text.type).toBe('urn:timegate:problem:unsupported-media-type');
    await refused(() => rest.post('/projects', key, '<entry/>', 'application/atom+xml'), 415);
    // A merge patch is for PATCH; a create reads plain JSON only.
    await refused(() => rest.post('/projects', key, { name: 'x' }, 'application/merge-patch+json'), 415);
    await refused(() => rest.patch('/projects/1', key, '<entry/>', {}, 'application/xml'), 415);
    const large = await refused(() => rest.post('/projects', key, { name: 'x', comment: 'y'.repeat(BODY_LIMIT) }), 413);
    expect(large.type).toBe('urn:timegate:problem:payload-too-large');
  });

  it('refuses bad query parameters: filters, orderBy, select, expand, limit, unknown names, repeated options', async () => {
    for (const filter of ["name eq 'unterminated", 'colour eq 1', "active eq 'yes'", 'name eq', 'id eq 1 or', `${'('.repeat(100)}id eq 1${')'.repeat(100)}`]) {
      const problem = await refused(() => rest.get(`/projects?filter=${encodeURIComponent(filter)}`, key), 400);
      expect(problem.errors?.[0]?.pointer).toBe('/filter');
    }
    expect((await refused(() => rest.get('/projects?orderBy=colour', key), 400)).errors?.[0]?.pointer).toBe('/orderBy');
    expect((await refused(() => rest.get('/projects?select=colour', key), 400)).errors?.[0]?.pointer).toBe('/select');
    expect((await refused(() => rest.get('/projects?expand=owner', key), 400)).errors?.[0]?.pointer).toBe('/expand');
    expect((await refused(() => rest.get('/projects/1?expand=owner', key), 400)).errors?.[0]?.pointer).toBe('/expand');
    expect((await refused(() => rest.get('/projects?limit=0', key), 400)).errors?.[0]?.pointer).toBe('/limit');
    expect((await refused(() => rest.get('/projects?limit=1001', key), 400)).errors?.[0]?.pointer).toBe('/limit');
    expect((await refused(() => rest.get('/projects?active=maybe&timeBudget=x', key), 400)).errors?.map((e) => e.pointer).sort()).toEqual(['/active', '/timeBudget']);
    await refused(() => rest.get('/projects?colour=red', key), 400);
    await refused(() => rest.get('/projects/1?limit=5', key), 400);
    await refused(() => rest.get('/changes-digest', key), 400);
    await refused(() => rest.get('/changes-digest?lastSynchronizationTime=yesterday', key), 400);
  });

  it('refuses cursors it did not write, changed ones, and ones of another list', async () => {
    const page = (await (await rest.get('/projects?limit=2', key)).json()) as { next: string };
    const cursor = new URL(page.next, t.origin).searchParams.get('cursor') as string;
    const [payload, mac] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), n: 1000 })).toString('base64url');
    for (const bad of ['garbage', `${payload}.AAAA`, `${forged}.${mac}`, cursor.slice(0, -2), '']) {
      const problem = await refused(() => rest.get(`/projects?cursor=${encodeURIComponent(bad)}`, key), 400);
      expect(problem.errors?.[0]?.pointer).toBe('/cursor');
    }
    const other = await refused(() => rest.get(`/clients?cursor=${encodeURIComponent(cursor)}`, key), 400);
    expect(other.detail).toMatch(/another list/);
    await refused(() => rest.get(`/projects?cursor=${encodeURIComponent(cursor)}&limit=5`, key), 400);
  });

  it('guards the `:select` reads as the plain ones: keys, another account\'s ids, bad selections, cursors of another list', async () => {
    const unauthenticated = await contract.problem(await rest.get('/projects/1:select?select=name', undefined), 401);
    expect(unauthenticated.status).toBe(401);
    await contract.problem(await rest.get('/projects:select?select=name', 'not-a-key'), 401);
    const other = await otherAccount(t.service, new ODataClient(t.service.root, key));
    for (const path of [`/projects/${other.projectId}:select?select=name`, `/projects/${other.projectId}/client:select?select=name`, `/time-entries/${other.timeEntryId}:select?select=id`]) {
      await contract.problem(await rest.get(path, key), 404);
    }
    const foreign = (await (await rest.get(`/projects:select?select=id&filter=${encodeURIComponent(`id eq ${other.projectId}`)}`, key)).json()) as { items: unknown[] };
    expect(foreign.items).toEqual([]);
    expect((await refused(() => rest.get('/projects/1:select', key), 400)).errors?.[0]?.pointer).toBe('/select');
    expect((await refused(() => rest.get('/projects/1:select?select=colour', key), 400)).errors?.[0]?.pointer).toBe('/select');
    expect((await refused(() => rest.get('/projects/1:select?select=name&select=id', key), 400)).errors?.[0]?.pointer).toBe('/select');
    expect((await refused(() => rest.get('/projects:select?select=colour', key), 400)).errors?.[0]?.pointer).toBe('/select');
    await refused(() => rest.get('/projects/1:select?select=name&limit=5', key), 400);
    await refused(() => rest.get('/projects/abc:select?select=name', key), 400);
    // A `:select` page's next link stays on `:select` and keeps the selection; a plain list's cursor is for that list only.
    const selected = (await (await rest.get('/projects:select?select=name&limit=1', key)).json()) as { next: string };
    expect(selected.next).toMatch(/^\/api\/v1\/projects:select\?cursor=/);
    const second = (await (await rest.get(selected.next, key)).json()) as { items: object[] };
    expect(second.items.map((item) => Object.keys(item))).toEqual([['name']]);
    const plain = (await (await rest.get('/projects?limit=1', key)).json()) as { next: string };
    const cursor = new URL(plain.next, t.origin).searchParams.get('cursor') as string;
    expect((await refused(() => rest.get(`/projects:select?cursor=${encodeURIComponent(cursor)}`, key), 400)).detail).toMatch(/another list/);
  });

  it('answers a method the model does not offer on an existing path with 405 and the allowed methods', async () => {
    for (const [method, path, allow, body] of [
      ['PUT', '/projects/1', 'GET, HEAD, PATCH, DELETE', { name: 'x' }],
      ['DELETE', '/users/1', 'GET, HEAD', undefined],
      ['POST', '/users', 'GET, HEAD', { name: 'x' }],
      ['PATCH', '/projects', 'GET, HEAD, POST', { name: 'x' }],
      ['DELETE', '/projects/1/client', 'GET, HEAD', undefined],
      ['PUT', '/stopwatch', 'GET, HEAD, POST', undefined],
      ['GET', '/stopwatch/halt', 'POST', undefined],
    ] as const) {
      let allowed: string | null = null;
      const problem = await refused(async () => {
        const response = await rest.request(method, path, key, body === undefined ? {} : { body });
        allowed = response.headers.get('allow');
        return response;
      }, 405);
      expect(allowed, `${method} ${path}`).toBe(allow);
      expect(problem.type).toBe('urn:timegate:problem:method-not-allowed');
      expect(problem.instance).toBe(`/api/v1${path}`);
    }
    // HEAD is in Allow because it is answered wherever GET is.
    expect((await rest.request('HEAD', '/users/1', key)).status).toBe(200);
    // Refused before the body is read: what was sent does not turn it into a 415 or 400.
    await refused(() => fetch(`${t.restRoot}/projects/1`, { method: 'PUT', headers: { 'x-serviceapikey': key, 'content-type': 'text/plain' }, body: '{' }), 405);
  });

  it('answers unknown routes, methods and malformed keys with problems, and a query key on a write with 403', async () => {
    for (const path of ['/api/v1/nope', '/api/v1/projects/1/owner', '/api/v2/projects', '/api']) {
      const problem = await refused(() => fetch(`${t.origin}${path}`, { headers: { 'x-serviceapikey': key } }), 404);
      expect(problem.type).toBe('urn:timegate:problem:route-not-found');
    }
    const badKey = await refused(() => rest.get('/projects/abc', key), 400);
    expect(badKey.errors?.[0]).toEqual({ pointer: '/id', detail: "path parameter 'id' must be an Edm.Int32 value" });
    await refused(() => rest.get('/projects/99999999999', key), 400);
    const forbidden = await refused(() => fetch(`${t.restRoot}/projects?ApiKey=${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' }), 403);
    expect(forbidden.instance).toBe('/api/v1/projects');
  });

  /** What the gateway answers to `text` on a fresh connection, until it closes it. */
  function rawExchange(text: string): Promise<string> {
    return new Promise((resolve, reject) => {
      let answer = '';
      const socket = connect(Number(new URL(t.origin).port), '127.0.0.1', () => socket.write(text));
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  }

  it('answers what the HTTP parser refuses, which reached no face, as the gateway\'s own problem', async () => {
    for (const line of ['MERGE /api/v1/projects/1 KAPUTT', 'GET /v1/api.svc/Projects(1) KAPUTT']) {
      const problem = await rawExchange(`${line}\r\n\r\n`);
      expect(problem).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(problem).toContain('Content-Type: application/problem+json');
      expect(JSON.parse(problem.slice(problem.indexOf('\r\n\r\n') + 4))).toEqual({
        type: 'urn:timegate:problem:bad-request', title: 'Bad Request', status: 400, detail: 'the request is not valid HTTP',
      });
    }
    const tooLong = await rest.get(`/projects?filter=${'id eq 1 or '.repeat(2000)}id eq 1`, key);
    expect(tooLong.status).toBe(431);
    expect(((await tooLong.json()) as { detail: string }).detail).toMatch(/longer than the gateway accepts/);
    expect((await rest.get('/projects', key)).status).toBe(200);
  });

  it('refuses a key no credential header can carry with 401, and keeps serving others after many of them', async () => {
    const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`any-user:${password}`).toString('base64')}` });
    const carriers = [basic('tg_€'), basic('tg_line\nbreak'), basic('tg_\u0000'), { authorization: 'Bearer tg_é' }];
    // More than the upstream pool's 32 connections: each refused call once kept one of them.
    for (let i = 0; i < 40; i++) {
      const problem = await refused(() => fetch(`${t.restRoot}/projects`, { headers: carriers[i % carriers.length] }), 401);
      expect(problem.type).toBe('urn:timegate:problem:malformed-key');
    }
    await refused(() => fetch(`${t.restRoot}/projects?ApiKey=${encodeURIComponent('tg_€')}`), 401);
    const good = await rest.get('/projects', key);
    expect(good.status).toBe(200);
    expect(((await good.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);
  });
});
