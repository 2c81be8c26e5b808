// Optimistic concurrency (issue 31): entities of the sets clients write carry an ETag, their row
// version (`Version`, ConcurrencyMode="Fixed"), as the ETag header of single-entity answers,
// `__metadata.etag` in JSON and `m:etag` in Atom (entries and feeds). An update or delete whose
// If-Match names another version is a 412 and writes nothing; If-None-Match on GET gives 304;
// with --require-if-match a write without If-Match is a 428. The compare is part of the write
// itself: 40 concurrent MERGEs holding one ETag give exactly one 204.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { FORMATS, ODataClient, expectStatus, payload, readError } from '../helpers/odata-client.js';
import { booking, create, expectError, expectUnchanged, readBack, snapshot } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const WRITERS = 40;
const TRIALS = 10;

describe.each(testDatabases)('If-Match and ETags on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;
  let jana: ODataClient;
  let project: number;

  beforeAll(async () => {
    service = await startTestService(kind);
    alex = new ODataClient(service.root, service.admin.apiKey);
    jana = alex.as(service.jana.apiKey);
    project = (await create(alex, 'Projects', { Name: 'Versioniert', Active: true })).ID as number;
  });

  afterAll(() => service?.close());

  async function newEntry(): Promise<{ path: string; etag: string }> {
    const reply = await jana.send('POST', '/TimeEntries', payload('json', booking(project, '2026-11-18')), { format: 'json' });
    expectStatus(reply, 201);
    const etag = reply.headers.get('etag') as string;
    expect(etag).toBe('W/"1"');
    return { path: new URL(reply.headers.get('location') as string).pathname.replace(/^\/V1\/Api\.svc/, ''), etag };
  }

  it('every single-entity answer and every entry of a feed carries the ETag, in both formats', async () => {
    const { path, etag } = await newEntry();
    for (const format of FORMATS) {
      const reply = await jana.get(path, { format });
      expectStatus(reply, 200);
      expect(reply.headers.get('etag')).toBe(etag);
      if (format === 'json') expect((JSON.parse(reply.text) as { d: { __metadata: { etag: string } } }).d.__metadata.etag).toBe(etag);
      else expect(reply.text).toContain(`m:etag="W/&quot;1&quot;"`);
      const feed = await jana.get('/TimeEntries?$top=3', { format });
      expectStatus(feed, 200);
      expect(format === 'json' ? feed.text.match(/"etag":"W\/\\"\d+\\""/g) : feed.text.match(/m:etag="W\/&quot;\d+&quot;"/g)).toHaveLength(3);
    }
    expect((await readBack(jana, path, 'TimeEntries')).Version).toBe(1);
  });

  it('a MERGE with the current ETag changes the entity and its version; the old ETag then gets 412 and writes nothing', async () => {
    const { path, etag } = await newEntry();
    const merged = await jana.send('MERGE', path, payload('json', { Comment: 'erste Änderung' }), { headers: { 'if-match': etag } });
    expectStatus(merged, 204);
    const after = await jana.get(path, { format: 'json' });
    expect(after.headers.get('etag')).toBe('W/"2"');
    const before = await snapshot(service);
    for (const format of FORMATS) {
      const stale = await jana.send('MERGE', path, payload('json', { Comment: 'verloren' }), { format, headers: { 'if-match': etag } });
      const error = expectError(stale, 412, format);
      expect(error.message).toMatch(/inzwischen geändert/);
      expect(error.lang).toBe('de-DE');
      expectError(await jana.send('PUT', path, payload('json', booking(project, '2026-11-18')), { format, headers: { 'if-match': etag } }), 412, format);
      expectError(await jana.delete(path, { format, headers: { 'if-match': etag } }), 412, format);
      expectError(await jana.delete(path, { format, headers: { 'if-match': '"bogus"' } }), 412, format);
      expectError(await jana.delete(path, { format, headers: { 'if-match': 'kein etag' } }), 412, format);
    }
    await expectUnchanged(service, before);
    expect((await readBack(jana, path, 'TimeEntries')).Comment).toBe('erste Änderung');
  });

  it('a MERGE or PUT answers 204 with the new ETag, which the next write can hold without reading the entity again', async () => {
    const { path, etag } = await newEntry();
    const merged = await jana.send('MERGE', path, payload('json', { Comment: 'mit neuem ETag' }), { headers: { 'if-match': etag } });
    expectStatus(merged, 204);
    expect(merged.text).toBe('');
    expect(merged.headers.get('etag')).toBe('W/"2"');
    const put = await jana.send('PUT', path, payload('json', booking(project, '2026-11-19')), { headers: { 'if-match': merged.headers.get('etag') as string } });
    expectStatus(put, 204);
    expect(put.headers.get('etag')).toBe('W/"3"');
    // Without If-Match too, and through the X-HTTP-Method tunnel as SAP UI5 sends it.
    const tunnelled = await jana.request(path, { method: 'POST', body: JSON.stringify({ Comment: 'getunnelt' }), contentType: 'application/json', headers: { 'x-http-method': 'MERGE' } });
    expectStatus(tunnelled, 204);
    expect(tunnelled.headers.get('etag')).toBe('W/"4"');
    const read = await jana.get(path, { format: 'json' });
    expect(read.headers.get('etag')).toBe('W/"4"');
    expect((await readBack(jana, path, 'TimeEntries')).Comment).toBe('getunnelt');
    // A stale one still fails: the header is the entity's version, not a fresh token.
    expectStatus(await jana.send('MERGE', path, payload('json', { Comment: 'alt' }), { headers: { 'if-match': put.headers.get('etag') as string } }), 412);
  });

  it('a project\'s MERGE answers its new ETag too; inside a $batch changeset, the part\'s 204 carries it', async () => {
    const created = await alex.send('POST', '/Projects', payload('json', { Name: 'ETag im Batch' }), { format: 'json' });
    const path = `/Projects(${(JSON.parse(created.text) as { d: { ID: number } }).d.ID})`;
    const merged = await alex.send('MERGE', path, payload('json', { Comment: 'eins' }), { headers: { 'if-match': 'W/"1"' } });
    expect(merged.headers.get('etag')).toBe('W/"2"');
    const { path: entry } = await newEntry();
    const body = [
      '--batch_1', 'Content-Type: multipart/mixed; boundary=changeset_1', '',
      '--changeset_1', 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', '',
      `MERGE ${entry.slice(1)} HTTP/1.1`, 'Content-Type: application/json', 'If-Match: W/"1"', '', '{"Comment":"im Batch"}',
      '--changeset_1--', '--batch_1--', '',
    ].join('\r\n');
    const reply = await jana.request('/$batch', { method: 'POST', body, contentType: 'multipart/mixed; boundary=batch_1' });
    expectStatus(reply, 202);
    expect(reply.text).toMatch(/HTTP\/1\.1 204 No Content\r\n(?:[^\r\n]+\r\n)*etag: W\/"2"\r\n/i);
  });

  it(`${WRITERS} concurrent MERGEs without If-Match all land: each is 204, and the version counts every one`, async () => {
    // Each write takes the entity its request read for the current state; one whose entity
    // another write changed in between reads it again (locked) rather than failing or losing it.
    const { path } = await newEntry();
    const replies = await Promise.all(Array.from({ length: WRITERS }, (_, i) =>
      jana.send('MERGE', path, payload('json', { [`Custom${1 + (i % 5)}`]: `Schreiber ${i}` }), { format: 'json' })));
    expect(replies.map((r) => r.status), replies.find((r) => r.status !== 204)?.text ?? '').toEqual(Array<number>(WRITERS).fill(204));
    const etags = replies.map((r) => r.headers.get('etag'));
    expect(new Set(etags).size).toBe(WRITERS);
    const stored = await readBack(jana, path, 'TimeEntries');
    expect(stored.Version).toBe(WRITERS + 1);
    expect(etags).toContain(`W/"${WRITERS + 1}"`);
    for (let n = 1; n <= 5; n++) expect(stored[`Custom${n}`]).toMatch(/^Schreiber \d+$/);
  });

  it('If-Match: * and a list naming the current ETag match; a DELETE with the current ETag deletes', async () => {
    const { path } = await newEntry();
    expectStatus(await jana.send('MERGE', path, payload('json', { Comment: 'egal welche' }), { headers: { 'if-match': '*' } }), 204);
    expectStatus(await jana.send('MERGE', path, payload('json', { Comment: 'Liste' }), { headers: { 'if-match': 'W/"1", W/"2"' } }), 204);
    expectStatus(await jana.delete(path, { headers: { 'if-match': 'W/"3"' } }), 204);
    expectStatus(await jana.get(path), 404);
  });

  it('If-None-Match on GET: 304 without a body for the current ETag, 200 otherwise', async () => {
    const { path, etag } = await newEntry();
    const notModified = await jana.get(path, { format: 'json', headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);
    expectStatus(await jana.get(path, { format: 'json', headers: { 'if-none-match': 'W/"99"' } }), 200);
  });

  it('halting a stopwatch counts its version up, so an ETag read while it ran is stale', async () => {
    const started = await jana.get(`/StartStopWatch?ProjectID=${project}&$format=json`);
    expectStatus(started, 200);
    const id = (JSON.parse(started.text) as { d: { ID: number; __metadata: { etag: string } } }).d;
    expectStatus(await jana.get('/HaltStopWatch?$format=json'), 200);
    const stale = await jana.send('MERGE', `/TimeEntries(${id.ID})`, payload('json', { Comment: 'zu spät' }), { headers: { 'if-match': id.__metadata.etag } });
    expectStatus(stale, 412);
    expect((await readBack(jana, `/TimeEntries(${id.ID})`, 'TimeEntries')).Version).toBe(2);
  });

  it('master data has versions too: a stale ETag on a project is 412', async () => {
    const created = await alex.send('POST', '/Projects', payload('json', { Name: 'Zweimal' }), { format: 'json' });
    const path = `/Projects(${(JSON.parse(created.text) as { d: { ID: number } }).d.ID})`;
    expectStatus(await alex.send('MERGE', path, payload('json', { Comment: 'a' }), { headers: { 'if-match': 'W/"1"' } }), 204);
    expectStatus(await alex.send('MERGE', path, payload('json', { Comment: 'b' }), { headers: { 'if-match': 'W/"1"' } }), 412);
  });

  it(`${WRITERS} concurrent MERGEs holding one ETag: exactly one 204 and ${WRITERS - 1} × 412, in ${TRIALS} of ${TRIALS} trials`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const { path, etag } = await newEntry();
      const replies = await Promise.all(Array.from({ length: WRITERS }, (_, i) =>
        jana.send('MERGE', path, payload('json', { Comment: `Schreiber ${i}` }), { format: 'json', headers: { 'if-match': etag } })));
      const statuses = replies.map((r) => r.status).sort();
      expect(statuses, `trial ${trial}: ${replies.find((r) => r.status !== 204 && r.status !== 412)?.text ?? ''}`)
        .toEqual([204, ...Array<number>(WRITERS - 1).fill(412)]);
      const winner = replies.findIndex((r) => r.status === 204);
      const stored = await readBack(jana, path, 'TimeEntries');
      expect(stored.Comment).toBe(`Schreiber ${winner}`);
      expect(stored.Version).toBe(2);
    }
  }, 60_000);

  it('a stale If-Match inside a $batch changeset is that changeset\'s 412, and its earlier writes are rolled back', async () => {
    const first = await newEntry();
    const second = await newEntry();
    expectStatus(await jana.send('MERGE', second.path, payload('json', { Comment: 'vorher' }), {}), 204);
    const body = [
      '--batch_1', 'Content-Type: multipart/mixed; boundary=changeset_1', '',
      '--changeset_1', 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', '',
      `MERGE ${first.path.slice(1)} HTTP/1.1`, 'Content-Type: application/json', `If-Match: ${first.etag}`, '', '{"Comment":"im Batch"}',
      '--changeset_1', 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', '',
      `MERGE ${second.path.slice(1)} HTTP/1.1`, 'Content-Type: application/json', `If-Match: ${second.etag}`, '', '{"Comment":"veraltet"}',
      '--changeset_1--', '--batch_1--', '',
    ].join('\r\n');
    const reply = await jana.request('/$batch', { method: 'POST', body, contentType: 'multipart/mixed; boundary=batch_1' });
    expectStatus(reply, 202);
    expect(reply.text).toMatch(/HTTP\/1\.1 412 Precondition Failed/);
    expect(reply.text).not.toMatch(/HTTP\/1\.1 204/);
    expect((await readBack(jana, first.path, 'TimeEntries')).Version).toBe(1);
    expect((await readBack(jana, second.path, 'TimeEntries')).Comment).toBe('vorher');
  });
});

