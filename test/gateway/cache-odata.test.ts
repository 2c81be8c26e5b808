// The read cache on the OData passthrough face, and across both faces: one entry per
// representation, writes on one face outdating reads on the other, function imports that change
// data (StartStopWatch is a GET) never cached, links between sets honoured, $metadata long-lived.
import { connect } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { EdgeGateway } from './cache-fixture.js';
import { startEdgeGateway } from './cache-fixture.js';

const JSON_ACCEPT = 'application/json';
const ATOM_ACCEPT = 'application/atom+xml';

interface ODataEntry {
  readonly ID: number;
  readonly Name?: string;
  readonly RevenuePerHour?: string | null;
}

describe.each(testDatabases)('read cache on the OData face ($name)', (kind) => {
  let t: EdgeGateway;
  const as = (key: string, accept = JSON_ACCEPT): Record<string, string> => ({ 'X-ServiceApiKey': key, Accept: accept });

  beforeAll(async () => {
    t = await startEdgeGateway(kind, { cache: { defaultTtlSeconds: 60, metadataTtlSeconds: 3600 } });
  });
  afterAll(() => t.close());

  test('JSON and Atom of one URL are separate entries, each answered from the cache', async () => {
    const url = `${t.odataRoot}/Clients?$top=2`;
    const json = await fetch(url, { headers: as(t.service.admin.apiKey) });
    expect(json.headers.get('x-cache')).toBe('MISS');
    expect(json.headers.get('content-type')).toContain('application/json');
    const jsonBody = await json.text();
    const atom = await fetch(url, { headers: as(t.service.admin.apiKey, ATOM_ACCEPT) });
    expect(atom.headers.get('x-cache')).toBe('MISS');
    expect(atom.headers.get('content-type')).toContain('application/atom+xml');
    const atomBody = await atom.text();
    const calls = t.service.requestCount();

    const jsonAgain = await fetch(url, { headers: as(t.service.admin.apiKey) });
    expect(jsonAgain.headers.get('x-cache')).toBe('HIT');
    expect(await jsonAgain.text()).toBe(jsonBody);
    const atomAgain = await fetch(url, { headers: as(t.service.admin.apiKey, ATOM_ACCEPT) });
    expect(atomAgain.headers.get('x-cache')).toBe('HIT');
    expect(await atomAgain.text()).toBe(atomBody);
    expect(t.service.requestCount()).toBe(calls);
  });

  test('a HEAD answered from the cache says the Content-Length of the GET it stands for, with no body', async () => {
    const url = `${t.odataRoot}/Projects?$top=3`;
    const get = await fetch(url, { headers: as(t.service.admin.apiKey) });
    const length = (await get.arrayBuffer()).byteLength;
    expect(get.headers.get('content-length')).toBe(String(length));
    const calls = t.service.requestCount();
    const head = await fetch(url, { method: 'HEAD', headers: as(t.service.admin.apiKey) });
    expect(head.status).toBe(200);
    expect(head.headers.get('x-cache')).toBe('HIT');
    expect(head.headers.get('content-length')).toBe(String(length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    expect(t.service.requestCount()).toBe(calls);
  });

  test('the ApiKey query parameter and the header of one key share a partition; another key does not', async () => {
    const url = `${t.odataRoot}/Tasks?$top=1&$format=json`;
    const byQuery = await fetch(`${url}&ApiKey=${encodeURIComponent(t.service.jana.apiKey)}`);
    expect(byQuery.status).toBe(200);
    expect(byQuery.headers.get('x-cache')).toBe('MISS');
    const byHeader = await fetch(url, { headers: { 'X-ServiceApiKey': t.service.jana.apiKey } });
    expect(byHeader.headers.get('x-cache')).toBe('HIT');
    const otherKey = await fetch(`${url}&ApiKey=${encodeURIComponent(t.service.tom.apiKey)}`);
    expect(otherKey.headers.get('x-cache')).toBe('MISS');
  });

  test('a create through the OData face outdates the REST face’s cached list', async () => {
    const restList = `${t.restRoot}/projects?limit=100`;
    await fetch(restList, { headers: { 'X-ServiceApiKey': t.service.admin.apiKey } });
    const cached = await fetch(restList, { headers: { 'X-ServiceApiKey': t.service.admin.apiKey } });
    expect(cached.headers.get('x-cache')).toBe('HIT');

    const name = `Cache ${kind.name} ${Date.now()}`.slice(0, 50);
    const created = await fetch(`${t.odataRoot}/Projects`, {
      method: 'POST',
      headers: { ...as(t.service.admin.apiKey), 'Content-Type': 'application/json' },
      body: JSON.stringify({ Name: name, Active: true }),
    });
    expect(created.status).toBe(201);

    const after = await fetch(restList, { headers: { 'X-ServiceApiKey': t.service.admin.apiKey } });
    expect(after.headers.get('x-cache')).toBe('MISS');
    const names = ((await after.json()) as { items: Array<{ name: string }> }).items.map((p) => p.name);
    expect(names).toContain(name);
  });

  test('function imports are never cached: StartStopWatch (a GET that changes data), CurrentStopWatch (computed now)', async () => {
    const current = `${t.odataRoot}/CurrentStopWatch`;
    const before = await fetch(current, { headers: as(t.service.tom.apiKey) });
    expect(before.status).toBe(200);
    const beforeId = ((await before.json()) as { d: ODataEntry }).d.ID;
    const again0 = await fetch(current, { headers: as(t.service.tom.apiKey) });
    expect(again0.headers.get('x-cache')).toBeNull();
    expect(again0.headers.get('cache-status')).toBe('timegate; fwd=bypass');

    const start = `${t.odataRoot}/StartStopWatch?ProjectID=1`;
    const calls = t.service.requestCount();
    const started = await fetch(start, { headers: as(t.service.tom.apiKey) });
    expect(started.status).toBe(200);
    expect(started.headers.get('x-cache')).toBeNull();
    const startedId = ((await started.json()) as { d: ODataEntry }).d.ID;
    expect(startedId).not.toBe(beforeId);
    const again = await fetch(start, { headers: as(t.service.tom.apiKey) });
    expect(again.status).toBe(200);
    expect(t.service.requestCount()).toBe(calls + 2);
    const againId = ((await again.json()) as { d: ODataEntry }).d.ID;

    const now = await fetch(current, { headers: as(t.service.tom.apiKey) });
    expect(now.headers.get('x-cache')).toBeNull();
    expect(((await now.json()) as { d: ODataEntry }).d.ID).toBe(againId);
  });

  test('a change of a project outdates cached time entries, whose values are computed from it', async () => {
    const entries = `${t.odataRoot}/TimeEntries?$filter=ProjectID eq 1&$top=1&$format=json`;
    const first = await fetch(entries, { headers: { 'X-ServiceApiKey': t.service.admin.apiKey } });
    const rateBefore = ((await first.json()) as { d: { results: ODataEntry[] } }).d.results[0]?.RevenuePerHour;
    expect((await fetch(entries, { headers: { 'X-ServiceApiKey': t.service.admin.apiKey } })).headers.get('x-cache')).toBe('HIT');

    const patched = await fetch(`${t.restRoot}/projects/1`, {
      method: 'PATCH',
      headers: { 'X-ServiceApiKey': t.service.admin.apiKey, 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ hourlyRate: '123.5' }),
    });
    expect(patched.status).toBeLessThan(300);

    const after = await fetch(entries, { headers: { 'X-ServiceApiKey': t.service.admin.apiKey } });
    expect(after.headers.get('x-cache')).toBe('MISS');
    const rateAfter = ((await after.json()) as { d: { results: ODataEntry[] } }).d.results[0]?.RevenuePerHour;
    expect(rateAfter).not.toBe(rateBefore);
    expect(Number(rateAfter)).toBe(123.5);
  });

  test('clients that leave with pipelined hits unanswered leave the gateway answering the rest', async () => {
    const path = '/V1/Api.svc/TimeEntries?$top=1&$format=json';
    const headers = as(t.service.admin.apiKey);
    await (await fetch(`${t.origin}${path}`, { headers })).arrayBuffer();
    const { port } = new URL(t.origin);
    const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-ServiceApiKey: ${t.service.admin.apiKey}\r\nAccept: application/json\r\n\r\n`;
    // Each writes 40 requests in one segment and goes at once: the gateway writes that turn's
    // hits to connections whose client has left.
    let half = 0;
    await Promise.all(Array.from({ length: 20 }, () => new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        // Half the clients close their side with the requests (the FIN may come in the same
        // read), half reset the connection after them.
        socket.end(request.repeat(40), () => {
          if (half++ % 2 === 0) socket.destroy();
          resolve();
        });
      });
      socket.on('error', () => resolve());
    })));
    const after = await Promise.all(Array.from({ length: 20 }, () => fetch(`${t.origin}${path}`, { headers })));
    for (const response of after) {
      expect(response.status).toBe(200);
      expect(response.headers.get('x-cache')).toBe('HIT');
      await response.arrayBuffer();
    }
  });

  test('$metadata stays cached across writes to entity sets', async () => {
    const metadata = `${t.odataRoot}/$metadata`;
    const first = await fetch(metadata, { headers: { 'X-ServiceApiKey': t.service.admin.apiKey } });
    expect(first.status).toBe(200);
    await fetch(`${t.restRoot}/projects/2`, {
      method: 'PATCH',
      headers: { 'X-ServiceApiKey': t.service.admin.apiKey, 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ comment: 'metadata does not change with data' }),
    });
    const second = await fetch(metadata, { headers: { 'X-ServiceApiKey': t.service.admin.apiKey } });
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(await second.text()).toBe(await first.text());
  });

  test('hits that arrive together are each answered with their own entry, under their own key', async () => {
    // Pipelined, so that one read of a connection brings the gateway several requests at once:
    // hits are then written together at the end of the turn (hit-writer.ts), and none may get
    // another's answer.
    const pool = new Pool(t.origin, { connections: 4, pipelining: 50 });
    const get = async (path: string, key: string) => {
      const response = await pool.request({ method: 'GET', path, headers: as(key) });
      return { status: response.statusCode, cache: response.headers['x-cache'], body: await response.body.text() };
    };
    try {
      const list = await get('/V1/Api.svc/TimeEntries?$top=12&$format=json', t.service.jana.apiKey);
      const ids = (JSON.parse(list.body) as { d: { results: ODataEntry[] } }).d.results.map((entry) => entry.ID);
      expect(ids.length).toBeGreaterThan(4);
      const users = [t.service.admin, t.service.jana];
      const path = (id: number) => `/V1/Api.svc/TimeEntries(${id})?$format=json`;
      const expected = new Map<string, string>();
      for (const user of users) {
        for (const id of ids) {
          const first = await get(path(id), user.apiKey);
          expect(first.status).toBe(200);
          expected.set(`${user.apiKey} ${id}`, first.body);
        }
      }
      const calls = t.service.requestCount();
      const asked = Array.from({ length: 400 }, (_, i) => ({ user: users[i % 2] as (typeof users)[number], id: ids[(i * 7) % ids.length] as number }));
      const answers = await Promise.all(asked.map(async ({ user, id }) => ({ user, id, ...(await get(path(id), user.apiKey)) })));
      for (const answer of answers) {
        expect(answer.cache).toBe('HIT');
        expect(answer.body).toBe(expected.get(`${answer.user.apiKey} ${answer.id}`));
        expect((JSON.parse(answer.body) as { d: ODataEntry }).d.ID).toBe(answer.id);
      }
      expect(t.service.requestCount()).toBe(calls);
    } finally {
      await pool.close();
    }
  });
});
