// The remote-controlled stopwatch (service-api.md §3.1 and §4.3, data-model.md "Service
// operations"): CurrentStopWatch, StartStopWatch and HaltStopWatch, every row of the state table,
// answered in the time-entry shape in Atom and in JSON; parameters matched case-insensitively the
// way real clients send them; bad parameters refused without touching the running stopwatch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdmRecord } from '../../odata/edm.js';
import { testDatabases } from '../helpers/databases.js';
import type { Format, Reply } from '../helpers/odata-client.js';
import { CONTENT_TYPE, FORMATS, ODataClient, expectStatus, payload, readEntry } from '../helpers/odata-client.js';
import type { DemoCatalogue } from '../helpers/odata-payloads.js';
import { demoCatalogue, expectError, expectUnchanged, expectValidationError, readBack, snapshot } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

describe.each(testDatabases)('the stopwatch on $name', (kind) => {
  let service: TestService;
  let jana: ODataClient;
  let tom: ODataClient;
  let demo: DemoCatalogue;

  beforeAll(async () => {
    service = await startTestService(kind);
    jana = new ODataClient(service.root, service.jana.apiKey);
    tom = jana.as(service.tom.apiKey);
    demo = await demoCatalogue(service);
  });

  afterAll(() => service?.close());

  /** The user's running entries as stored (at most one, whatever happens). */
  async function runningOf(userId: number): Promise<number[]> {
    const rows = await service.database.db.selectFrom('time_entries').select('id')
      .where('user_id', '=', userId).where('end_time', 'is', null).execute();
    return rows.map((row) => row.id);
  }

  /** A 200 in the time-entry shape of `format`: the entry, checked to be one of TimeEntries. */
  function timeEntryOf(reply: Reply, format: Format): EdmRecord {
    expectStatus(reply, 200);
    expect(reply.contentType).toBe(CONTENT_TYPE[format]);
    const entry = readEntry(reply, 'TimeEntries');
    if (format === 'atom') {
      expect(reply.text).toMatch(/^<\?xml[^>]*\?><entry /);
      expect(reply.text).toContain('<category term="Service.TimeEntry"');
    } else {
      expect(JSON.parse(reply.text).d.__metadata).toEqual({ uri: `${service.root}/TimeEntries(${entry.ID as number})`, type: 'Service.TimeEntry', etag: `W/"${entry.Version as number}"` });
    }
    return entry;
  }

  describe.each(FORMATS)('in %s', (format: Format) => {
    beforeAll(async () => {
      // Every format starts in state "none" for Jana.
      if ((await runningOf(service.jana.userId)).length > 0) expectStatus(await jana.get('/HaltStopWatch'), 200);
    });

    it('none + CurrentStopWatch: 404, nothing changes', async () => {
      const before = await snapshot(service);
      const error = expectError(await jana.get('/CurrentStopWatch', { format }), 404, format);
      expect(error).toMatchObject({ message: 'Es läuft keine Stoppuhr.', lang: 'de-DE' });
      await expectUnchanged(service, before);
    });

    it('none + HaltStopWatch: 404, nothing changes', async () => {
      const before = await snapshot(service);
      expectError(await jana.get('/HaltStopWatch', { format }), 404, format);
      await expectUnchanged(service, before);
    });

    let firstId: number;

    it('none + StartStopWatch: a new running entry of the caller, returned', async () => {
      const startedAfter = Date.now();
      const entry = timeEntryOf(await jana.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}`, { format }), format);
      expect(entry).toMatchObject({
        UserID: service.jana.userId, ProjectID: demo.projects.websiteRelaunch, TaskID: null, TypeID: 2, EndTime: null,
        Billable: true, Locked: false, IsEditable: true, LastChangeAuthor: service.jana.userId,
      });
      expect((entry.StartTime as Date).getTime()).toBeGreaterThanOrEqual(startedAfter);
      expect((entry.StartTime as Date).getTime()).toBeLessThanOrEqual(Date.now());
      expect(entry.DurationSeconds).toBeLessThan(60);
      firstId = entry.ID as number;
      expect(await runningOf(service.jana.userId)).toEqual([firstId]);
      // It is an ordinary member of TimeEntries.
      expect(await readBack(jana, `/TimeEntries(${firstId})`, 'TimeEntries')).toMatchObject({ ID: firstId, EndTime: null });
    });

    it('running + CurrentStopWatch: the running entry, nothing changes', async () => {
      const before = await snapshot(service);
      const entry = timeEntryOf(await jana.get('/CurrentStopWatch', { format }), format);
      expect(entry).toMatchObject({ ID: firstId, EndTime: null, UserID: service.jana.userId });
      await expectUnchanged(service, before);
    });

    let secondId: number;

    it('running + StartStopWatch: the running one is halted into an ordinary entry, the new one returned', async () => {
      const entry = timeEntryOf(await jana.get(`/StartStopWatch?ProjectID=${demo.projects.kundenportal}&Comment=Zweite`, { format }), format);
      secondId = entry.ID as number;
      expect(secondId).not.toBe(firstId);
      expect(entry).toMatchObject({ ProjectID: demo.projects.kundenportal, Comment: 'Zweite', EndTime: null });
      const halted = await readBack(jana, `/TimeEntries(${firstId})`, 'TimeEntries');
      expect(halted.EndTime).toBeInstanceOf(Date);
      expect((halted.EndTime as Date).getTime()).toBeGreaterThanOrEqual((halted.StartTime as Date).getTime());
      expect((halted.EndTime as Date).getTime()).toBeLessThanOrEqual((entry.StartTime as Date).getTime());
      expect(await runningOf(service.jana.userId)).toEqual([secondId]);
    });

    it('running + HaltStopWatch: the entry with start and end is returned, then no stopwatch runs', async () => {
      const reply = await jana.get('/HaltStopWatch', { format });
      const entry = timeEntryOf(reply, format);
      // §4.3: the same shape as the entry read from TimeEntries, byte for byte but the feed time.
      const read = await jana.get(`/TimeEntries(${entry.ID as number})`, { format });
      const withoutUpdated = (text: string) => text.replace(/<updated>[^<]*<\/updated>/, '');
      expect(withoutUpdated(reply.text)).toBe(withoutUpdated(read.text));
      expect(entry.ID).toBe(secondId);
      expect(entry.EndTime).toBeInstanceOf(Date);
      const seconds = Math.floor(((entry.EndTime as Date).getTime() - (entry.StartTime as Date).getTime()) / 1000);
      expect(entry.DurationSeconds).toBe(seconds);
      expect(entry.LastChangeTime).toEqual(entry.EndTime);
      expect(await runningOf(service.jana.userId)).toEqual([]);
      expectError(await jana.get('/CurrentStopWatch', { format }), 404, format);
    });

    it('one user\'s stopwatch leaves another\'s alone', async () => {
      const tomsBefore = await runningOf(service.tom.userId);
      expect(tomsBefore).toHaveLength(1);
      timeEntryOf(await jana.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}`, { format }), format);
      timeEntryOf(await jana.get('/HaltStopWatch', { format }), format);
      expect(await runningOf(service.tom.userId)).toEqual(tomsBefore);
      const asked = Date.now();
      const toms = timeEntryOf(await tom.get('/CurrentStopWatch', { format }), format);
      expect(toms).toMatchObject({ ID: tomsBefore[0], Comment: 'Stoppuhr läuft', UserID: service.tom.userId, EndTime: null });
      // A running stopwatch's duration is the time elapsed so far.
      const started = (toms.StartTime as Date).getTime();
      expect(toms.DurationSeconds).toBeGreaterThanOrEqual(Math.floor((asked - started) / 1000));
      expect(toms.DurationSeconds).toBeLessThanOrEqual(Math.floor((Date.now() - started) / 1000));
    });
  });

  describe('a running stopwatch is a time entry without EndTime', () => {
    beforeAll(async () => {
      if ((await runningOf(service.jana.userId)).length > 0) expectStatus(await jana.get('/HaltStopWatch'), 200);
    });

    it('an entry POSTed without EndTime is the running stopwatch; ending it by MERGE stops it', async () => {
      const reply = await jana.send('POST', '/TimeEntries', payload('json', { ProjectID: demo.projects.websiteRelaunch, StartTime: new Date(Date.now() - 60_000) }), { format: 'json' });
      expectStatus(reply, 201);
      const posted = readEntry(reply, 'TimeEntries');
      expect(posted.EndTime).toBeNull();
      expect(posted.DurationSeconds).toBeGreaterThanOrEqual(60);
      expect(timeEntryOf(await jana.get('/CurrentStopWatch', { format: 'json' }), 'json').ID).toBe(posted.ID);
      // A second one while it runs is refused (one stopwatch per user).
      const before = await snapshot(service);
      const second = await jana.send('POST', '/TimeEntries', payload('json', { ProjectID: demo.projects.websiteRelaunch, StartTime: new Date() }), { format: 'json' });
      expectValidationError(second, 'json', 'TimeEntry', /läuft bereits eine Stoppuhr/);
      await expectUnchanged(service, before);
      expectStatus(await jana.send('MERGE', `/TimeEntries(${posted.ID as number})`, payload('json', { EndTime: new Date() })), 204);
      expectError(await jana.get('/CurrentStopWatch', { format: 'json' }), 404, 'json');
    });
  });

  describe('StartStopWatch parameters', () => {
    beforeAll(async () => {
      if ((await runningOf(service.jana.userId)).length > 0) expectStatus(await jana.get('/HaltStopWatch'), 200);
    });

    it('matches names case-insensitively and reads booleans and strings as real clients send them', async () => {
      const reply = await jana.get(`/StartStopWatch?ProjectId=${demo.projects.energieDashboard}&taskid=${demo.tasks.konzeption}&billable=False&COMMENT=Workshop%20vorbereiten&$format=json`);
      expect(timeEntryOf(reply, 'json')).toMatchObject({
        ProjectID: demo.projects.energieDashboard, TaskID: demo.tasks.konzeption, Billable: false, Comment: 'Workshop vorbereiten',
      });
    });

    it.each([
      ['billable=True', true], ['Billable=true', true], ['BILLABLE=1', true], ['billable=FALSE', false], ['billable=0', false],
    ])('reads %s as %s', async (parameter, billable) => {
      const reply = await jana.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}&${parameter}`, { format: 'json' });
      expect(timeEntryOf(reply, 'json').Billable).toBe(billable);
    });

    it('takes a quoted V2 string literal as well as plain text, and the writable custom fields', async () => {
      const reply = await jana.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}&Comment='Peter''s Ticket'&Custom1=T-4711&custom5='K5'`, { format: 'atom' });
      expect(timeEntryOf(reply, 'atom')).toMatchObject({ Comment: "Peter's Ticket", Custom1: 'T-4711', Custom5: 'K5', Custom2: null });
    });

    it('defaults Billable to the task\'s (Verwaltung is not billable) and true without a task', async () => {
      const withTask = timeEntryOf(await jana.get(`/StartStopWatch?ProjectID=${demo.projects.interneOrganisation}&TaskID=${demo.tasks.verwaltung}`, { format: 'json' }), 'json');
      expect(withTask.Billable).toBe(false);
      const withoutTask = timeEntryOf(await jana.get(`/StartStopWatch?ProjectID=${demo.projects.interneOrganisation}`, { format: 'json' }), 'json');
      expect(withoutTask.Billable).toBe(true);
    });

    it('ignores parameters it does not know (the spec: parameters without $ are ignored)', async () => {
      const reply = await jana.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}&Farbe=blau&UserID=${service.tom.userId}`, { format: 'json' });
      expect(timeEntryOf(reply, 'json').UserID).toBe(service.jana.userId);
    });

    it('works with the ApiKey query parameter, as §4.3 shows for all three operations', async () => {
      const byQuery = jana.as(service.jana.apiKey, 'query');
      const started = timeEntryOf(await byQuery.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}`, { format: 'json' }), 'json');
      expect(timeEntryOf(await byQuery.get('/CurrentStopWatch', { format: 'json' }), 'json').ID).toBe(started.ID);
      expect(timeEntryOf(await byQuery.get('/HaltStopWatch', { format: 'json' }), 'json').ID).toBe(started.ID);
    });
  });

  describe('a refused StartStopWatch keeps the running stopwatch running', () => {
    let running: number;

    beforeAll(async () => {
      running = timeEntryOf(await jana.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}&Comment=läuft`, { format: 'json' }), 'json').ID as number;
    });

    const refusals: ReadonlyArray<readonly [string, (d: DemoCatalogue) => string, number, RegExp]> = [
      ['without ProjectID: 400', () => 'Comment=x', 400, /ProjectID/],
      ['with a ProjectID that is not a number: 400', () => 'ProjectID=eins', 400, /ProjectID/],
      ['with a Billable that is not a boolean: 400', (d) => `ProjectID=${d.projects.websiteRelaunch}&Billable=vielleicht`, 400, /Billable/],
      ['with a TaskID beyond Int32: 400', (d) => `ProjectID=${d.projects.websiteRelaunch}&TaskID=99999999999`, 400, /TaskID/],
      ['with an unknown ProjectID: 409', () => 'ProjectID=999999', 409, /ProjectID 999999 verweist auf keinen vorhandenen Eintrag/],
      ['on an archived project: 409', (d) => `ProjectID=${d.projects.kassensystem}`, 409, /darf nicht gebucht werden/],
      ['with a task the project does not allow: 409', (d) => `ProjectID=${d.projects.energieDashboard}&TaskID=${d.tasks.support}`, 409, /nicht erlaubt/],
      ['with an unknown TaskID: 409', (d) => `ProjectID=${d.projects.websiteRelaunch}&TaskID=999999`, 409, /TaskID 999999/],
      ['with a Comment of 1501 characters: 409', (d) => `ProjectID=${d.projects.websiteRelaunch}&Comment=${'x'.repeat(1501)}`, 409, /Comment darf höchstens 1500 Zeichen/],
    ];

    describe.each(FORMATS)('in %s', (format: Format) => {
      it.each(refusals)('%s', async (_name, query, status, reason) => {
        const before = await snapshot(service);
        const reply = await jana.get(`/StartStopWatch?${query(demo)}`, { format });
        if (status === 409) expectValidationError(reply, format, 'TimeEntry', reason);
        else expect(expectError(reply, status, format).message).toMatch(reason);
        await expectUnchanged(service, before);
        expect(await runningOf(service.jana.userId)).toEqual([running]);
      });
    });

    it('a project not assigned to the user is not bookable for them (409)', async () => {
      const tomsRunning = await runningOf(service.tom.userId);
      const before = await snapshot(service);
      expectValidationError(await tom.get(`/StartStopWatch?ProjectID=${demo.projects.mobileApp}`, { format: 'json' }), 'json', 'TimeEntry', /darf nicht gebucht werden/);
      await expectUnchanged(service, before);
      expect(await runningOf(service.tom.userId)).toEqual(tomsRunning);
    });
  });

  describe('the operations are GETs', () => {
    it.each(['POST', 'PUT', 'DELETE', 'HEAD'])('%s on StartStopWatch is a 405 and starts nothing', async (method) => {
      const before = await snapshot(service);
      const reply = await jana.request(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}`, { method, format: 'json' });
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toBe('GET');
      if (method !== 'HEAD') expectError(reply, 405, 'json');
      await expectUnchanged(service, before);
    });

    it('without a key they are a 401 with a Basic challenge', async () => {
      const reply = await jana.get('/StartStopWatch?ProjectID=1', { key: null, format: 'json' });
      expectError(reply, 401, 'json');
      expect(reply.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    });
  });
});
