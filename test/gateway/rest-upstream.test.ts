// What the REST face passes on and brings back: the caller's key in the one form the upstream is
// configured for (whatever form the caller used; never in a log line), upstream OData errors in
// JSON or XML as problems keeping status, message and code, and an unreachable or silent upstream
// as 502 / 504 problems.
import { once } from 'node:events';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CredentialForm } from '../../gateway/config.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import { artefactsOf, startGatewayInFront } from '../helpers/gateway.js';
import { RestContract } from './rest-contract.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

/** A loopback proxy in front of the service that records what the gateway sent. */
async function recordingProxy(target: string): Promise<{ root: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const origin = new URL(target).origin;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
      fetch(`${origin}${request.url ?? ''}`, { method: request.method ?? 'GET', headers, ...(body === undefined ? {} : { body }) }).then(async (answer) => {
        const text = Buffer.from(await answer.arrayBuffer());
        const kept: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (name !== 'content-encoding' && name !== 'transfer-encoding' && name !== 'content-length') kept[name] = value;
        });
        response.writeHead(answer.status, kept);
        response.end(text);
      }, () => response.destroy());
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { root: `http://127.0.0.1:${port}${new URL(target).pathname}`, seen, server };
}

const kind = testDatabases[testDatabases.length - 1] as (typeof testDatabases)[number];

