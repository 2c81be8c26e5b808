// POST $batch (OData V2, [MS-ODATA] §2.2.7.6): retrieves and changesets in any order, each part
// answered with its own status, headers and body in the format it asked for; a changeset is all
// or nothing, with `$<Content-ID>` naming what an earlier request of it created; a failed
// retrieve does not stop the rest; every part is checked as it would be alone, under the batch's
// own credential; a malformed batch is a 400 before anything is written.
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { BatchReply, PartRequest } from '../helpers/batch.js';
import { BATCH_CONTENT_TYPE, batchBody, changesetAt, sendBatch, single } from '../helpers/batch.js';
import type { Entity, Reply } from '../helpers/odata-client.js';
import { CONTENT_TYPE, ODataClient, expectStatus, idOf, payload, readEntry, readFeed } from '../helpers/odata-client.js';
import type { DemoCatalogue } from '../helpers/odata-payloads.js';
import { booking, demoCatalogue, expectError, expectUnchanged, expectValidationError, snapshot } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const JSON_ACCEPT = { Accept: 'application/json' };

function expectBatch(answer: BatchReply, parts: number): void {
  expectStatus(answer.reply, 202);
  expect(answer.reply.contentType).toMatch(/^multipart\/mixed; boundary=batch_[0-9a-f-]{36}$/);
  expect(answer.parts).toHaveLength(parts);
}

