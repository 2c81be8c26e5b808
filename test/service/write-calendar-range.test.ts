// Edm.DateTime holds 0001-01-01T00:00:00 to 9999-12-31T23:59:59.999 (four-digit years), and the
// service's DateTimes are the account's wall-clock time: a time entry whose start or end would
// leave that range on the account's clock is refused with the usual 409 and its German message,
// whichever way it is written (POST, PUT, MERGE, a $batch changeset, the stopwatch), so no reader
// is ever handed `10000-02-10T...` or `0000-12-31T...`. The ends themselves, and the years before
// 1970, are ordinary dates that read back as they were written.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { changesetAt, sendBatch, single } from '../helpers/batch.js';
import { testDatabases } from '../helpers/databases.js';
import type { Format, Reply } from '../helpers/odata-client.js';
import { FORMATS, ODataClient, atomEntry, expectStatus, payload, rawPayload, readEntry } from '../helpers/odata-client.js';
import type { DemoCatalogue } from '../helpers/odata-payloads.js';
import { demoCatalogue, expectUnchanged, expectValidationError, snapshot } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

/** The milliseconds `\/Date(ms)\/` carries for wall-clock digits of any year (Date.UTC reads 0-99 as 19xx). */
function wall(year: number, month: number, day: number, hours = 0, minutes = 0, seconds = 0, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hours, minutes, seconds, ms);
  return date.getTime();
}

const OUT_OF_CALENDAR = /(StartTime|EndTime) liegt außerhalb des Kalenders von Edm\.DateTime \(0001-01-01T00:00:00 bis 9999-12-31T23:59:59\.999\)/;

