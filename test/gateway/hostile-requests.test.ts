// Random hostile requests (fast-check, fixed seed) against the service and both faces of the
// gateway in front of it: whatever the path, query, method, body or credential, the answer is
// never a 5xx but 501, and every refusal is an error in the face's own format. This is how the
// malformed-key 502s, the NUL key's bare 500 and Fastify's default client errors were found.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import { testDatabases } from '../helpers/databases.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startTestGateway } from '../helpers/gateway.js';

const RUNS = 250;
const SEED = 20261125;

const junk = ['', "'", '(', ')', '%00', '%ZZ', '%ED%A0%80', '%EF%BF%BE', '%E2%80%A8', '$', '$batch', '$value', '$count', '$links', '..', '-1', '1e400', '99999999999999999999', 'null', "X'00'", "datetime'2026-13-45T99:99'", 'a'.repeat(600)];
const names = ['ID', 'Name', 'Active', 'Comment', 'HourlyRate', 'StartTime', 'EndTime', 'ProjectID', 'Billable', 'DurationSeconds', 'Project', 'Client', 'TimeEntries', 'Project/Name', 'Nope', '*'];
const literals = ['1', '-1', '2147483648', '1.5M', '1e10', '1L', "'abc'", "'O''Brien'", 'null', 'true', "datetime'2026-11-20T08:00'", "datetime'bad'", "time'PT2H'", "guid'x'", "X'AB'"];
const ops = ['eq', 'ne', 'gt', 'le', 'and', 'or', 'add', 'mod', 'xx'];
const functions = ['substringof', 'startswith', 'length', 'indexof', 'substring', 'tolower', 'concat', 'year', 'round', 'isof', 'any', 'nope'];

