// Auth normalisation on the passthrough face, in front of the real service: whatever form the
// caller sends its key in, the upstream receives exactly one credential in the configured form
// and never the ApiKey query parameter; a write with only the query key is refused at the edge;
// the optional gateway-level key list refuses unknown keys before the upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashedKeyEntry } from '../../gateway/auth/key-check.js';
import type { CredentialForm } from '../../gateway/config.js';
import { testDatabases } from '../helpers/databases.js';
import { startEdge } from '../helpers/edge-gateway.js';
import type { TestEdge } from '../helpers/edge-gateway.js';
import type { KeyForm } from '../helpers/odata-client.js';
import { ODataClient, expectStatus, payload, readFeed } from '../helpers/odata-client.js';
import { expectError } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { AnsweredRequest, TestService } from '../helpers/service.js';

const CALLER_FORMS: readonly KeyForm[] = ['header', 'basic', 'bearer', 'query'];

/** The credentials a request carried to the upstream, by where they were. */
function credentialsSeen(request: AnsweredRequest | undefined) {
  const headers = request?.headers ?? {};
  return {
    keyHeaders: Object.keys(headers).filter((name) => name === 'x-serviceapikey' || name === 'x-api-key'),
    authorization: headers.authorization,
    queryKeys: [...new URL(request?.url ?? '/', 'http://upstream').searchParams.keys()].filter((name) => name.toLowerCase() === 'apikey'),
  };
}

