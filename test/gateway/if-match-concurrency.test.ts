// Optimistic concurrency through the gateway (issue 31). The time-tracking model declares its
// concurrency tokens, so the REST face hands out the service's own ETags and forwards If-Match to
// the service, which compares in the write: 40 concurrent PATCHes holding one ETag give one 200
// and 39 × 412, in 10 of 10 trials. The passthrough forwards If-Match untouched: the same 40
// MERGEs give one 204 and 39 × 412. A body that is not UTF-8 is a 400 on both faces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startTestGateway } from '../helpers/gateway.js';
import { restClient } from './rest-fixture.js';

const WRITERS = 40;
const TRIALS = 10;
const NOT_UTF8 = Buffer.from([0xff, 0xfe, 0xc0, 0x80]);

describe.each(testDatabases)('If-Match through the gateway on $name', (kind) => {
  let t: TestGateway;
  let jana: string;
  let projectId: number;

  beforeAll(async () => {
    t = await startTestGateway(kind);
    jana = t.service.jana.apiKey;
    projectId = (await t.service.database.db.selectFrom('projects').select('id').where('name', '=', 'Website-Relaunch').executeTakeFirstOrThrow()).id;
  });

  afterAll(() => t?.close());

  /** A new time entry of Jana's, created over OData; its ID and ETag. */
  async function newEntry(i: number): Promise<{ id: number; etag: string }> {
    const reply = await fetch(`${t.service.root}/TimeEntries`, {
      method: 'POST',
      headers: { 'x-serviceapikey': jana, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ ProjectID: projectId, StartTime: '/Date(1763629200000)/', EndTime: '/Date(1763632800000)/', Comment: `Versuch ${i}` }),
    });
    expect(reply.status).toBe(201);
    return { id: ((await reply.json()) as { d: { ID: number } }).d.ID, etag: reply.headers.get('etag') as string };
  }

  it('the REST face hands out the service\'s ETag and sends its If-Match on: a stale one is the service\'s 412', async () => {
    const rest = restClient(t);
    const { id, etag } = await newEntry(0);
    const read = await rest.get(`/time-entries/${id}`, jana);
    expect(read.status, await read.clone().text()).toBe(200);
    expect(read.headers.get('etag')).toBe(etag);
    const first = await rest.patch(`/time-entries/${id}`, jana, { comment: 'eins' }, { 'if-match': etag });
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe('W/"2"');
    const stale = await rest.patch(`/time-entries/${id}`, jana, { comment: 'zwei' }, { 'if-match': etag });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const gone = await rest.delete(`/time-entries/${id}`, jana, { 'if-match': etag });
    expect(gone.status).toBe(412);
    expect((await rest.get(`/time-entries/${id}`, jana)).status).toBe(200);
  });

  it(`${WRITERS} concurrent PATCHes on the REST face holding one ETag: one 200 and ${WRITERS - 1} × 412, in ${TRIALS} of ${TRIALS} trials`, async () => {
    const rest = restClient(t);
    for (let trial = 0; trial < TRIALS; trial++) {
      const { id, etag } = await newEntry(trial);
      const statuses = await Promise.all(Array.from({ length: WRITERS }, async (_, i) =>
        (await rest.patch(`/time-entries/${id}`, jana, { comment: `Schreiber ${i}` }, { 'if-match': etag })).status));
      expect(statuses.sort(), `trial ${trial}`).toEqual([200, ...Array<number>(WRITERS - 1).fill(412)]);
    }
  }, 120_000);

  it(`${WRITERS} concurrent MERGEs through the passthrough holding one ETag: one 204 and ${WRITERS - 1} × 412, in ${TRIALS} of ${TRIALS} trials`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const { id, etag } = await newEntry(trial);
      const statuses = await Promise.all(Array.from({ length: WRITERS }, async (_, i) => (await fetch(`${t.origin}/V1/Api.svc/TimeEntries(${id})`, {
        method: 'MERGE',
        headers: { 'x-serviceapikey': jana, 'content-type': 'application/json', 'if-match': etag },
        body: JSON.stringify({ Comment: `Schreiber ${i}` }),
      })).status));
      expect(statuses.sort(), `trial ${trial}`).toEqual([204, ...Array<number>(WRITERS - 1).fill(412)]);
    }
  }, 120_000);

  it('a JSON body that is not UTF-8 is a 400 on the REST face and on the passthrough, and nothing is stored', async () => {
    const count = async () => Number((await t.service.database.db.selectFrom('time_entries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const body = Buffer.concat([Buffer.from(`{"projectId":${projectId},"startTime":"2026-11-20T09:00:00Z","endTime":"2026-11-20T10:00:00Z","comment":"`), NOT_UTF8, Buffer.from('"}')]);
    const restBytes = await fetch(`${t.restRoot}/time-entries`, { method: 'POST', headers: { 'x-serviceapikey': jana, 'content-type': 'application/json' }, body });
    expect(restBytes.status).toBe(400);
    expect(await restBytes.text()).toMatch(/UTF-8/);
    const odataBody = Buffer.concat([Buffer.from(`{"ProjectID":${projectId},"StartTime":"/Date(1763629200000)/","EndTime":"/Date(1763632800000)/","Comment":"`), NOT_UTF8, Buffer.from('"}')]);
    const passthrough = await fetch(`${t.origin}/V1/Api.svc/TimeEntries`, {
      method: 'POST', headers: { 'x-serviceapikey': jana, 'content-type': 'application/json', accept: 'application/json' }, body: odataBody,
    });
    expect(passthrough.status).toBe(400);
    expect(await passthrough.text()).toMatch(/UTF-8/);
    expect(await count()).toBe(before);
  });
});