describe.each(testDatabases)('--require-if-match on $name', (kind) => {
  let service: TestService;
  let jana: ODataClient;

  beforeAll(async () => {
    service = await startTestService(kind, { requireIfMatch: true });
    jana = new ODataClient(service.root, service.jana.apiKey);
  });

  afterAll(() => service?.close());

  it('a MERGE or DELETE without If-Match is a 428 and changes nothing; with the ETag it goes through', async () => {
    const entries = await jana.get('/TimeEntries?$top=1&$format=json');
    const entry = (JSON.parse(entries.text) as { d: { results: { ID: number; __metadata: { etag: string } }[] } }).d.results[0];
    if (entry === undefined) throw new Error('Jana has no time entries');
    const path = `/TimeEntries(${entry.ID})`;
    const before = await snapshot(service);
    const merge = await jana.send('MERGE', path, payload('json', { Comment: 'ohne' }), { format: 'json' });
    expect(readError(merge).message).toMatch(/If-Match/);
    expectError(merge, 428, 'json');
    expectError(await jana.delete(path, { format: 'atom' }), 428, 'atom');
    await expectUnchanged(service, before);
    expectStatus(await jana.send('MERGE', path, payload('json', { Comment: 'mit' }), { headers: { 'if-match': entry.__metadata.etag } }), 204);
  });
});