describe.each(testDatabases)('auth normalisation on $name', (kind) => {
  let service: TestService;
  const edges: TestEdge[] = [];

  async function edgeWith(form: CredentialForm, options: Parameters<typeof startEdge>[1] = {}): Promise<TestEdge> {
    const edge = await startEdge(service.root, { ...options, upstream: { credential: { form, headerName: 'X-ServiceApiKey', queryName: 'ApiKey' } } });
    edges.push(edge);
    return edge;
  }

  beforeAll(async () => {
    service = await startTestService(kind);
  });

  afterAll(async () => {
    await Promise.all(edges.map((edge) => edge.close()));
    await service?.close();
  });

  it.each(CALLER_FORMS)('turns a key sent as %s into the one X-ServiceApiKey header upstream (default form)', async (callerForm) => {
    const edge = await edgeWith('header');
    const client = new ODataClient(edge.root, service.jana.apiKey, callerForm);
    const reply = await client.get('/Projects?$format=json&$top=1');
    expectStatus(reply, 200);
    const seen = service.answered().at(-1);
    expect(seen?.headers['x-serviceapikey']).toBe(service.jana.apiKey);
    expect(credentialsSeen(seen)).toEqual({ keyHeaders: ['x-serviceapikey'], authorization: undefined, queryKeys: [] });
    expect(seen?.url).toBe('/V1/Api.svc/Projects?$format=json&$top=1');
  });

  it('forwards Bearer, Basic or the query parameter when the upstream is configured for it, and nothing else', async () => {
    const client = (edge: TestEdge) => new ODataClient(edge.root, service.jana.apiKey, 'header');
    const bearer = await edgeWith('bearer');
    expectStatus(await client(bearer).get('/Projects?$format=json'), 200);
    expect(credentialsSeen(service.answered().at(-1))).toEqual({ keyHeaders: [], authorization: `Bearer ${service.jana.apiKey}`, queryKeys: [] });

    const basic = await edgeWith('basic');
    expectStatus(await client(basic).get('/Projects?$format=json'), 200);
    const seenBasic = credentialsSeen(service.answered().at(-1));
    expect(seenBasic.keyHeaders).toEqual([]);
    expect(Buffer.from(String(seenBasic.authorization).replace(/^Basic /, ''), 'base64').toString().endsWith(`:${service.jana.apiKey}`)).toBe(true);

    const query = await edgeWith('query');
    expectStatus(await client(query).get('/Projects?$format=json'), 200);
    const seenQuery = service.answered().at(-1);
    expect(credentialsSeen(seenQuery)).toEqual({ keyHeaders: [], authorization: undefined, queryKeys: ['ApiKey'] });
    expect(new URL(seenQuery?.url ?? '', 'http://upstream').searchParams.get('ApiKey')).toBe(service.jana.apiKey);
  });

  it('keeps the header key when a caller sends several forms, and removes the others', async () => {
    const edge = await edgeWith('header');
    const reply = await new ODataClient(edge.root, service.jana.apiKey, 'header').get(`/Projects?$format=json&apikey=${service.tom.apiKey}`, {
      headers: { authorization: `Bearer ${service.admin.apiKey}` },
    });
    expectStatus(reply, 200);
    const seen = service.answered().at(-1);
    expect(seen?.headers['x-serviceapikey']).toBe(service.jana.apiKey);
    expect(credentialsSeen(seen)).toEqual({ keyHeaders: ['x-serviceapikey'], authorization: undefined, queryKeys: [] });
  });

  it('accepts configured header aliases in any casing', async () => {
    const edge = await edgeWith('header', { auth: { keyHeaderAliases: ['X-Api-Key'] } });
    const reply = await new ODataClient(edge.root, null).get('/Projects?$format=json', { headers: { 'X-API-KEY': service.jana.apiKey } });
    expectStatus(reply, 200);
    const seen = service.answered().at(-1);
    expect(credentialsSeen(seen)).toEqual({ keyHeaders: ['x-serviceapikey'], authorization: undefined, queryKeys: [] });
    expect(seen?.headers['x-serviceapikey']).toBe(service.jana.apiKey);
  });

  it('refuses a write that carries only the query key with 403 before the upstream, in the format asked for', async () => {
    const edge = await edgeWith('header');
    const client = new ODataClient(edge.root, service.admin.apiKey, 'query');
    for (const format of ['json', 'atom'] as const) {
      const before = service.requestCount();
      const reply = await client.send('POST', '/Clients', payload(format, { Name: 'Not created' }), { format });
      expectError(reply, 403, format);
      expect(service.requestCount()).toBe(before);
    }
    const rows = await service.database.db.selectFrom('clients').select('id').where('name', '=', 'Not created').execute();
    expect(rows).toEqual([]);
    // A read with the query key, and a stopwatch GET, are reads: they pass.
    expectStatus(await client.get('/Projects?$format=json'), 200);
  });

  it('lets only listed keys through when a gateway key list is configured (plain or SHA-256), the upstream never asked otherwise', async () => {
    const edge = await edgeWith('header', { auth: { allowedKeys: [service.jana.apiKey, hashedKeyEntry(service.tom.apiKey)] } });
    for (const user of [service.jana, service.tom]) {
      const reply = await new ODataClient(edge.root, user.apiKey, 'basic').get('/TimeEntries?$format=json&$top=1');
      expectStatus(reply, 200);
      expect(readFeed(reply, 'TimeEntries').records.length).toBe(1);
    }
    const before = service.requestCount();
    for (const key of [service.admin.apiKey, null]) {
      const reply = await new ODataClient(edge.root, key, 'header').get('/Projects', { format: 'json' });
      expectError(reply, 401, 'json');
    }
    expect(service.requestCount()).toBe(before);
  });

  it('refuses a key no credential header can carry with 401 at the edge, and keeps serving others after many of them', async () => {
    const edge = await edgeWith('header');
    const keys: readonly [string, KeyForm][] = [['tg_€', 'basic'], ['tg_line\nbreak', 'basic'], ['tg_\u0000', 'query'], ['tg_é', 'bearer']];
    const before = service.requestCount();
    // More than the upstream pool's 32 connections: each refused call once kept one of them, and
    // counted against the circuit breaker as an upstream failure.
    for (let i = 0; i < 40; i++) {
      const [key, form] = keys[i % keys.length] as [string, KeyForm];
      const reply = await new ODataClient(edge.root, key, form).get('/Projects', { format: 'json' });
      expectError(reply, 401, 'json');
      expect(reply.text).toContain('printable ASCII');
    }
    expect(service.requestCount()).toBe(before);
    const reply = await new ODataClient(edge.root, service.jana.apiKey, 'basic').get('/Projects?$format=json&$top=1');
    expectStatus(reply, 200);
    expect(readFeed(reply, 'Projects').records.length).toBe(1);
  });

  it('delegates to the upstream by default: an unknown key gets the upstream 401', async () => {
    const edge = await edgeWith('header');
    const reply = await new ODataClient(edge.root, 'tg_not_a_key', 'bearer').get('/Projects', { format: 'json' });
    expectError(reply, 401, 'json');
    expect(service.answered().at(-1)?.status).toBe(401);
  });
});
