// The REST face's date-times (issue 25): RFC 3339 with the offset of the account's zone at that
// instant, read with any offset, exact through the hour that repeats when the clocks go back;
// filters and cursors agree with what is shown; the OpenAPI document says so.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startTestGateway } from '../helpers/gateway.js';
import { demoCatalogue } from '../helpers/odata-payloads.js';
import type { DemoCatalogue } from '../helpers/odata-payloads.js';
import type { Json } from './rest-fixture.js';
import { restClient } from './rest-fixture.js';

describe.each(testDatabases)('REST date-times of an account in Europe/Berlin on $name', (kind) => {
  let t: TestGateway;
  let rest: ReturnType<typeof restClient>;
  let demo: DemoCatalogue;
  let admin: string;

  beforeAll(async () => {
    t = await startTestGateway(kind, { serviceOptions: { timeZone: 'Europe/Berlin' } });
    rest = restClient(t);
    demo = await demoCatalogue(t.service);
    admin = t.service.admin.apiKey;
  });

  afterAll(() => t?.close());

  afterEach(() => {
    vi.useRealTimers();
  });

  const json = async (response: Response, status: number): Promise<Json> => {
    const text = await response.text();
    expect(response.status, text).toBe(status);
    return JSON.parse(text) as Json;
  };

  it('a stopwatch started at 21:32:51Z is 22:32:51+01:00 in November and 23:32:51+02:00 in July', async () => {
    for (const [instant, shown] of [['2026-11-20T21:32:51Z', '2026-11-20T22:32:51+01:00'], ['2026-07-20T21:32:51Z', '2026-07-20T23:32:51+02:00']]) {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date(instant as string));
      try {
        const started = await json(await rest.post('/stopwatch', admin, { projectId: demo.projects.interneOrganisation }), 200);
        expect(started.startTime).toBe(shown);
        expect((await json(await rest.get(`/time-entries/${started.id as number}`, admin), 200)).startTime).toBe(shown);
        await json(await rest.post('/stopwatch/halt', admin), 200);
      } finally {
        vi.useRealTimers();
      }
    }
  });

  it('an entry in the repeated hour keeps its offset both ways, lasts what went by, and filters find it by instant', async () => {
    // 02:30 happens twice on 2026-10-25 in Berlin: +02:00 (00:30Z), then +01:00 (01:30Z).
    const first = await json(await rest.post('/time-entries', admin, {
      projectId: demo.projects.interneOrganisation, startTime: '2026-10-25T02:30:00+02:00', endTime: '2026-10-25T02:45:00+02:00', comment: 'Zeitumstellung',
    }), 201);
    const second = await json(await rest.post('/time-entries', admin, {
      projectId: demo.projects.interneOrganisation, startTime: '2026-10-25T01:30:00Z', endTime: '2026-10-25T03:30:00+01:00', comment: 'Zeitumstellung',
    }), 201);
    expect([first.startTime, first.endTime, first.durationSeconds]).toEqual(['2026-10-25T02:30:00+02:00', '2026-10-25T02:45:00+02:00', 900]);
    expect([second.startTime, second.endTime, second.durationSeconds]).toEqual(['2026-10-25T02:30:00+01:00', '2026-10-25T03:30:00+01:00', 3600]);
    const filter = encodeURIComponent("comment eq 'Zeitumstellung' and startTime ge datetime'2026-10-25T02:30:00+01:00'");
    const later = await json(await rest.get(`/time-entries?filter=${filter}`, admin), 200);
    expect((later.items as Json[]).map((e) => e.id)).toEqual([second.id]);
    // One a page: the cursor goes on from the instant, through the repeated hour.
    const seen: unknown[] = [];
    let next: string | undefined = `/time-entries?filter=${encodeURIComponent("comment eq 'Zeitumstellung'")}&orderBy=startTime&limit=1`;
    while (next !== undefined && seen.length < 5) {
      const page = await json(await rest.get(next, admin), 200);
      seen.push(...(page.items as Json[]).map((e) => e.startTime));
      next = typeof page.next === 'string' ? page.next : undefined;
    }
    expect(seen).toEqual(['2026-10-25T02:30:00+02:00', '2026-10-25T02:30:00+01:00']);
  });

  it('the OpenAPI document says DateTimes carry the offset and are read with any', async () => {
    const document = await json(await fetch(`${t.origin}/openapi.json`), 200);
    const startTimes = JSON.stringify(document).match(/"startTime":\{[^}]*\}/g) ?? [];
    expect(startTimes.length).toBeGreaterThan(1);
    for (const schema of startTimes) expect(schema).toContain('"format":"date-time"');
    expect(startTimes.some((schema) => schema.includes("Date-time (RFC 3339) with the offset of the service's time zone at that instant, e.g. 2026-11-22T09:00:00+01:00; read with any offset."))).toBe(true);
  });
});
