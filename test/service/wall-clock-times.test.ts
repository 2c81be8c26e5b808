// Edm.DateTime is the account's wall-clock time (issue 25, data-model.md): what the service sets
// itself (the stopwatch, LastChangeTime) reads in the account's zone, a zone-less value is read
// in it, one with an offset is converted; instants are stored, so durations are real elapsed
// time; `$filter` compares in the terms the client sees; another zone reads the same instants.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { Format } from '../helpers/odata-client.js';
import { FORMATS, ODataClient, expectStatus, readEntry, readFeed } from '../helpers/odata-client.js';
import { demoCatalogue } from '../helpers/odata-payloads.js';
import type { DemoCatalogue } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

/** The wall-clock digits `text` as the V2 wire carries them (ms of the digits read as UTC). */
const wall = (text: string) => Date.parse(`${text}Z`);
const digits = (value: unknown) => (value as Date).toISOString().slice(0, 19);

describe.each(testDatabases)('wall-clock DateTimes on $name', (kind) => {
  let service: TestService;
  let jana: ODataClient;
  let alex: ODataClient;
  let demo: DemoCatalogue;

  beforeAll(async () => {
    service = await startTestService(kind, { pageSize: 3 }, { timeZone: 'Europe/Berlin' });
    jana = new ODataClient(service.root, service.jana.apiKey);
    alex = jana.as(service.admin.apiKey);
    demo = await demoCatalogue(service);
  });

  afterAll(() => service?.close());

  afterEach(() => {
    vi.useRealTimers();
  });

  const setZone = (timeZone: string) =>
    service.database.db.updateTable('account_settings').set({ time_zone: timeZone }).where('account_id', '=', service.accountId).execute();

  async function storedTimes(id: number): Promise<{ start: number; end: number | null; changed: number }> {
    const row = await service.database.db.selectFrom('time_entries').select(['start_time', 'end_time', 'last_change_time'])
      .where('id', '=', id).executeTakeFirstOrThrow();
    return { start: Number(row.start_time), end: row.end_time === null ? null : Number(row.end_time), changed: Number(row.last_change_time) };
  }

  async function stopwatchAt(instant: string, format: Format): Promise<{ text: string; id: number }> {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(instant));
    try {
      const started = await jana.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}`, { format });
      expectStatus(started, 200);
      const id = readEntry(started, 'TimeEntries').ID as number;
      expect(await storedTimes(id)).toMatchObject({ start: Date.parse(instant), end: null });
      const current = await jana.get('/CurrentStopWatch', { format });
      expectStatus(current, 200);
      expect(digits(readEntry(current, 'TimeEntries').StartTime)).toBe(digits(readEntry(started, 'TimeEntries').StartTime));
      expectStatus(await jana.get('/HaltStopWatch'), 200);
      return { text: started.text, id };
    } finally {
      vi.useRealTimers();
    }
  }

  it.each(FORMATS)('a stopwatch started at 21:32:51Z reads 22:32:51 in November and 23:32:51 in July (%s)', async (format) => {
    const winter = await stopwatchAt('2026-11-20T21:32:51Z', format);
    const summer = await stopwatchAt('2026-07-20T21:32:51Z', format);
    if (format === 'json') {
      expect(winter.text).toContain(`"StartTime":"\\/Date(${wall('2026-11-20T22:32:51')})\\/"`);
      expect(winter.text).toContain(`"LastChangeTime":"\\/Date(${wall('2026-11-20T22:32:51')})\\/"`);
      expect(summer.text).toContain(`"StartTime":"\\/Date(${wall('2026-07-20T23:32:51')})\\/"`);
    } else {
      expect(winter.text).toContain('<d:StartTime m:type="Edm.DateTime">2026-11-20T22:32:51.000</d:StartTime>');
      expect(summer.text).toContain('<d:StartTime m:type="Edm.DateTime">2026-07-20T23:32:51.000</d:StartTime>');
    }
    // Halted at the same (frozen) instant: the end reads like the start.
    const halted = readEntry(await jana.get(`/TimeEntries(${winter.id})`, { format }), 'TimeEntries');
    expect(digits(halted.EndTime)).toBe('2026-11-20T22:32:51');
  });

  it('a zone-less 01:30 to 03:30 across the night the clocks go forward reads back as sent and lasts one hour', async () => {
    const body = JSON.stringify({ ProjectID: demo.projects.websiteRelaunch, StartTime: '2026-03-29T01:30:00', EndTime: '2026-03-29T03:30:00' });
    const created = await jana.request('/TimeEntries', { method: 'POST', body, contentType: 'application/json', format: 'json' });
    expectStatus(created, 201);
    const entry = readEntry(created, 'TimeEntries');
    expect(entry).toMatchObject({ DurationSeconds: 3600, DurationString: '01:00', RevenuePerHour: '95', RevenueTotal: '95' });
    expect(await storedTimes(entry.ID as number)).toMatchObject({ start: Date.parse('2026-03-29T00:30:00Z'), end: Date.parse('2026-03-29T01:30:00Z') });
    for (const format of FORMATS) {
      const read = readEntry(await jana.get(`/TimeEntries(${entry.ID as number})`, { format }), 'TimeEntries');
      expect([digits(read.StartTime), digits(read.EndTime), read.DurationSeconds]).toEqual(['2026-03-29T01:30:00', '2026-03-29T03:30:00', 3600]);
    }
  });

  it('a skipped wall-clock time moves forward by the gap; a repeated one is its first occurrence', async () => {
    const post = async (start: string, end: string) => {
      const body = JSON.stringify({ ProjectID: demo.projects.websiteRelaunch, StartTime: start, EndTime: end });
      const reply = await jana.request('/TimeEntries', { method: 'POST', body, contentType: 'application/json', format: 'json' });
      expectStatus(reply, 201);
      return readEntry(reply, 'TimeEntries');
    };
    const skipped = await post('2026-03-29T02:30:00', '2026-03-29T04:00:00');
    expect([digits(skipped.StartTime), skipped.DurationSeconds]).toEqual(['2026-03-29T03:30:00', 1800]);
    const repeated = await post('2026-10-25T02:30:00', '2026-10-25T03:30:00');
    // 02:30 CEST (00:30Z) to 03:30 CET (02:30Z): two hours went by.
    expect(await storedTimes(repeated.ID as number)).toMatchObject({ start: Date.parse('2026-10-25T00:30:00Z'), end: Date.parse('2026-10-25T02:30:00Z') });
    expect([digits(repeated.StartTime), digits(repeated.EndTime), repeated.DurationSeconds, repeated.DurationString])
      .toEqual(['2026-10-25T02:30:00', '2026-10-25T03:30:00', 7200, '02:00']);
  });

  it('a value with an offset is the instant it names, shown on the account\'s wall clock', async () => {
    const start = Date.parse('2026-11-18T08:00:00Z');
    for (const [startText, endText] of [
      [`/Date(${start}+0060)/`, `/Date(${start + 3_600_000}-0300)/`],
      ['2026-11-18T03:00:00-05:00', '2026-11-18T08:00:00Z'],
    ] as const) {
      const body = JSON.stringify({ ProjectID: demo.projects.websiteRelaunch, StartTime: startText, EndTime: endText });
      const reply = await jana.request('/TimeEntries', { method: 'POST', body, contentType: 'application/json', format: 'json' });
      expectStatus(reply, 201);
      const entry = readEntry(reply, 'TimeEntries');
      expect((await storedTimes(entry.ID as number)).start).toBe(start);
      expect(digits(entry.StartTime)).toBe('2026-11-18T09:00:00');
    }
  });

  describe('filters and pages in the terms the client sees', () => {
    let ids: number[] = [];

    beforeAll(async () => {
      // Alex's entries on the nights around both changes and around midnight, as instants.
      const starts = ['2026-11-19T23:30:00Z', '2026-11-20T00:30:00Z', '2026-03-29T00:30:00Z', '2026-03-29T01:30:00Z',
        '2026-10-25T00:30:00Z', '2026-10-25T01:15:00Z', '2026-10-25T01:45:00Z', '2026-10-25T02:30:00Z'];
      ids = [];
      for (const start of starts) {
        const t = Date.parse(start);
        const [row] = await service.database.db.insertInto('time_entries').values({
          account_id: service.accountId, user_id: service.admin.userId, project_id: demo.projects.interneOrganisation,
          type_id: 2, start_time: t, end_time: t + 600_000, billable: 0, locked: 0, comment: 'Uhrzeittest',
          last_change_time: t, last_change_author: service.admin.userId,
        } as never).returning('id').execute();
        ids.push((row as { id: number }).id);
      }
    });

    afterAll(() => setZone('Europe/Berlin'));

    const filtered = async (filter: string) => {
      const path = `/TimeEntries?$filter=${encodeURIComponent(`Comment eq 'Uhrzeittest' and ${filter}`)}&$orderby=StartTime&$format=json`;
      return (await alex.readAll(path, 'TimeEntries')).records.map((r) => digits(r.StartTime));
    };

    it('StartTime ge datetime\'2026-11-20T00:00:00\' finds the entry that starts at 00:30 that day in Berlin', async () => {
      expect(await filtered("StartTime ge datetime'2026-11-20T00:00:00' and StartTime lt datetime'2026-11-21T00:00:00'"))
        .toEqual(['2026-11-20T00:30:00', '2026-11-20T01:30:00']);
      expect(await filtered("day(StartTime) eq 20 and month(StartTime) eq 11")).toEqual(['2026-11-20T00:30:00', '2026-11-20T01:30:00']);
      expect(await filtered("hour(StartTime) eq 0 and year(StartTime) eq 2026")).toEqual(['2026-11-20T00:30:00']);
      expect(await filtered("StartTime eq datetime'2026-03-29T03:30:00'")).toEqual(['2026-03-29T03:30:00']);
    });

    it('the repeated hour reads twice, in the order the time went by, and paging neither loses nor repeats an entry', async () => {
      // Pages of three: the first ends on the first 02:30 of the repeated hour, the next link
      // must go on from that instant (01:15Z reads 02:15), not from its wall clock.
      const all = await alex.readAll(`/TimeEntries?$filter=${encodeURIComponent("Comment eq 'Uhrzeittest'")}&$orderby=StartTime&$format=json`, 'TimeEntries');
      expect(all.pageSizes).toEqual([3, 3, 2]);
      expect(all.records.map((r) => digits(r.StartTime))).toEqual([
        '2026-03-29T01:30:00', '2026-03-29T03:30:00', '2026-10-25T02:30:00',
        '2026-10-25T02:15:00', '2026-10-25T02:45:00', '2026-10-25T03:30:00',
        '2026-11-20T00:30:00', '2026-11-20T01:30:00',
      ]);
      expect(new Set(all.records.map((r) => r.ID))).toEqual(new Set(ids));
    });

    it('the same account in America/New_York reads the same instants in New York time, and filters agree', async () => {
      await setZone('America/New_York');
      expect(await filtered("StartTime ge datetime'2026-11-19T18:00:00' and StartTime lt datetime'2026-11-20T00:00:00'"))
        .toEqual(['2026-11-19T18:30:00', '2026-11-19T19:30:00']);
      expect(await filtered("day(StartTime) eq 24 and month(StartTime) eq 10")).toEqual(['2026-10-24T20:30:00', '2026-10-24T21:15:00', '2026-10-24T21:45:00', '2026-10-24T22:30:00']);
      const reply = await alex.get(`/TimeEntries(${ids[0] as number})`, { format: 'atom' });
      expect(reply.text).toContain('<d:StartTime m:type="Edm.DateTime">2026-11-19T18:30:00.000</d:StartTime>');
      expect(reply.text).toContain('<d:EndTime m:type="Edm.DateTime">2026-11-19T18:40:00.000</d:EndTime>');
      await setZone('Europe/Berlin');
      expect(await filtered("StartTime ge datetime'2026-11-19T18:00:00' and StartTime lt datetime'2026-11-20T00:00:00'"))
        .toEqual([]);
    });
  });

  it('the closed booking period ends at midnight on the account\'s wall clock, and says so', async () => {
    const settings = () => service.database.db.updateTable('account_settings').where('account_id', '=', service.accountId);
    await settings().set({ booking_close_date: Date.parse('2026-10-31T23:00:00Z') }).execute();
    try {
      const [shown] = readFeed(await jana.get('/AccountSettings', { format: 'json' }), 'AccountSettings').records;
      expect(digits(shown?.BookingCloseDate)).toBe('2026-11-01T00:00:00');
      const post = (start: string, end: string) => jana.request('/TimeEntries', {
        method: 'POST', contentType: 'application/json', format: 'json',
        body: JSON.stringify({ ProjectID: demo.projects.websiteRelaunch, StartTime: start, EndTime: end }),
      });
      const refused = await post('2026-10-31T23:30:00', '2026-10-31T23:45:00');
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('Der Buchungszeitraum vor dem 2026-11-01 ist abgeschlossen.');
      expectStatus(await post('2026-11-01T00:30:00', '2026-11-01T00:45:00'), 201);
    } finally {
      await settings().set({ booking_close_date: null }).execute();
    }
  });

  it('GetChangesDigest names the current time on the wall clock, and reads LastSynchronizationTime on it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-20T21:32:51Z'));
    try {
      const reply = await alex.get(`/GetChangesDigest?LastSynchronizationTime=datetime'2026-11-20T22:30:00'`, { format: 'json' });
      expectStatus(reply, 200);
      expect(reply.text).toContain(`"CurrentServerTime":"\\/Date(${wall('2026-11-20T22:32:51')})\\/"`);
    } finally {
      vi.useRealTimers();
    }
  });
});
