// The OData passthrough face in front of the real service: an OData client talking to the
// gateway sees the service's documents with every absolute URI naming the gateway (JSON, Atom,
// JSONP, Location), follows them through the gateway, and reads the same data as directly.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHOLE_BODY_BYTES } from '../../gateway/passthrough/passthrough-plugin.js';
import { testDatabases } from '../helpers/databases.js';
import { startEdge } from '../helpers/edge-gateway.js';
import type { TestEdge } from '../helpers/edge-gateway.js';
import { ODataClient, expectStatus, idOf, payload, rawGet, readEntity, readFeed } from '../helpers/odata-client.js';
import { expectError } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

/** Every absolute http(s) URI in a text. */
function absoluteUris(text: string): string[] {
  return [...text.replaceAll('\\/', '/').matchAll(/https?:\/\/[^"'<>\s)]+/g)].map((m) => m[0]).filter((uri) => !uri.startsWith('http://www.w3.org') && !uri.startsWith('http://schemas.microsoft.com'));
}

/** A stand-in upstream answering with `handler` at `rootPath`, the gateway before it, for `use`. */
async function withFakeUpstream(rootPath: string, handler: RequestListener, use: (edge: TestEdge) => Promise<void>): Promise<void> {
  const upstream = createServer(handler);
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const edge = await startEdge(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}${rootPath}`);
  try {
    await use(edge);
  } finally {
    await edge.close();
    upstream.closeAllConnections();
    upstream.close();
  }
}

describe.each(testDatabases)('the passthrough face on $name', (kind) => {
  let service: TestService;
  let edge: TestEdge;
  let viaGateway: ODataClient;
  let direct: ODataClient;

  beforeAll(async () => {
    service = await startTestService(kind);
    edge = await startEdge(service.root);
    viaGateway = new ODataClient(edge.root, service.admin.apiKey);
    direct = new ODataClient(service.root, service.admin.apiKey);
  });

  afterAll(async () => {
    await edge?.close();
    await service?.close();
  });

  it('answers a JSON feed whose __metadata.uri, __deferred.uri and __next all name the gateway, and the next link works through it', async () => {
    const first = await viaGateway.get('/TimeEntries?$format=json');
    expectStatus(first, 200);
    const document = JSON.parse(first.text) as { d: { results: Array<{ __metadata: { uri: string }; Project: { __deferred: { uri: string } } }>; __next: string } };
    expect(document.d.results[0]?.__metadata.uri).toBe(`${edge.root}/TimeEntries(1)`);
    expect(document.d.results[0]?.Project.__deferred.uri).toBe(`${edge.root}/TimeEntries(1)/Project`);
    expect(document.d.__next.startsWith(`${edge.root}/TimeEntries?`)).toBe(true);
    expect(absoluteUris(first.text).every((uri) => uri.startsWith(edge.root))).toBe(true);
    expect(first.text).not.toContain(service.origin);

    const all = await viaGateway.readAll('/TimeEntries?$format=json', 'TimeEntries');
    const allDirect = await direct.readAll('/TimeEntries?$format=json', 'TimeEntries');
    // Tom's running stopwatch grows between the two reads; every finished entry is equal.
    const finished = (records: typeof all.records) => records.filter((record) => record.EndTime !== null);
    expect(all.records.map((record) => record.ID)).toEqual(allDirect.records.map((record) => record.ID));
    expect(finished(all.records)).toEqual(finished(allDirect.records));
    expect(all.links.every((link) => link.startsWith(`${edge.root}/`))).toBe(true);
    expect(all.pageSizes.length).toBeGreaterThan(1);
  });

  it('answers Atom whose xml:base, ids and link hrefs name the gateway', async () => {
    const reply = await viaGateway.get('/Projects?$expand=Client', { format: 'atom' });
    expectStatus(reply, 200);
    expect(reply.text).toContain(`xml:base="${edge.root}/"`);
    expect(reply.text).toContain(`<id>${edge.root}/Projects(1)</id>`);
    expect(absoluteUris(reply.text).length).toBeGreaterThan(2);
    expect(absoluteUris(reply.text).every((uri) => uri.startsWith(edge.root))).toBe(true);
    expect(readFeed(reply, 'Projects').records).toEqual(readFeed(await direct.get('/Projects?$expand=Client', { format: 'atom' }), 'Projects').records);
  });

  it('is the same document as the direct one, byte for byte, but for the root', async () => {
    for (const path of ['/TimeEntries?$format=json&$top=100', '/TimeEntries?$top=100', '/', '/$metadata', '/Clients(1)/Projects?$format=json']) {
      const [throughGateway, fromService] = await Promise.all([viaGateway.get(path), direct.get(path)]);
      expect(throughGateway.status, path).toBe(fromService.status);
      expect(throughGateway.contentType, path).toBe(fromService.contentType);
      const withoutDates = (text: string) => text.replace(/<updated>[^<]+<\/updated>/g, '');
      expect(withoutDates(throughGateway.text), path).toBe(withoutDates(fromService.text.replaceAll(service.root, edge.root)));
      // Up to WHOLE_BODY_BYTES an answer is read whole and sent with its length, not chunked.
      expect(Number(throughGateway.headers.get('content-length')), path).toBe(Buffer.byteLength(throughGateway.text));
    }
  });

  it('streams a large answer (beyond the whole-body limit) and still rewrites every root in it', async () => {
    const path = '/TimeEntries?$top=100&$expand=Project/Client,Task,User';
    const [throughGateway, fromService] = await Promise.all([viaGateway.get(path), direct.get(path)]);
    expectStatus(throughGateway, 200);
    // Small answers are read whole; this one must take the streaming path.
    expect(Buffer.byteLength(fromService.text)).toBeGreaterThan(WHOLE_BODY_BYTES);
    expect(throughGateway.headers.get('content-length')).toBeNull();
    const withoutDates = (text: string) => text.replace(/<updated>[^<]+<\/updated>/g, '');
    expect(withoutDates(throughGateway.text)).toBe(withoutDates(fromService.text.replaceAll(service.root, edge.root)));
    expect(absoluteUris(throughGateway.text).every((uri) => uri.startsWith(edge.root))).toBe(true);
  });

  it('rewrites JSONP bodies too', async () => {
    const reply = await viaGateway.get('/Projects(1)?$format=json&$callback=loaded');
    expectStatus(reply, 200);
    expect(reply.text.startsWith('loaded(')).toBe(true);
    expect(reply.text).toContain(`"uri":"${edge.root}/Projects(1)"`);
    expect(reply.text).not.toContain(service.origin);
  });

  it('accepts the root path in any casing', async () => {
    for (const root of ['/v1/api.svc', '/V1/API.SVC', '/v1/Api.Svc']) {
      const reply = await viaGateway.get(`${edge.origin}${root}/Projects(1)?$format=json`);
      expectStatus(reply, 200);
      expect(readEntity(reply, 'Projects').values.ID).toBe(1);
      expect(reply.text).toContain(`"uri":"${edge.root}/Projects(1)"`);
    }
  });

  it('creates through the gateway: 201 with a Location that names the gateway and reads back through it', async () => {
    for (const format of ['json', 'atom'] as const) {
      const created = await viaGateway.send('POST', '/Clients', payload(format, { Name: `Gateway client ${format}` }), { format });
      expectStatus(created, 201);
      const location = created.headers.get('location') ?? '';
      expect(location.startsWith(`${edge.root}/Clients(`)).toBe(true);
      expect(created.text).not.toContain(service.origin);
      const readBack = await viaGateway.get(location, { format: 'json' });
      expectStatus(readBack, 200);
      expect(readEntity(readBack, 'Clients').values.Name).toBe(`Gateway client ${format}`);
      const rows = await service.database.db.selectFrom('clients').select('name').where('id', '=', idOf(location)).execute();
      expect(rows).toEqual([{ name: `Gateway client ${format}` }]);
    }
  });

  it('passes the upstream error documents through in the format asked for, without the upstream host', async () => {
    for (const format of ['json', 'atom'] as const) {
      const reply = await viaGateway.get('/Projects(999999)', { format });
      expectError(reply, 404, format);
      expect(reply.text).not.toContain(service.origin);
    }
  });

  it('answers bad request paths with an OData error before the upstream, never a crash', async () => {
    const before = service.requestCount();
    for (const path of ['/Projects(%ZZ)', '/Projects%2F..%2F..%2Fadmin']) {
      for (const format of ['json', 'atom'] as const) {
        const reply = await viaGateway.get(path, { format });
        expectError(reply, 400, format);
      }
    }
    // As sent by a client that does not resolve dot segments itself (fetch would).
    for (const path of ['/Clients/../Projects', '/Clients/%2E%2E/%2e%2e/admin']) {
      const raw = await rawGet(edge.origin, `/V1/Api.svc${path}?$format=json`, { 'x-serviceapikey': service.admin.apiKey });
      expect(raw.status).toBe(400);
      expect(JSON.parse(raw.text)).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    }
    expect(service.requestCount()).toBe(before);
    expectStatus(await viaGateway.get('/Projects(1)?$format=json'), 200);
  });

  it('drops hop-by-hop headers and sets X-Forwarded-* and X-Request-Id for the upstream', async () => {
    const reply = await rawGet(edge.origin, '/V1/Api.svc/Projects(1)?$format=json', {
      'x-serviceapikey': service.admin.apiKey,
      connection: 'keep-alive, x-hop-secret',
      'x-hop-secret': 'not for the upstream',
      'keep-alive': 'timeout=5',
      'x-request-id': 'trace-42',
      'x-forwarded-for': '203.0.113.9',
    });
    expect(reply.status).toBe(200);
    const seen = service.answered().at(-1);
    expect(seen?.headers['x-hop-secret']).toBeUndefined();
    expect(seen?.headers['keep-alive']).toBeUndefined();
    expect(seen?.headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
    expect(seen?.headers['x-forwarded-proto']).toBe('http');
    expect(seen?.headers['x-forwarded-host']).toBe(new URL(edge.origin).host);
    expect(typeof seen?.headers['x-request-id']).toBe('string');
  });
});

describe('the passthrough face when the upstream breaks off an answer', () => {
  it('answers 502 as an OData error instead of dropping the connection, and serves the next request', async () => {
    let requests = 0;
    // Promises 2,000 bytes of JSON, sends 20, then closes the connection.
    const upstream: RequestListener = (request, response) => {
      requests++;
      if (request.url?.includes('Whole')) {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"d":{"results":[]}}');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '2000' });
      response.write('{"d":{"results":[{"I');
      setTimeout(() => response.socket?.destroy(), 20);
    };
    await withFakeUpstream('/V1/Api.svc', upstream, async (edge) => {
      const broken = await fetch(`${edge.root}/Broken?$format=json`, { headers: { 'x-serviceapikey': 'k' } });
      expect(broken.status).toBe(502);
      const body = (await broken.json()) as { error: { code: string; message: { value: string } } };
      expect(body.error.code).toBe('BAD_GATEWAY');
      expect(body.error.message.value).toBe('the upstream OData service broke off its answer');
      const whole = await fetch(`${edge.root}/Whole?$format=json`, { headers: { 'x-serviceapikey': 'k' } });
      expect(whole.status).toBe(200);
      expect(await whole.json()).toEqual({ d: { results: [] } });
      expect(requests).toBeGreaterThanOrEqual(2);
    });
  });
});

describe('the passthrough face streaming a large answer', () => {
  it('cuts the client off when the upstream breaks off mid-stream, and releases the upstream when the client goes away', async () => {
    const upstreamClosed: string[] = [];
    // Promises more JSON than the gateway reads whole (so it streams it), sends 40,000 bytes and
    // then, for Broken, closes the connection; for Slow, waits.
    const upstream: RequestListener = (request, response) => {
      if (request.url?.includes('Whole')) {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"d":{"results":[]}}');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(WHOLE_BODY_BYTES + 100_000) });
      response.write(`{"d":{"uri":"http://x/${'y'.repeat(40_000)}`);
      response.once('close', () => upstreamClosed.push(request.url ?? ''));
      if (request.url?.includes('Broken')) setTimeout(() => response.socket?.destroy(), 20);
    };
    await withFakeUpstream('/V1/Api.svc', upstream, async (edge) => {
      const broken = await fetch(`${edge.root}/Broken?$format=json`, { headers: { 'x-serviceapikey': 'k' } });
      expect(broken.status).toBe(200);
      await expect(broken.text()).rejects.toThrow();

      const aborted = new AbortController();
      const slow = await fetch(`${edge.root}/Slow?$format=json`, { headers: { 'x-serviceapikey': 'k' }, signal: aborted.signal });
      expect(slow.status).toBe(200);
      aborted.abort();
      await expect.poll(() => upstreamClosed.some((url) => url.includes('Slow')), { timeout: 2_000 }).toBe(true);

      const whole = await fetch(`${edge.root}/Whole?$format=json`, { headers: { 'x-serviceapikey': 'k' } });
      expect(await whole.json()).toEqual({ d: { results: [] } });
    });
  });
});

describe('the passthrough face before an upstream at another root path that believes X-Forwarded-Host', () => {
  it('rewrites the URIs it writes for the forwarded host to the gateway\'s root, in small and streamed answers and in Location', async () => {
    // Writes its URIs from X-Forwarded-Proto/-Host with its own root path, as such servers do;
    // the large answer (streamed by the gateway) escapes its slashes, as JSON may.
    const upstream: RequestListener = (request, response) => {
      const root = `${String(request.headers['x-forwarded-proto'])}://${String(request.headers['x-forwarded-host'])}/odata/v2/Time.svc`;
      const large = request.url?.includes('Large') === true;
      const text = JSON.stringify({ d: { results: [{ __metadata: { uri: `${root}/Things(1)` }, Note: large ? 'x'.repeat(WHOLE_BODY_BYTES) : '' }], __next: `${root}/Things?$skiptoken=1` } });
      response.writeHead(200, { 'content-type': 'application/json', location: `${root}/Things(1)` }).end(large ? text.replaceAll('/', '\\/') : text);
    };
    await withFakeUpstream('/odata/v2/Time.svc', upstream, async (edge) => {
      for (const path of ['/Things', '/Large']) {
        const reply = await fetch(`${edge.root}${path}?$format=json`, { headers: { 'x-serviceapikey': 'k' } });
        const text = await reply.text();
        const document = JSON.parse(text) as { d: { results: Array<{ __metadata: { uri: string } }>; __next: string } };
        expect(document.d.results[0]?.__metadata.uri, path).toBe(`${edge.root}/Things(1)`);
        expect(document.d.__next, path).toBe(`${edge.root}/Things?$skiptoken=1`);
        expect(reply.headers.get('location'), path).toBe(`${edge.root}/Things(1)`);
        expect(text.replaceAll('\\/', '/'), path).not.toContain('/odata/v2/');
      }
    });
  });
});

// `timegate start` runs its service this way: it believes the X-Forwarded-Host/-Proto the gateway
// sends and writes the gateway's root itself, so the passthrough has nothing left to rewrite.
describe.each(testDatabases)('the passthrough face before a service that believes X-Forwarded-* on $name', (kind) => {
  let service: TestService;
  let edge: TestEdge;

  beforeAll(async () => {
    service = await startTestService(kind, { trustProxy: true });
    edge = await startEdge(service.root);
  });

  afterAll(async () => {
    await edge?.close();
    await service?.close();
  });

  it('answers JSON, Atom and Location that name the gateway, never the service, and the same data as directly', async () => {
    const viaGateway = new ODataClient(edge.root, service.admin.apiKey);
    const json = await viaGateway.get('/TimeEntries?$format=json&$top=100');
    expectStatus(json, 200);
    expect(absoluteUris(json.text).length).toBeGreaterThan(100);
    expect(absoluteUris(json.text).every((uri) => uri.startsWith(`${edge.root}/`))).toBe(true);
    const atom = await viaGateway.get('/TimeEntries?$top=100', { format: 'atom' });
    expect(atom.text).toContain(`xml:base="${edge.root}/"`);
    expect(absoluteUris(atom.text).every((uri) => uri.startsWith(edge.root))).toBe(true);
    const direct = await new ODataClient(service.root, service.admin.apiKey).get('/TimeEntries?$format=json&$top=100');
    expect(json.text).toBe(direct.text.replaceAll(service.root, edge.root));

    const created = await viaGateway.send('POST', '/Clients', payload('json', { Name: 'Behind the gateway' }), { format: 'json' });
    expectStatus(created, 201);
    expect(created.headers.get('location')?.startsWith(`${edge.root}/Clients(`)).toBe(true);
    expect(created.text).not.toContain(service.origin);
  });
});