describe.each(testDatabases)('$batch on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;
  let jana: ODataClient;
  let tom: ODataClient;
  let demo: DemoCatalogue;

  beforeAll(async () => {
    service = await startTestService(kind);
    alex = new ODataClient(service.root, service.admin.apiKey);
    jana = alex.as(service.jana.apiKey);
    tom = alex.as(service.tom.apiKey);
    demo = await demoCatalogue(service);
  });

  afterAll(() => service?.close());

  const entriesWithComment = async (comment: string) =>
    (await service.database.db.selectFrom('time_entries').select('id').where('comment', '=', comment).execute()).length;

  it('answers retrieves and a changeset in their order, each in its format, with $<Content-ID> naming what the changeset created', async () => {
    const answer = await sendBatch(alex, [
      { method: 'GET', url: `Projects(${demo.projects.websiteRelaunch})?$select=Name`, headers: JSON_ACCEPT },
      {
        changeset: [
          { method: 'POST', url: 'Projects', payload: payload('atom', { Name: 'Batch-Projekt', Active: true }), contentId: 'p' },
          { method: 'POST', url: '$p/TimeEntries', headers: JSON_ACCEPT, payload: payload('json', { StartTime: new Date('2026-11-16T09:00:00Z'), EndTime: new Date('2026-11-16T10:30:00Z') }), contentId: 'e' },
          { method: 'MERGE', url: '$p', payload: payload('json', { Comment: 'per Referenz geändert' }) },
          { method: 'PATCH', url: '$e', payload: payload('atom', { Comment: 'Eintrag per Referenz' }) },
        ],
      },
      { method: 'GET', url: `/V1/Api.svc/Projects?$filter=Name%20eq%20'Batch-Projekt'&$expand=TimeEntries`, headers: JSON_ACCEPT },
    ]);
    expectBatch(answer, 3);
    const first = single(answer, 0);
    expect(first.contentType).toBe(CONTENT_TYPE.json);
    expect(readEntry(first, 'Projects')).toMatchObject({ Name: 'Website-Relaunch' });

    const [project, entry, mergeProject, patchEntry] = changesetAt(answer, 1) as Reply[];
    expectStatus(project as Reply, 201);
    // No Accept: Atom, as a request alone would get.
    expect(project?.contentType).toBe(CONTENT_TYPE.atom);
    const projectId = idOf(project?.headers.get('location') ?? null);
    expect(project?.headers.get('location')).toBe(`${service.root}/Projects(${projectId})`);
    expect(project?.headers.get('x-batch-content-id')).toBe('p');
    expectStatus(entry as Reply, 201);
    expect(entry?.contentType).toBe(CONTENT_TYPE.json);
    expect(readEntry(entry as Reply, 'TimeEntries')).toMatchObject({ ProjectID: projectId, DurationSeconds: 5400 });
    expect([mergeProject?.status, patchEntry?.status, mergeProject?.text, mergeProject?.headers.get('dataserviceversion')]).toEqual([204, 204, '', '2.0']);

    const feed = readFeed(single(answer, 2), 'Projects');
    expect(feed.entities.map((e) => [e.values.ID, e.values.Comment, (e.expanded.TimeEntries as readonly Entity[]).map((t) => t.values.Comment)]))
      .toEqual([[projectId, 'per Referenz geändert', ['Eintrag per Referenz']]]);
  });

  it('answers every retrieve exactly as the same request alone: status, headers, body', async () => {
    const requests: { url: string; headers?: Record<string, string> }[] = [
      { url: 'Projects?$orderby=Name&$top=2' },
      { url: 'Projects?$top=150&$inlinecount=allpages', headers: JSON_ACCEPT },
      { url: `Projects(${demo.projects.mobileApp})/Name/$value` },
      { url: `Projects(${demo.projects.mobileApp})/Client` },
      { url: 'TimeEntries/$count' },
      { url: `Projects(${demo.projects.energieDashboard})/$links/TimeEntries?$top=3`, headers: JSON_ACCEPT },
      // Without the running stopwatch's duration, which grows between the two requests.
      { url: 'CurrentStopWatch?$select=ID,StartTime,Comment', headers: JSON_ACCEPT },
      { url: '$metadata' },
      { url: '/V1/Api.svc/' },
      { url: 'Projects(999999)' },
      { url: 'Projects?$filter=Name%20eq', headers: JSON_ACCEPT },
      { url: 'Projects?$format=csv' },
      { url: 'Nirgendwo' },
    ];
    const normalise = (reply: Reply) => ({
      status: reply.status,
      contentType: reply.contentType,
      location: reply.headers.get('location'),
      body: reply.text.replace(/<updated>[^<]*<\/updated>/g, ''),
    });
    const answer = await sendBatch(tom, requests.map((r) => ({ method: 'GET', ...r })));
    expectBatch(answer, requests.length);
    for (const [i, request] of requests.entries()) {
      const alone = await tom.get(request.url.startsWith('/') ? `${service.origin}${request.url}` : `/${request.url}`, { headers: request.headers });
      expect(normalise(single(answer, i)), request.url).toEqual(normalise(alone));
    }
  });

  it('a failed retrieve answers its own error and the batch goes on', async () => {
    const answer = await sendBatch(alex, [
      { method: 'GET', url: 'Projects(424242)', headers: JSON_ACCEPT },
      { method: 'GET', url: "Projects?$filter=Name%20eq%20'", headers: JSON_ACCEPT },
      { changeset: [{ method: 'POST', url: 'Clients', payload: payload('json', { Name: 'Nach dem Fehler' }), headers: JSON_ACCEPT }] },
      { method: 'GET', url: 'Clients/$count' },
    ]);
    expectBatch(answer, 4);
    expectError(single(answer, 0), 404, 'json');
    expectError(single(answer, 1), 400, 'json');
    expectStatus(changesetAt(answer, 2)[0] as Reply, 201);
    expect(single(answer, 3).text).toBe('4');
  });

  it('a changeset whose last request fails answers that one error, in its format, and writes nothing', async () => {
    const janasEntry = await service.database.db.selectFrom('time_entries').select('id').where('user_id', '=', service.jana.userId)
      .where('locked', '=', 0).orderBy('id').executeTakeFirstOrThrow();
    const before = await snapshot(service);
    const day = (d: number) => `2026-11-${String(d).padStart(2, '0')}`;
    const answer = await sendBatch(jana, [
      {
        changeset: [
          // An update before the failure is rolled back as well.
          { method: 'MERGE', url: `TimeEntries(${janasEntry.id})`, payload: payload('json', { Comment: 'cs-fail' }) },
          ...[2, 3, 4].map((d) => ({ method: 'POST', url: 'TimeEntries', payload: payload('atom', booking(demo.projects.websiteRelaunch, day(d), { Comment: 'cs-fail' })) })),
          {
            method: 'POST', url: 'TimeEntries', headers: JSON_ACCEPT, contentId: 'bad',
            payload: payload('json', { ...booking(demo.projects.websiteRelaunch, day(5), { Comment: 'cs-fail' }), EndTime: new Date(`${day(5)}T08:00:00Z`) }),
          },
        ],
      },
      { method: 'GET', url: "TimeEntries?$filter=Comment%20eq%20'cs-fail'", headers: JSON_ACCEPT },
    ]);
    expectBatch(answer, 2);
    const failed = single(answer, 0);
    expectValidationError(failed, 'json', 'TimeEntry', /Endzeit/);
    expect(failed.headers.get('x-batch-content-id')).toBe('bad');
    // The retrieve after it sees nothing of the changeset.
    expect(readFeed(single(answer, 1), 'TimeEntries').records).toEqual([]);
    await expectUnchanged(service, before);
  });

  it('a constraint the database refuses in the middle of a changeset rolls back what came before it', async () => {
    const before = await snapshot(service);
    // Two running stopwatches for one user: the second breaks the database's unique index.
    const running = (comment: string) => ({ method: 'POST', url: 'TimeEntries', headers: JSON_ACCEPT, payload: payload('json', { ProjectID: demo.projects.websiteRelaunch, StartTime: new Date('2026-11-20T08:00:00Z'), Comment: comment }) });
    const answer = await sendBatch(jana, [{ changeset: [
      { method: 'POST', url: 'TimeEntries', payload: payload('json', booking(demo.projects.websiteRelaunch, '2026-11-19', { Comment: 'cs-db' })) },
      running('cs-db'),
      running('cs-db'),
    ] }]);
    expectBatch(answer, 1);
    expectValidationError(single(answer, 0), 'json', 'TimeEntry', /Stoppuhr/);
    await expectUnchanged(service, before);
    expect(await entriesWithComment('cs-db')).toBe(0);
  });

  it('checks every part against the caller as alone: roles, visibility, the booking close date', async () => {
    const before = await snapshot(service);
    const answer = await sendBatch(tom, [
      { method: 'GET', url: `Projects(${demo.projects.mobileApp})`, headers: JSON_ACCEPT },
      { changeset: [{ method: 'POST', url: 'Projects', headers: JSON_ACCEPT, payload: payload('json', { Name: 'Nicht erlaubt' }) }] },
      { changeset: [{ method: 'MERGE', url: `Projects(${demo.projects.mobileApp})`, headers: JSON_ACCEPT, payload: payload('json', { Comment: 'x' }) }] },
      { changeset: [{ method: 'POST', url: 'TimeEntries', headers: JSON_ACCEPT, payload: payload('json', booking(demo.projects.websiteRelaunch, '2026-11-03', { UserID: service.jana.userId })) }] },
    ]);
    expectBatch(answer, 4);
    expectError(single(answer, 0), 404, 'json');
    expect(expectError(single(answer, 1), 403, 'json').message).toMatch(/^Nur Administratoren dürfen/);
    expectError(single(answer, 2), 404, 'json');
    expectError(single(answer, 3), 403, 'json');
    await expectUnchanged(service, before);

    await service.database.db.updateTable('account_settings').set({ booking_close_date: Date.UTC(2026, 10, 1) }).where('account_id', '=', service.accountId).execute();
    try {
      const closed = await sendBatch(jana, [{ changeset: [
        { method: 'POST', url: 'TimeEntries', headers: JSON_ACCEPT, payload: payload('json', booking(demo.projects.websiteRelaunch, '2026-11-10', { Comment: 'cs-closed' })) },
        { method: 'POST', url: 'TimeEntries', headers: JSON_ACCEPT, payload: payload('json', booking(demo.projects.websiteRelaunch, '2026-10-30', { Comment: 'cs-closed' })) },
      ] }]);
      expect(expectError(single(closed, 0), 403, 'json').message).toBe('Der Buchungszeitraum vor dem 2026-11-01 ist abgeschlossen.');
      expect(await entriesWithComment('cs-closed')).toBe(0);
    } finally {
      await service.database.db.updateTable('account_settings').set({ booking_close_date: null }).where('account_id', '=', service.accountId).execute();
    }
  });

  it('takes the batch request\'s credential: none is a 401, a query key reads but its changesets are 403s', async () => {
    const items = [
      { method: 'GET', url: 'Clients/$count' },
      { changeset: [{ method: 'POST', url: 'Clients', headers: JSON_ACCEPT, payload: payload('json', { Name: 'Per Query-Key' }) }] },
    ];
    const anonymous = await sendBatch(alex.as(null), items);
    expectError(anonymous.reply, 401, 'atom');
    expect(anonymous.reply.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expectError((await sendBatch(alex.as('not-a-key'), items, { format: 'json' })).reply, 401, 'json');

    const before = await snapshot(service);
    const byQuery = await sendBatch(alex.as(service.admin.apiKey, 'query'), items);
    expectBatch(byQuery, 2);
    expectStatus(single(byQuery, 0), 200);
    expect(expectError(single(byQuery, 1), 403, 'json').message).toMatch(/nur Lesen/);
    await expectUnchanged(service, before);
  });

  it('understands absolute paths and URIs, X-HTTP-Method, and refuses a $batch inside a batch and unknown references', async () => {
    const [mobileApp, relaunch] = [demo.projects.mobileApp, demo.projects.websiteRelaunch];
    const answer = await sendBatch(alex, [
      { method: 'GET', url: `${service.root}/Projects(${mobileApp})/Name/$value` },
      { changeset: [{ method: 'POST', url: `/v1/api.svc/Projects(${relaunch})`, headers: { 'X-HTTP-Method': 'MERGE' }, payload: payload('json', { Comment: 'getunnelt' }) }] },
      { changeset: [{ method: 'POST', url: '$batch', payload: { contentType: 'multipart/mixed; boundary=inner', body: batchBody([], 'inner') } }] },
      { changeset: [{ method: 'MERGE', url: '$7', headers: JSON_ACCEPT, payload: payload('json', { Comment: 'x' }) }] },
      { method: 'GET', url: 'ftp://elsewhere/V1/Api.svc/Projects' },
      { method: 'GET', url: '/other/root/Projects' },
    ]);
    expectBatch(answer, 6);
    expect(single(answer, 0).text).toBe('Mobile App');
    expectStatus(changesetAt(answer, 1)[0] as Reply, 204);
    expect(readEntry(await alex.get(`/Projects(${relaunch})`, { format: 'json' }), 'Projects').Comment).toBe('getunnelt');
    expect(expectError(single(answer, 2), 400, 'atom').message).toBe('Die Anfrage ist ungültig (a batch cannot hold a $batch request)');
    expect(expectError(single(answer, 3), 404, 'json').message).toBe('Die Ressource gibt es nicht (no request before this one in its changeset has Content-ID 7)');
    expect(expectError(single(answer, 4), 400, 'atom').message).toMatch(/is not an http\(s\) URI/);
    expectError(single(answer, 5), 404, 'atom');
  });

  it('refuses a malformed batch with a 400 in the format asked for before anything in it is written', async () => {
    const before = await snapshot(service);
    const create: PartRequest = { method: 'POST', url: 'Clients', payload: payload('json', { Name: 'Nie gespeichert' }) };
    const valid = batchBody([{ changeset: [create] }]);
    const cases: [string, string, RegExp][] = [
      // A good changeset first, then a part that never ends.
      ['unterminated', valid.replace(/--\r\n$/, '\r\nContent-Type: application/http\r\n\r\nGET Clients HTTP/1.1\r\n'), /is not terminated by the close delimiter/],
      ['GET in a changeset', batchBody([{ changeset: [create, { method: 'GET', url: 'Clients' }] }]), /a changeset holds writes only/],
      ['changeset in a changeset', valid.replace('Content-Type: application/http', 'Content-Type: multipart/mixed; boundary=inner\r\n\r\n--inner--'), /a changeset cannot hold another changeset/],
    ];
    for (const [what, body, message] of cases) {
      for (const format of ['atom', 'json'] as const) {
        const reply = await alex.request('/$batch', { method: 'POST', contentType: BATCH_CONTENT_TYPE, body, format });
        expect(expectError(reply, 400, format).message, what).toMatch(message);
      }
    }
    const noBoundary = await alex.request('/$batch', { method: 'POST', contentType: 'multipart/mixed', body: valid });
    expect(expectError(noBoundary, 400, 'atom').message).toBe('Die Anfrage ist ungültig (the multipart/mixed Content-Type has no boundary parameter)');
    const notMultipart = await alex.request('/$batch', { method: 'POST', contentType: 'application/json', body: '{}', format: 'json' });
    expect(expectError(notMultipart, 400, 'json').message).toBe('Die Anfrage ist ungültig (a batch or changeset is multipart/mixed, not "application/json")');
    await expectUnchanged(service, before);
    expectError(await alex.get('/$batch'), 405, 'atom');
  });

  it('streams its answer part by part: while the client does not read, the batch does not run ahead', async () => {
    // 200 pages of 100 entries (about 20 MB of answer) and, after each, a stopwatch start, which
    // stores an entry: how many are stored shows how far the batch has run.
    const started = () => service.database.db.selectFrom('time_entries').select('id').where('user_id', '=', service.tom.userId).where('comment', '=', 'gestreamt').execute();
    const items = Array.from({ length: 200 }, () => [
      { method: 'GET', url: 'TimeEntries?$top=100', headers: JSON_ACCEPT },
      { method: 'GET', url: `StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}&Comment=gestreamt` },
    ]).flat();
    const body = batchBody(items);
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(`${service.root}/$batch`, { method: 'POST', headers: { 'content-type': BATCH_CONTENT_TYPE, 'x-serviceapikey': service.tom.apiKey } }, resolve);
      req.on('error', reject);
      req.end(body);
    });
    expect(response.statusCode).toBe(202);
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Only what fits in the socket's buffers has been answered.
    expect((await started()).length).toBeLessThan(120);
    let bytes = 0;
    for await (const chunk of response) bytes += (chunk as Buffer).length;
    expect(bytes).toBeGreaterThan(10_000_000);
    expect((await started()).length).toBe(200);
  });

  it('answers a batch of a thousand retrieves, part by part in order', async () => {
    const ids = [demo.projects.websiteRelaunch, demo.projects.mobileApp, demo.projects.kundenportal];
    const answer = await sendBatch(alex, Array.from({ length: 1000 }, (_, i) => ({ method: 'GET', url: `Projects(${ids[i % 3]})/ID/$value` })));
    expectBatch(answer, 1000);
    expect(answer.parts.map((_part, i) => single(answer, i).text)).toEqual(Array.from({ length: 1000 }, (_, i) => String(ids[i % 3])));
  });
});

