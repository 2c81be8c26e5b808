// The generated openapi.json driving a client in another language: Perl's OpenAPI::Client
// (Debian's libopenapi-client-perl, on JSON::Validator) reads the gateway's /openapi.json at run
// time and calls operations by operationId, against the gateway in front of the real service.
//
// JSON::Validator 5.14 reads OpenAPI 3.1 documents (it maps `openapi: 3.1.x` to its OpenAPIv3
// class). Its check of the document against the 3.1 meta-schema is left out by the script (why:
// see openapi-client.pl); the script's requests are still checked against the document.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startTestGateway } from '../helpers/gateway.js';
import type { Json } from '../gateway/rest-fixture.js';
import { odata } from '../gateway/rest-fixture.js';

const SCRIPT = path.resolve('test/conformance/perl/openapi-client.pl');

interface Call {
  readonly operation: string;
  readonly status: number;
  readonly etag: string | null;
  readonly body: Json | null;
}

function runPerl(args: readonly string[]): Promise<{ code: number | null; calls: Call[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('perl', [SCRIPT, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const calls = stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Call);
      resolve({ code, calls, stderr });
    });
  });
}

describe('Perl OpenAPI::Client driven by the gateway\'s openapi.json', () => {
  let t: TestGateway;
  let run: Awaited<ReturnType<typeof runPerl>>;

  beforeAll(async () => {
    t = await startTestGateway(testDatabases[0] as (typeof testDatabases)[number], { features: [] });
    const { admin, tom } = t.service;
    run = await runPerl([`${t.origin}/openapi.json`, t.restRoot, admin.apiKey, tom.apiKey, '1']);
  }, 60_000);
  afterAll(() => t?.close());

  const calls = (operation: string): Call[] => run.calls.filter((call) => call.operation === operation);

  it('reads the 3.1 document and runs to the end', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.calls.map((call) => `${call.operation} ${call.status}`)).toEqual([
      'createProject 201',
      'getProject 200',
      'getProjectSelection 200',
      'listProjects 200',
      'updateProject 200',
      'updateProject 412',
      'deleteProject 204',
      'getProject 404',
      'createProject 400',
      'startStopWatch 200',
      'currentStopWatch 200',
      'haltStopWatch 200',
      'currentStopWatch 404',
    ]);
  });

  it('creates, reads, changes and deletes a project, with ETags, a selection and a filtered list', async () => {
    const [created, refused] = calls('createProject');
    const id = created?.body?.id as number;
    expect(created?.body).toMatchObject({ name: 'From Perl', active: true, hourlyRate: '95.50', comment: 'made by OpenAPI::Client' });
    const [read, gone] = calls('getProject');
    expect(read?.body).toEqual(created?.body);
    expect(read?.etag).toBe(created?.etag);
    expect(calls('getProjectSelection')[0]?.body).toEqual({ name: 'From Perl', hourlyRate: '95.50' });
    expect((calls('listProjects')[0]?.body?.items as Json[]).map((p) => p.id)).toEqual([id]);
    const [changed, stale] = calls('updateProject');
    expect(changed?.body).toMatchObject({ id, comment: 'changed by OpenAPI::Client', active: false });
    expect(changed?.etag).not.toBe(created?.etag);
    expect(stale?.body).toMatchObject({ status: 412 });
    expect(gone?.body).toMatchObject({ status: 404 });
    const deleted = await fetch(`${t.service.root}/Projects(${String(id)})?$format=json`, { headers: { 'x-serviceapikey': t.service.admin.apiKey } });
    expect(deleted.status).toBe(404);
    // The 51-character name never left the client: its own 400 from the document's maxLength.
    expect(refused?.body).toEqual({ errors: [{ path: '/body/name', message: 'String is too long: 51/50.' }] });
    expect(t.service.answered().filter((r) => r.method === 'POST' && r.url.includes('Projects'))).toHaveLength(1);
  });

  it('starts and halts the stopwatch of the user whose key it sends', async () => {
    const [started] = calls('startStopWatch');
    const [running, none] = calls('currentStopWatch');
    const [halted] = calls('haltStopWatch');
    expect(started?.body).toMatchObject({ projectId: 1, comment: 'timed from Perl', billable: false, endTime: null, userId: t.service.tom.userId });
    expect(running?.body?.id).toBe(started?.body?.id);
    expect(halted?.body?.id).toBe(started?.body?.id);
    expect(typeof halted?.body?.endTime).toBe('string');
    expect(none?.body).toMatchObject({ status: 404 });
    const entry = (await odata(t, `TimeEntries(${String(started?.body?.id)})`, t.service.tom.apiKey)) as Json;
    expect(entry.Comment).toBe('timed from Perl');
    expect(entry.EndTime).not.toBeNull();
  });
});
