// `$batch` through the passthrough face, the real service behind a real gateway: the answer names
// the gateway (part bodies and Location headers, each part's Content-Length that of its rewritten
// body, with a gateway root longer than the service's); the read cache never answers nor stores a
// batch and outdates what its changesets wrote; a malformed batch is the gateway's own 400 (or
// 413) as an OData error, never forwarded and never an upstream failure for the breaker.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdge } from '../helpers/edge-gateway.js';
import { testDatabases } from '../helpers/databases.js';
import type { BatchItem, PartRequest } from '../helpers/batch.js';
import { BATCH_CONTENT_TYPE, batchBody, changesetAt, sendBatch, single } from '../helpers/batch.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startTestGateway } from '../helpers/gateway.js';
import type { Reply } from '../helpers/odata-client.js';
import { ODataClient, expectStatus, payload, readEntry, readFeed } from '../helpers/odata-client.js';
import { expectError } from '../helpers/odata-payloads.js';
import { REDIS_URL, uniqueKeyPrefix } from './cache-fixture.js';

/** Longer than `127.0.0.1:<port>`: every rewritten part changes its length. */
const GATEWAY_HOST = 'timegate-gateway.example.test';
const GATEWAY_ROOT = `http://${GATEWAY_HOST}/V1/Api.svc`;
const JSON_ACCEPT = { Accept: 'application/json' };

function entryCreate(projectId: number, day: number, comment: string, contentId?: string): PartRequest {
  const start = new Date(Date.UTC(2026, 9, day, 8));
  return {
    method: 'POST',
    url: 'TimeEntries',
    headers: JSON_ACCEPT,
    payload: payload('json', { ProjectID: projectId, StartTime: start, EndTime: new Date(start.getTime() + 3_600_000), Comment: comment }),
    ...(contentId === undefined ? {} : { contentId }),
  };
}