const { expression } = fc.letrec<{ expression: string }>((tie) => ({
  expression: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...names, ...literals, ...junk),
    fc.tuple(tie('expression'), fc.constantFrom(...ops), tie('expression')).map(([a, op, b]) => `${a} ${op} ${b}`),
    tie('expression').map((e) => `not (${e}`),
    fc.tuple(fc.constantFrom(...functions), fc.array(tie('expression'), { maxLength: 3 })).map(([f, args]) => `${f}(${args.join(',')})`),
  ),
}));
/** A value, encoded or left as it is (raw characters a client should have encoded). */
const value = (text: fc.Arbitrary<string>) => fc.tuple(text, fc.boolean()).map(([t, encode]) => (encode ? encodeURIComponent(t) : t.replace(/[^\x21-\x7e]/g, '')));
const option = (name: string, text: fc.Arbitrary<string>) => value(text).map((v) => `${name}=${v}`);
const odataQuery = fc.subarray([
  option('$filter', expression), option('$orderby', fc.constantFrom(...names).map((n) => `${n} desc`)),
  option('$select', fc.constantFrom(...names)), option('$expand', fc.constantFrom('Project', 'Client/Projects', 'Nope', '')),
  option('$top', fc.constantFrom('0', '100', '-1', 'x', '99999999999')), option('$skip', fc.constantFrom('1', '-1', 'x')),
  option('$skiptoken', fc.constantFrom(...junk, "'1'")), option('$inlinecount', fc.constantFrom('allpages', 'x')),
  option('$format', fc.constantFrom('json', 'atom', 'xml', 'x')), option('$callback', fc.constantFrom('cb', '<script>', '')),
  option('ProjectID', fc.constantFrom(...literals)), option('$foo', fc.constantFrom(...junk)),
]).chain((options) => (options.length === 0 ? fc.constant('') : fc.tuple(...options).map((values) => `?${values.join('&')}`)));
const odataPath = fc.tuple(
  fc.constantFrom('TimeEntries', 'Projects', 'Clients', 'Users', 'AccountSettings', 'timeentries', 'StartStopWatch', 'GetChangesDigest', 'Nope', '$metadata', ...junk),
  fc.option(fc.constantFrom('1', '50', '0', "'1'", 'ID=1', '', ...junk).map((k) => `(${k})`), { nil: '' }),
  fc.option(fc.constantFrom(...names, '$count', '$links/Project', 'Name/$value', ...junk).map((s) => `/${s}`), { nil: '' }),
).map(([set, key, tail]) => `/V1/Api.svc/${set}${key}${tail}`);
const restPath = fc.tuple(
  fc.constantFrom('time-entries', 'projects', 'clients', 'users', 'stopwatch', 'stopwatch/halt', 'changes-digest', 'nope'),
  fc.option(fc.constantFrom('1', '50', '0', '-1', 'x', '1.5', ...junk).map((k) => `/${k}`), { nil: '' }),
  fc.subarray([option('filter', expression), option('orderBy', fc.constantFrom('id', 'name desc', 'nope')), option('select', fc.constantFrom('id,name', 'nope')),
    option('expand', fc.constantFrom('project', 'nope')), option('limit', fc.constantFrom('1', '0', 'x', '1001')), option('cursor', fc.constantFrom(...junk, 'eyJ9.x'))]),
).chain(([set, key, options]) => (options.length === 0 ? fc.constant(`/api/v1/${set}${key}`) : fc.tuple(...options).map((o) => `/api/v1/${set}${key}?${o.join('&')}`)));
const body = fc.oneof(
  fc.dictionary(fc.constantFrom('Name', 'name', 'ProjectID', 'projectId', 'StartTime', 'startTime', 'Comment', '__metadata', ...junk),
    fc.constantFrom<unknown>(1, -1, 1.5, 'x', '', null, true, [], {}, '/Date(1764000000000)/', '2026-11-20T08:00:00Z', 'a'.repeat(2000), 2 ** 53), { maxKeys: 5 }).map((o) => JSON.stringify(o)),
  fc.constantFrom('{', '[1]', '<entry/>', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><entry>&a;</entry>', 'not a body'),
);

describe.each(testDatabases)('hostile requests on $name', (kind) => {
  let t: TestGateway;
  const pools: Pool[] = [];
  beforeAll(async () => {
    t = await startTestGateway(kind, { config: { cache: { enabled: false } } });
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
    await t?.close();
  });

  const request = (paths: fc.Arbitrary<string>) => fc.record({
    path: paths,
    method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'PUT', 'MERGE', 'PATCH', 'DELETE'),
    credential: fc.constantFrom<'admin' | 'jana' | 'broken' | 'none'>('admin', 'jana', 'broken', 'none'),
    contentType: fc.constantFrom('application/json', 'application/atom+xml', 'text/plain', 'application/merge-patch+json'),
    accept: fc.constantFrom(undefined, 'application/json', 'application/atom+xml', 'text/html'),
    body,
  });

  it.each([
    ['the service', () => t.service.origin, odataPath.chain((p) => odataQuery.map((q) => p + q)), 'odata'],
    ['the gateway\'s passthrough', () => t.origin, odataPath.chain((p) => odataQuery.map((q) => p + q)), 'odata'],
    ['the gateway\'s REST face', () => t.origin, restPath, 'rest'],
  ] as const)('%s answers every one with a 4xx (or 501) in its own format, never a crash', async (_name, origin, paths, face) => {
    const pool = new Pool(origin(), { connections: 1 });
    pools.push(pool);
    const keys = { admin: t.service.admin.apiKey, jana: t.service.jana.apiKey, broken: 'tg_€\n', none: undefined };
    await fc.assert(fc.asyncProperty(request(paths), async (r) => {
      const key = keys[r.credential];
      const headers: Record<string, string> = { 'content-type': r.contentType, ...(r.accept === undefined ? {} : { accept: r.accept }) };
      if (key !== undefined) headers.authorization = `Basic ${Buffer.from(`user:${key}`).toString('base64')}`;
      const withBody = r.method !== 'GET' && r.method !== 'HEAD';
      const response = await pool.request({ method: r.method, path: r.path, headers, ...(withBody ? { body: r.body } : {}) });
      const text = await response.body.text();
      const status = response.statusCode;
      expect(status === 501 || status < 500, `${r.method} ${r.path}: ${status} ${text.slice(0, 200)}`).toBe(true);
      if (status < 400 || r.method === 'HEAD') return;
      const contentType = String(response.headers['content-type']);
      if (face === 'rest' || !/^\/v1\/api\.svc/i.test(r.path)) {
        expect(contentType, `${r.method} ${r.path}`).toMatch(/^application\/problem\+json/);
        expect((JSON.parse(text) as { status: number }).status).toBe(status);
      } else if (contentType.startsWith('application/json')) {
        expect(JSON.parse(text), `${r.method} ${r.path}`).toHaveProperty('error.message.value');
      } else {
        expect(text, `${r.method} ${r.path}: ${contentType}`).toMatch(/<error xmlns="http:\/\/schemas\.microsoft\.com\/ado\/2007\/08\/dataservices\/metadata"><code/);
      }
      expect(text).not.toMatch(/at .+\.(?:ts|js):\d+/);
    }), { numRuns: RUNS, seed: SEED });
    // Whatever came before, a plain read is still served.
    const after = await fetch(`${origin()}${face === 'rest' ? '/api/v1/projects' : '/V1/Api.svc/Projects?$format=json'}`, { headers: { 'x-serviceapikey': t.service.admin.apiKey } });
    expect(after.status).toBe(200);
  }, 120_000);
});