describe.each(testDatabases)('$batch limits on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;

  beforeAll(async () => {
    service = await startTestService(kind, { batchMaxBytes: 4096, batchMaxOperations: 5 });
    alex = new ODataClient(service.root, service.admin.apiKey);
  });

  afterAll(() => service?.close());

  const reads = (n: number) => Array.from({ length: n }, () => ({ method: 'GET', url: 'Clients/$count' }));

  it('answers a batch within the limits', async () => {
    expectBatch(await sendBatch(alex, reads(5)), 5);
  });

  it('refuses more operations than configured with 400, changeset requests counted', async () => {
    const tooMany = await sendBatch(alex, [...reads(3), { changeset: reads(3).map(() => ({ method: 'DELETE', url: 'Clients(1)' })) }], { format: 'json' });
    expect(expectError(tooMany.reply, 400, 'json').message).toBe('Die Anfrage ist ungültig (the batch holds more than 5 operations; send it in several batches)');
  });

  /** Sends the head and then `body` in pieces of 1,000 bytes every 20 ms, until the answer comes. */
  function sendSlowly(headers: Record<string, string | number>, body: string): Promise<{ status: number; connection: string | undefined; text: string; sent: number }> {
    return new Promise((resolve, reject) => {
      let sent = 0;
      const req = httpRequest(`${service.root}/$batch`, { method: 'POST', headers }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text, sent }));
      });
      req.on('error', reject);
      const timer = setInterval(() => {
        if (req.destroyed || sent >= body.length) {
          clearInterval(timer);
          if (!req.destroyed) req.end();
          return;
        }
        req.write(body.slice(sent, (sent += 1000)));
      }, 20);
    });
  }

  it('refuses a larger body with 413 while it is still being sent, by its Content-Length or as it streams in, and closes the connection', async () => {
    const body = batchBody([{ changeset: [{ method: 'POST', url: 'Clients', payload: payload('json', { Name: 'x'.repeat(50_000) }) }] }]);
    const headers = { 'content-type': BATCH_CONTENT_TYPE, 'x-serviceapikey': service.admin.apiKey, accept: 'application/json' };
    // By the Content-Length it declares, before its body is read at all.
    const declared = await sendSlowly({ ...headers, 'content-length': Buffer.byteLength(body) }, body);
    // Without a Content-Length (chunked): the reader counts.
    const streamed = await sendSlowly(headers, body);
    for (const answer of [declared, streamed]) {
      expect(answer.status).toBe(413);
      expect(answer.connection).toBe('close');
      expect(JSON.parse(answer.text).error.message.value).toBe('Die Anfrage ist zu groß (the batch is larger than 4096 bytes)');
      expect(answer.sent).toBeLessThan(body.length);
    }
    expect(await service.database.db.selectFrom('clients').select('id').where('name', '=', 'x'.repeat(50_000)).execute()).toEqual([]);
  });
});