describe(`REST face and its upstream (${kind.name})`, () => {
  let service: TestService;
  let contract: RestContract;

  beforeAll(async () => {
    service = await startTestService(kind);
    contract = new RestContract((await artefactsOf()).openapi);
  });
  afterAll(() => service?.close());

  it.each(['header', 'basic', 'bearer', 'query'] as const)('forwards every caller key form as the configured %s form, and logs no key', async (form: CredentialForm) => {
    const proxy = await recordingProxy(service.root);
    const logs = new PassThrough();
    let logText = '';
    logs.on('data', (chunk: Buffer) => (logText += chunk.toString()));
    const gateway = await startGatewayInFront(proxy.root, { features: [], logs, config: { logLevel: 'debug', upstream: { credential: { form, headerName: 'X-ServiceApiKey', queryName: 'ApiKey' } } } });
    try {
      const key = service.jana.apiKey;
      const callers: Record<string, string>[] = [
        { 'X-SERVICEAPIKEY': key },
        { authorization: `Basic ${Buffer.from(`jana:${key}`).toString('base64')}` },
        { authorization: `Bearer ${key}` },
      ];
      for (const headers of callers) {
        await contract.check('listProjects', await fetch(`${gateway.restRoot}/projects?limit=1`, { headers }), 200);
      }
      await contract.check('listProjects', await fetch(`${gateway.restRoot}/projects?limit=1&apikey=${key}`), 200);
      expect(proxy.seen).toHaveLength(4);
      for (const { url, headers } of proxy.seen) {
        const carriers = [
          headers['x-serviceapikey'] === key ? 'header' : undefined,
          headers.authorization === `Basic ${Buffer.from(`apikey:${key}`).toString('base64')}` ? 'basic' : undefined,
          headers.authorization === `Bearer ${key}` ? 'bearer' : undefined,
          new URL(url, 'http://x').searchParams.get('ApiKey') === key ? 'query' : undefined,
        ].filter((c) => c !== undefined);
        expect(carriers).toEqual([form]);
        expect(url.toLowerCase().split('apikey').length).toBe(form === 'query' ? 2 : 1);
      }
      expect(logText).toContain('/api/v1/projects');
      expect(logText).not.toContain(key);
    } finally {
      await gateway.close();
      proxy.server.close();
    }
  });

  it.each(['merge', 'patch'] as const)('sends partial updates with the configured verb (%s)', async (updateMethod) => {
    const proxy = await recordingProxy(service.root);
    const gateway = await startGatewayInFront(proxy.root, { features: [], config: { upstream: { updateMethod } } });
    try {
      const admin = { 'x-serviceapikey': service.admin.apiKey, 'content-type': 'application/merge-patch+json' };
      const updated = await contract.check('updateTask', await fetch(`${gateway.restRoot}/tasks/2`, { method: 'PATCH', headers: admin, body: `{"comment":"via ${updateMethod}"}` }), 200);
      expect((updated.body as { comment: string }).comment).toBe(`via ${updateMethod}`);
      // The change, then the entity read back for the answer.
      expect(proxy.seen.map((r) => r.method)).toEqual([updateMethod.toUpperCase(), 'GET']);
    } finally {
      await gateway.close();
      proxy.server.close();
    }
  });

  it.each(['json', 'atom'] as const)('keeps status, message and code of upstream errors (upstream %s)', async (format) => {
    const gateway = await startGatewayInFront(service.root, { format, features: [] });
    try {
      const jana = { 'x-serviceapikey': service.jana.apiKey };
      const missing = await contract.check('getProject', await fetch(`${gateway.restRoot}/projects/424242`, { headers: jana }), 404);
      const direct = await fetch(`${service.root}/Projects(424242)?$format=json`, { headers: jana });
      const upstream = ((await direct.json()) as { error: { code: string; message: { value: string } } }).error;
      expect(missing.body).toMatchObject({ status: 404, detail: upstream.message.value, code: upstream.code, instance: '/api/v1/projects/424242' });

      const noKey = await contract.check('listProjects', await fetch(`${gateway.restRoot}/projects`), 401);
      expect((noKey.body as { type: string }).type).toBe('urn:timegate:problem:upstream-refusal');
      // A standard user may not create clients: the service's own refusal, in the service's words.
      const refusal = await fetch(`${gateway.restRoot}/clients`, { method: 'POST', headers: { ...jana, 'content-type': 'application/json' }, body: '{"name":"Mine"}' });
      const directRefusal = await fetch(`${service.root}/Clients`, { method: 'POST', headers: { ...jana, 'content-type': 'application/json', accept: 'application/json' }, body: '{"Name":"Mine"}' });
      const directError = ((await directRefusal.json()) as { error: { code: string; message: { value: string } } }).error;
      const checked = await contract.check('createClient', refusal, directRefusal.status);
      expect(checked.body).toMatchObject({ detail: directError.message.value, code: directError.code });
    } finally {
      await gateway.close();
    }
  });

  it('answers 502 when the upstream answers more than the gateway will hold, and serves what fits', async () => {
    const gateway = await startGatewayInFront(service.root, { features: [], config: { upstream: { maxResponseBytes: 4096 } } });
    try {
      const key = { 'x-serviceapikey': service.admin.apiKey };
      const tooLarge = await contract.check('listTimeEntries', await fetch(`${gateway.restRoot}/time-entries?limit=100`, { headers: key }), 502);
      expect((tooLarge.body as { detail: string }).detail).toBe('the upstream answered with more than 4096 bytes');
      const small = await contract.check('getProject', await fetch(`${gateway.restRoot}/projects/1`, { headers: key }), 200);
      expect((small.body as { id: number }).id).toBe(1);
    } finally {
      await gateway.close();
    }
  });

  it('reads a large Atom page from its bytes, and answers 502 when those bytes are not UTF-8', async () => {
    // The service's own page of 100 (over 200 kB: the gateway reads it in pieces), served as is,
    // and with a byte no UTF-8 text holds in a comment when the gateway asks for 51 entries.
    const key = { 'x-serviceapikey': service.admin.apiKey };
    const page = Buffer.from(await (await fetch(`${service.root}/TimeEntries?$top=100`, { headers: key })).arrayBuffer());
    const text = page.toString('latin1');
    const at = text.indexOf('</d:Comment>');
    const broken = Buffer.concat([page.subarray(0, at), Buffer.from([0xff]), page.subarray(at)]);
    const upstream = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/atom+xml;type=feed;charset=utf-8' }).end(request.url?.includes('$top=51') ? broken : page);
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const gateway = await startGatewayInFront(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/V1/Api.svc`, { format: 'atom', features: [] });
    try {
      expect(page.length).toBeGreaterThan(200_000);
      const read = await contract.check('listTimeEntries', await fetch(`${gateway.restRoot}/time-entries?limit=100`, { headers: key }), 200);
      const direct = (await (await fetch(`${service.root}/TimeEntries?$top=100&$format=json`, { headers: key })).json()) as { d: { results: { ID: number }[] } };
      expect((read.body as { items: { id: number }[] }).items.map((item) => item.id)).toEqual(direct.d.results.map((entry) => entry.ID));
      const refused = await contract.check('listTimeEntries', await fetch(`${gateway.restRoot}/time-entries?limit=50`, { headers: key }), 502);
      expect((refused.body as { detail: string }).detail).toMatch(/cannot be read: the XML document is not valid UTF-8/);
    } finally {
      await gateway.close();
      upstream.close();
    }
  });

  it('answers 502 when the upstream cannot be reached and 504 when it does not answer in time', async () => {
    const silent = createServer(() => {
      // accepts, never answers
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as AddressInfo).port;
    closed.close();
    const down = await startGatewayInFront(`http://127.0.0.1:${closedPort}/V1/Api.svc`, { features: [] });
    const slow = await startGatewayInFront(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/V1/Api.svc`, { features: [], config: { upstream: { requestTimeoutMs: 300 } } });
    try {
      const unreachable = await contract.check('getProject', await fetch(`${down.restRoot}/projects/1`, { headers: { 'x-serviceapikey': 'k' } }), 502);
      expect(JSON.stringify(unreachable.body)).not.toContain(String(closedPort));
      const timeout = await contract.check('listProjects', await fetch(`${slow.restRoot}/projects`, { headers: { 'x-serviceapikey': 'k' } }), 504);
      expect((timeout.body as { type: string }).type).toBe('urn:timegate:problem:gateway-timeout');
    } finally {
      await down.close();
      await slow.close();
      silent.closeAllConnections();
      silent.close();
    }
  });
});