describe.each(testDatabases)('DateTimes at the ends of the calendar on $name', (kind) => {
  let service: TestService;
  let jana: ODataClient;
  let demo: DemoCatalogue;

  beforeAll(async () => {
    // Berlin: the wall clock is an hour (in year 1: 53 minutes 28 seconds of local mean time) ahead of UTC.
    service = await startTestService(kind, {}, { timeZone: 'Europe/Berlin' });
    jana = new ODataClient(service.root, service.jana.apiKey);
    demo = await demoCatalogue(service);
  });

  afterAll(() => service?.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A create payload in `format` with the times as written on the wire (JSON `\/Date(ms)\/` or Atom text). */
  function entryPayload(format: Format, start: string, end: string, comment = 'Kalenderrand') {
    const base = { ProjectID: demo.projects.websiteRelaunch, Comment: comment };
    if (format === 'json') return rawPayload(JSON.stringify({ ...base, StartTime: start, EndTime: end }), 'application/json');
    return rawPayload(atomEntry({ ...base, StartTime: start, EndTime: end }), 'application/atom+xml');
  }

  const jsonDate = (ms: number) => `/Date(${ms})/`;

  it.each(FORMATS)('refuses an EndTime in year 10000 with 409 and stores nothing (%s)', async (format) => {
    const before = await snapshot(service);
    const end = format === 'json' ? jsonDate(wall(10000, 2, 10, 8)) : '10000-02-10T08:00:00';
    const start = format === 'json' ? jsonDate(wall(9999, 12, 31)) : '9999-12-31T00:00:00';
    const reply = await jana.send('POST', '/TimeEntries', entryPayload(format, start, end), { format });
    const error = expectValidationError(reply, format, 'TimeEntry', OUT_OF_CALENDAR);
    expect(error.message).toContain('EndTime liegt außerhalb');
    await expectUnchanged(service, before);
  });

  it('refuses a time whose offset puts it past the end on the account\'s clock, and a start in year 0', async () => {
    const before = await snapshot(service);
    // 23:30 at -01:00 is 00:30Z on 1 January 10000, 01:30 in Berlin.
    const late = await jana.send('POST', '/TimeEntries', entryPayload('json', '9999-12-31T20:00:00', '9999-12-31T23:30:00-01:00'), { format: 'json' });
    expectValidationError(late, 'json', 'TimeEntry', /EndTime liegt außerhalb/);
    const early = await jana.send('POST', '/TimeEntries', entryPayload('atom', '0000-12-31T23:59:59', '0001-01-01T01:00:00'), { format: 'atom' });
    expectValidationError(early, 'atom', 'TimeEntry', /StartTime liegt außerhalb/);
    const justBefore = await jana.send('POST', '/TimeEntries', entryPayload('json', jsonDate(wall(1, 1, 1) - 1), jsonDate(wall(1, 1, 1, 1))), { format: 'json' });
    expectValidationError(justBefore, 'json', 'TimeEntry', /StartTime liegt außerhalb/);
    await expectUnchanged(service, before);
  });

  it.each(FORMATS)('takes the first and the last millisecond of the calendar and reads them back as written (%s)', async (format) => {
    const first = await jana.send('POST', '/TimeEntries', entryPayload('json', jsonDate(wall(1, 1, 1)), jsonDate(wall(1, 1, 1, 2, 30))), { format });
    expectStatus(first, 201);
    const last = await jana.send('POST', '/TimeEntries', entryPayload('atom', '9999-12-31T22:00:00', '9999-12-31T23:59:59.999'), { format });
    expectStatus(last, 201);
    if (format === 'atom') {
      expect(first.text).toContain('<d:StartTime m:type="Edm.DateTime">0001-01-01T00:00:00.000</d:StartTime>');
      expect(first.text).toContain('<d:EndTime m:type="Edm.DateTime">0001-01-01T02:30:00.000</d:EndTime>');
      expect(last.text).toContain('<d:EndTime m:type="Edm.DateTime">9999-12-31T23:59:59.999</d:EndTime>');
    } else {
      expect(first.text).toContain(`"StartTime":"\\/Date(${wall(1, 1, 1)})\\/"`);
      expect(last.text).toContain(`"EndTime":"\\/Date(${wall(9999, 12, 31, 23, 59, 59, 999)})\\/"`);
    }
    expect(readEntry(first, 'TimeEntries')).toMatchObject({ DurationSeconds: 9000, DurationString: '02:30' });
    expect(readEntry(last, 'TimeEntries')).toMatchObject({ DurationSeconds: 7199 });
  });

  it('reads a day before 1970 back as written, in both formats', async () => {
    const created = await jana.send('POST', '/TimeEntries', entryPayload('atom', '1969-07-20T20:17:40', '1969-07-20T22:56:15'), { format: 'json' });
    expectStatus(created, 201);
    const id = readEntry(created, 'TimeEntries').ID as number;
    const atom = await jana.get(`/TimeEntries(${id})`, { format: 'atom' });
    expect(atom.text).toContain('<d:StartTime m:type="Edm.DateTime">1969-07-20T20:17:40.000</d:StartTime>');
    const json = await jana.get(`/TimeEntries(${id})`, { format: 'json' });
    expect(json.text).toContain(`"EndTime":"\\/Date(${wall(1969, 7, 20, 22, 56, 15)})\\/"`);
    expect(readEntry(json, 'TimeEntries')).toMatchObject({ DurationSeconds: 9515 });
  });

  it('refuses a MERGE or PUT that moves an entry past either end, and the entry stays as it was', async () => {
    const created = await jana.send('POST', '/TimeEntries', entryPayload('json', '9999-12-30T08:00:00', '9999-12-30T09:00:00'), { format: 'json' });
    expectStatus(created, 201);
    const id = readEntry(created, 'TimeEntries').ID as number;
    const before = await snapshot(service);
    const merge = await jana.send('MERGE', `/TimeEntries(${id})`, payload('json', { EndTime: new Date(wall(10000, 1, 1)) }), { format: 'json' });
    expectValidationError(merge, 'json', 'TimeEntry', /EndTime liegt außerhalb/);
    const put = await jana.send('PUT', `/TimeEntries(${id})`, entryPayload('atom', '9999-12-31T23:00:00', '10000-01-01T00:00:00'), { format: 'atom' });
    expectValidationError(put, 'atom', 'TimeEntry', /EndTime liegt außerhalb/);
    const earlier = await jana.send('MERGE', `/TimeEntries(${id})`, rawPayload('{"StartTime":"0000-06-01T00:00:00"}', 'application/json'), { format: 'json' });
    expectValidationError(earlier, 'json', 'TimeEntry', /StartTime liegt außerhalb/);
    await expectUnchanged(service, before);
  });

  it('refuses the changeset of a $batch that writes past the end, and keeps none of it', async () => {
    const before = await snapshot(service);
    const answer = await sendBatch(jana, [{
      changeset: [
        { method: 'POST', url: 'TimeEntries', contentId: '1', payload: entryPayload('json', '9999-12-31T08:00:00', '9999-12-31T09:00:00', 'im Stapel') },
        { method: 'MERGE', url: '$1', payload: payload('json', { EndTime: new Date(wall(10000, 1, 2)) }) },
      ],
    }, { method: 'GET', url: 'TimeEntries?$top=1' }]);
    expectStatus(answer.reply, 202);
    expectValidationError(single(answer, 0), 'atom', 'TimeEntry', /EndTime liegt außerhalb/);
    expectStatus(single(answer, 1), 200);
    await expectUnchanged(service, before);
    // The same changeset within the calendar is stored.
    const fine = await sendBatch(jana, [{
      changeset: [{ method: 'POST', url: 'TimeEntries', payload: entryPayload('json', '9999-12-31T08:00:00', '9999-12-31T23:59:59', 'im Stapel') }],
    }]);
    expectStatus(changesetAt(fine, 0)[0] as Reply, 201);
  });

  it('refuses to start the stopwatch when the account\'s clock is past the end, and to halt it there', async () => {
    const before = await snapshot(service);
    vi.useFakeTimers({ toFake: ['Date'] });
    // 23:30Z is 00:30 on 1 January 10000 in Berlin.
    vi.setSystemTime(new Date(wall(9999, 12, 31, 23, 30)));
    const started = await jana.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}`, { format: 'json' });
    expectValidationError(started, 'json', 'TimeEntry', /StartTime liegt außerhalb/);
    await expectUnchanged(service, before);

    vi.setSystemTime(new Date(wall(9999, 12, 31, 22, 0)));
    const running = await jana.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}`, { format: 'atom' });
    expectStatus(running, 200);
    expect(running.text).toContain('<d:StartTime m:type="Edm.DateTime">9999-12-31T23:00:00.000</d:StartTime>');
    const id = readEntry(running, 'TimeEntries').ID as number;
    vi.setSystemTime(new Date(wall(9999, 12, 31, 23, 30)));
    const halted = await jana.get('/HaltStopWatch', { format: 'json' });
    expectValidationError(halted, 'json', 'TimeEntry', /EndTime liegt außerhalb/);
    const row = await service.database.db.selectFrom('time_entries').select('end_time').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.end_time).toBeNull();
    vi.useRealTimers();
    expectStatus(await jana.delete(`/TimeEntries(${id})`), 204);
  });
});
