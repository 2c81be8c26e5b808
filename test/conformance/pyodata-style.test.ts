// Conformance with pyodata, the Python OData V2 client, by its wire behaviour (pyodata-style.ts):
// the same cycle straight against the service and through the gateway's OData passthrough, with
// the same results; through the gateway, every absolute URI it is answered with (`__metadata`,
// `__deferred`, `__next`) names the gateway, the `__next` it follows verbatim included, and the
// service sees one canonical credential instead of the client's Basic header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../gateway/start.js';
import { testDatabases } from '../helpers/databases.js';
import { startGatewayInFront } from '../helpers/gateway.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';
import { PyodataStyleClient, pythonJsonDumps, quotePlus, runPyodataCycle } from './pyodata-style.js';
import type { PyodataCycleResult } from './pyodata-style.js';

const VOCABULARY_ROOTS = ['http://www.w3.org', 'http://schemas.microsoft.com', 'http://docs.oasis-open.org', 'http://www.sap.com'];

function expectCycle(result: PyodataCycleResult, name: string): void {
  expect(result.created).toEqual({ id: expect.any(Number), name, active: true });
  expect(result.readBack).toEqual({ name, comment: 'changed by pyodata' });
  expect(result.lazyComment).toBe('changed by pyodata');
  expect(result.filtered).toEqual({ ids: [result.created.id], totalCount: 1, count: 1 });
  expect(result.entry).toEqual({ id: expect.any(Number), projectId: result.created.id, durationSeconds: 5400 });
  expect(result.navigation).toEqual({ entryIds: [result.entry.id], projectIdOfEntry: result.created.id });
  // Server paging: 100 a page, and the next page goes on after the first.
  expect(result.paging.firstPage).toBe(100);
  expect(result.paging.secondPageFirstId).toBeGreaterThan(result.paging.lastOfFirstPage);
  expect(result.stopwatch.startedEndTime).toBeNull();
  expect(result.stopwatch.currentId).toBe(result.stopwatch.startedId);
  expect(result.stopwatch.haltedId).toBe(result.stopwatch.startedId);
  expect(result.stopwatch.haltedEndTime).toMatch(/^\/Date\(\d+\)\/$/);
  expect(result.missing.status).toBe(404);
  expect(result.missing.message).toMatch(/Projects\(2147483647\)/);
  expect(result.afterDelete).toBe(404);
}

/** Every absolute URI in the answers but the vocabularies' (namespaces in `$metadata`). */
function urisIn(client: PyodataStyleClient): string[] {
  const text = client.answers.map((answer) => `${JSON.stringify(answer.headers)}\n${answer.body}`).join('\n').replaceAll('\\/', '/');
  return [...text.matchAll(/https?:\/\/[^"'<>\s)]+/g)].map((m) => m[0]).filter((uri) => !VOCABULARY_ROOTS.some((root) => uri.startsWith(root)));
}

describe('the pyodata wire forms', () => {
  it('encode queries as Python urlencode and bodies as json.dumps do', () => {
    expect(quotePlus("Name eq 'Grüne Wiese (2026)' and ID lt 5")).toBe('Name+eq+%27Gr%C3%BCne+Wiese+%282026%29%27+and+ID+lt+5');
    expect(quotePlus('$inlinecount')).toBe('%24inlinecount');
    expect(pythonJsonDumps({ Name: 'Grüne Wiese', Active: true, Budget: null, Start: '/Date(0)/' }))
      .toBe('{"Name": "Gr\\u00fcne Wiese", "Active": true, "Budget": null, "Start": "/Date(0)/"}');
  });
});

describe.each(testDatabases)('a pyodata-style client on $name', (kind) => {
  let service: TestService;
  let gateway: RunningGateway;

  beforeAll(async () => {
    service = await startTestService(kind);
    gateway = await startGatewayInFront(service.root);
  });

  afterAll(async () => {
    await gateway?.close();
    await service?.close();
  });

  it('runs the whole cycle against the service', async () => {
    const name = 'pyodata Projekt Grüne Wiese';
    const client = new PyodataStyleClient(service.root, 'pyodata', service.admin.apiKey);
    expectCycle(await runPyodataCycle(client, name), name);
    expect(client.answers.length).toBeGreaterThan(15);
  });

  it('runs the same cycle through the gateway passthrough and only ever sees gateway URIs', async () => {
    const name = 'pyodata Projekt über das Gateway';
    const root = `${gateway.origin}/V1/Api.svc`;
    const before = service.answered().length;
    const client = new PyodataStyleClient(root, 'pyodata', service.admin.apiKey);
    const result = await runPyodataCycle(client, name);
    expectCycle(result, name);

    expect(result.paging.nextUrl.startsWith(`${root}/TimeEntries?`)).toBe(true);
    const uris = urisIn(client);
    expect(uris.length).toBeGreaterThan(100);
    expect(uris.filter((uri) => !uri.startsWith(`${root}/`))).toEqual([]);
    expect(client.answers.map((answer) => answer.body).join('\n')).not.toContain(service.origin);

    // The service got each request through the gateway (writes, the lazy property read with its
    // trailing slash, the verbatim next link), with the one canonical credential.
    const seen = service.answered().slice(before);
    expect(seen.some((r) => r.method === 'PATCH' && r.status === 204)).toBe(true);
    expect(seen.some((r) => r.method === 'GET' && /\/Comment\/$/.test(r.url) && r.status === 200)).toBe(true);
    expect(seen.some((r) => r.method === 'GET' && r.url.includes('$skiptoken=') && r.status === 200)).toBe(true);
    expect(seen.every((r) => r.headers['x-serviceapikey'] === service.admin.apiKey && r.headers.authorization === undefined)).toBe(true);
    const rows = await service.database.db.selectFrom('projects').select('id').where('id', '=', result.created.id).execute();
    expect(rows).toEqual([]);
  });
});