describe.each(testDatabases)('$batch through the passthrough on $name', (kind) => {
  let t: TestGateway;
  let alex: ODataClient;
  let projectId: number;

  beforeAll(async () => {
    t = await startTestGateway(kind, { config: { trustProxy: true, resilience: { breaker: { failureThreshold: 2 } } } });
    alex = new ODataClient(`${t.origin}/V1/Api.svc`, t.service.admin.apiKey);
    projectId = (await t.service.database.db.selectFrom('projects').select('id').where('name', '=', 'Website-Relaunch').executeTakeFirstOrThrow()).id;
  }, 60_000);

  afterAll(() => t?.close());

  const asGateway = { 'X-Forwarded-Host': GATEWAY_HOST };
  const stored = (comment: string) => t.service.database.db.selectFrom('time_entries').select('id').where('comment', '=', comment).execute();

  it('answers every part with the gateway\'s root in bodies and Location headers, each part\'s Content-Length that of its body', async () => {
    const answer = await sendBatch(alex, [
      { method: 'GET', url: `Projects(${projectId})`, headers: JSON_ACCEPT },
      { changeset: [entryCreate(projectId, 1, 'GW-Batch', 'a'), entryCreate(projectId, 2, 'GW-Batch'), { method: 'MERGE', url: '$a', payload: payload('json', { Comment: 'GW-Batch' }) }] },
      { method: 'GET', url: `Projects(${projectId})/TimeEntries?$top=2`, headers: { Accept: 'application/atom+xml' } },
    ], { headers: asGateway });
    expectStatus(answer.reply, 202);
    expect(answer.reply.contentType).toMatch(/^multipart\/mixed; boundary=batch_/);
    // readBatchAnswer checks each part's Content-Length against its bytes.
    expect(answer.parts).toHaveLength(3);
    expect(readEntry(single(answer, 0), 'Projects')).toMatchObject({ Name: 'Website-Relaunch' });
    const [first, second, merge] = changesetAt(answer, 1) as Reply[];
    expect([first?.status, second?.status, merge?.status]).toEqual([201, 201, 204]);
    for (const created of [first, second] as Reply[]) {
      const location = created.headers.get('location') ?? '';
      expect(location).toMatch(new RegExp(`^${GATEWAY_ROOT.replaceAll('.', '\\.')}/TimeEntries\\(\\d+\\)$`));
      expect(JSON.parse(created.text).d.__metadata.uri).toBe(location);
    }
    expect(first?.headers.get('x-batch-content-id')).toBe('a');
    expect(readFeed(single(answer, 2), 'TimeEntries').records).toHaveLength(2);
    expect(answer.reply.text).not.toContain(t.service.origin);
    expect(answer.reply.text).toContain(`<id>${GATEWAY_ROOT}/TimeEntries(`);
    expect(await stored('GW-Batch')).toHaveLength(2);
  });

  it('never answers a batch from the cache nor stores one, and a changeset\'s writes outdate the cached reads of its set', async () => {
    const read = `/TimeEntries/$count?$filter=Comment eq 'GW-Cache'`;
    const first = await alex.get(read);
    const again = await alex.get(read);
    expect([first.text, again.text]).toEqual(['0', '0']);
    expect(again.headers.get('cache-status') ?? '').toMatch(/hit/);

    const items: BatchItem[] = [{ method: 'GET', url: `TimeEntries/$count?$filter=Comment%20eq%20'GW-Cache'` }, { changeset: [entryCreate(projectId, 3, 'GW-Cache')] }];
    const before = t.service.requestCount();
    const one = await sendBatch(alex, items);
    const two = await sendBatch(alex, items);
    expect(t.service.requestCount() - before).toBe(2);
    expect([single(one, 0).text, single(two, 0).text]).toEqual(['0', '1']);
    expect(two.reply.headers.get('cache-status') ?? '').not.toMatch(/hit/);

    const after = await alex.get(read);
    expect(after.text).toBe('2');
    expect(await stored('GW-Cache')).toHaveLength(2);
  });

  it('refuses malformed batches itself with an OData 400, never forwarded, never an upstream failure', async () => {
    const good = batchBody([{ method: 'GET', url: 'Projects?$top=1' }]);
    const before = t.service.requestCount();
    const cases: Array<[string, string]> = [
      ['multipart/mixed; boundary=not-the-one-used', good],
      ['multipart/mixed', good],
      [BATCH_CONTENT_TYPE, batchBody([{ changeset: [{ method: 'GET', url: 'Projects' }] }])],
      [BATCH_CONTENT_TYPE, good.replace(/--\r\n$/, '\r\n')],
      [BATCH_CONTENT_TYPE, batchBody([{ changeset: [] }])],
      ['application/json', '{"requests":[]}'],
    ];
    for (const [contentType, body] of cases) {
      const reply = await alex.request('/$batch', { method: 'POST', contentType, body, format: 'json' });
      const error = expectError(reply, 400, 'json');
      expect(error.code, error.message).toBe('MALFORMED_BATCH');
    }
    expect(t.service.requestCount()).toBe(before);
    // Six refusals with a breaker that opens after two failures: still closed.
    const answer = await sendBatch(alex, [{ method: 'GET', url: 'Projects?$top=1' }]);
    expectStatus(answer.reply, 202);
  });

  it('refuses a batch larger than the body limit with 413, declared or streamed', async () => {
    const huge = batchBody([{ changeset: [{ ...entryCreate(projectId, 4, 'x'.repeat(1_100_000)) }] }]);
    const declared = await alex.request('/$batch', { method: 'POST', contentType: BATCH_CONTENT_TYPE, body: huge, format: 'json' });
    expectError(declared, 413, 'json');
    const streamed = await fetch(`${alex.root}/$batch`, {
      method: 'POST',
      headers: { 'content-type': BATCH_CONTENT_TYPE, 'x-serviceapikey': t.service.admin.apiKey, accept: 'application/json' },
      body: new Blob([huge]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await stored('x'.repeat(1_100_000))).toEqual([]);
  });

  it('forwards a batch without a key to the upstream, whose 401 the client gets', async () => {
    const reply = await alex.request('/$batch', { method: 'POST', key: null, contentType: BATCH_CONTENT_TYPE, body: batchBody([{ method: 'GET', url: 'Projects' }]), format: 'json' });
    expectError(reply, 401, 'json');
  });
});

describe.each(testDatabases)('$batch against the rate limits on $name', (kind) => {
  let t: TestGateway;
  let jana: ODataClient;
  let projectId: number;

  beforeAll(async () => {
    t = await startTestGateway(kind, {
      config: { cache: { enabled: false }, rateLimit: { byClass: { read: { limit: 6, windowSeconds: 600 }, write: { limit: 3, windowSeconds: 600 } } } },
    });
    jana = new ODataClient(`${t.origin}/V1/Api.svc`, t.service.jana.apiKey);
    projectId = (await t.service.database.db.selectFrom('projects').select('id').where('name', '=', 'Website-Relaunch').executeTakeFirstOrThrow()).id;
  }, 60_000);

  afterAll(() => t?.close());

  it('counts each operation against its class; a batch that does not fit gets 429 before anything is forwarded and takes nothing', async () => {
    const reads = (n: number): PartRequest[] => Array.from({ length: n }, () => ({ method: 'GET', url: 'Projects?$top=1' }));
    const first = await sendBatch(jana, [...reads(3), { changeset: [entryCreate(projectId, 5, 'GW-Limit'), entryCreate(projectId, 6, 'GW-Limit')] }]);
    expectStatus(first.reply, 202);
    expect(first.reply.headers.get('ratelimit')).toMatch(/^"read";r=3;t=\d+, "write";r=1;t=\d+$/);

    const before = t.service.requestCount();
    const tooMany = await sendBatch(jana, [...reads(1), { changeset: [entryCreate(projectId, 7, 'GW-Limit'), entryCreate(projectId, 8, 'GW-Limit')] }], { format: 'json' });
    const error = expectError(tooMany.reply, 429, 'json');
    expect(error.message).toMatch(/2 operations of the rate limit "write", and 1 of its 3 per 600 s are left; nothing of the batch was sent/);
    expect(Number(tooMany.reply.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(t.service.requestCount()).toBe(before);

    // Nothing was taken: three reads and one write still fit, exactly.
    const last = await sendBatch(jana, [...reads(3), { changeset: [entryCreate(projectId, 9, 'GW-Limit')] }]);
    expectStatus(last.reply, 202);
    expect((await jana.get('/Projects?$top=1')).status).toBe(429);
    expect(await t.service.database.db.selectFrom('time_entries').select('id').where('comment', '=', 'GW-Limit').execute()).toHaveLength(3);
  });
});

describe.each(testDatabases)('$batch against rate limits shared on Redis ($name)', (kind) => {
  let t: TestGateway;
  let tom: ODataClient;

  beforeAll(async () => {
    t = await startTestGateway(kind, {
      config: { cache: { enabled: false }, redis: { url: REDIS_URL, keyPrefix: uniqueKeyPrefix() }, rateLimit: { byClass: { read: { limit: 10, windowSeconds: 600 } } } },
    });
    tom = new ODataClient(`${t.origin}/V1/Api.svc`, t.service.tom.apiKey);
  }, 60_000);

  afterAll(() => t?.close());

  it('takes a batch\'s operations all or none, atomically: of five concurrent batches of four reads, two fit in ten', async () => {
    const reads: PartRequest[] = Array.from({ length: 4 }, () => ({ method: 'GET', url: 'Projects?$top=1' }));
    const answers = await Promise.all(Array.from({ length: 5 }, () => sendBatch(tom, reads)));
    expect(answers.map((a) => a.reply.status).sort()).toEqual([202, 202, 429, 429, 429]);
    // What the refused ones asked for was not taken: two reads are left.
    expect((await tom.get('/Projects?$top=1')).status).toBe(200);
    expect((await tom.get('/Projects?$top=1')).status).toBe(200);
    expect((await tom.get('/Projects?$top=1')).status).toBe(429);
  });
});

describe('$batch answers an upstream gets wrong', () => {
  it('a batch answer the gateway cannot read is a 502 OData error (or, once parts have gone, a cut-off answer), and the gateway goes on', async () => {
    let batches = 0;
    const upstream = createServer((request, response) => {
      request.resume();
      if (request.url?.endsWith('$batch') === true) {
        batches++;
        response.writeHead(202, { 'content-type': 'multipart/mixed; boundary=b' });
        response.end('--b\r\nContent-Type: application/http\r\n\r\nnot a status line\r\n--b--\r\n');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"d":{"results":[]}}');
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const edge = await startEdge(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/V1/Api.svc`);
    try {
      const client = new ODataClient(edge.root, 'any-key');
      const reply = await client.request('/$batch', { method: 'POST', contentType: BATCH_CONTENT_TYPE, body: batchBody([{ method: 'GET', url: 'Projects' }]), format: 'json' });
      const error = expectError(reply, 502, 'json');
      expect(error).toMatchObject({ code: 'BAD_GATEWAY', message: expect.stringMatching(/^the upstream's batch answer cannot be read: line 4 of the batch: "not a status line" is not an HTTP status line/) });
      expect(batches).toBe(1);
      expect((await client.get('/Projects')).status).toBe(200);
    } finally {
      await edge.close();
      upstream.closeAllConnections();
      upstream.close();
    }
  });
});
