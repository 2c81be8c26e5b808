// Validation errors (service-api.md §7, data-model.md): an entity that breaks a rule is a 409 whose
// body is the XML `m:error` (application/xml, a `code` element, a `message` with xml:lang and a
// German text naming the resource type and the reason) or its JSON twin
// `{"error":{"code":"","message":{"lang":"de-DE","value":"..."}}}`; nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NS_METADATA } from '../../odata/namespaces.js';
import { testDatabases } from '../helpers/databases.js';
import type { Format, PayloadValue } from '../helpers/odata-client.js';
import { FORMATS, ODataClient, payload } from '../helpers/odata-client.js';
import type { DemoCatalogue, NOUN, OtherAccount } from '../helpers/odata-payloads.js';
import { booking, create, demoCatalogue, expectUnchanged, expectValidationError, otherAccount, snapshot } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

interface Rule {
  readonly name: string;
  readonly type: keyof typeof NOUN;
  /** The request: a create (POST set) or an update (MERGE of `target`). */
  readonly method: 'POST' | 'MERGE';
  readonly set: string;
  /** For MERGE: the entity to change, by the fixtures of the suite. */
  readonly target?: (f: Fixtures) => number;
  readonly properties: (f: Fixtures) => Record<string, PayloadValue>;
  readonly reason: RegExp;
  /** Who sends it (default: the administrator). */
  readonly as?: 'jana';
}

interface Fixtures {
  readonly demo: DemoCatalogue;
  readonly other: OtherAccount;
  /** A finished booking of Jana's, open for changes. */
  readonly janasEntry: number;
  readonly project: number;
  /** Tom, whose stopwatch runs in the demo data. */
  readonly tom: number;
  /** One of Tom's finished, unlocked bookings. */
  readonly tomsFinishedEntry: number;
}

const long = (n: number) => 'ä'.repeat(n);
const day = (f: Fixtures, extra: Record<string, PayloadValue> = {}) => booking(f.demo.projects.websiteRelaunch, '2026-11-17', extra);

const RULES: readonly Rule[] = [
  // Projects
  { name: 'a project without Name', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Comment: 'ohne Namen' }), reason: /Name ist ein Pflichtfeld/ },
  { name: 'a project whose Name is null', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: null }), reason: /Name darf nicht null sein/ },
  { name: 'a project Name of 51 characters', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: long(51) }), reason: /Name darf höchstens 50 Zeichen lang sein/ },
  { name: 'a project Comment of 1501 characters', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', Comment: long(1501) }), reason: /Comment darf höchstens 1500 Zeichen/ },
  { name: 'a project Custom3 of 51 characters', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', Custom3: long(51) }), reason: /Custom3 darf höchstens 50 Zeichen/ },
  { name: 'a TimeBudget that is not a number', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', TimeBudget: 'viel' }), reason: /TimeBudget ist kein gültiger Wert vom Typ Edm\.Int32/ },
  { name: 'a TimeBudget beyond Int32', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', TimeBudget: 2_147_483_648 }), reason: /TimeBudget/ },
  { name: 'a negative TimeBudget', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', TimeBudget: -1 }), reason: /TimeBudget darf nicht negativ sein/ },
  { name: 'an Active that is not a boolean', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', Active: 'ja' }), reason: /Active ist kein gültiger Wert vom Typ Edm\.Boolean/ },
  { name: 'an HourlyRate that is not a decimal', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', HourlyRate: 'teuer' }), reason: /HourlyRate ist kein gültiger Wert vom Typ Edm\.Decimal/ },
  { name: 'an HourlyRate with three decimal places (Scale 2)', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', HourlyRate: '12.345' }), reason: /HourlyRate ist kein gültiger Wert vom Typ Edm\.Decimal/ },
  { name: 'an HourlyRate beyond Precision 18', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', HourlyRate: '12345678901234567890.00' }), reason: /HourlyRate ist kein gültiger Wert vom Typ Edm\.Decimal/ },
  { name: 'a negative HourlyRate', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', HourlyRate: '-10.00' }), reason: /HourlyRate darf nicht negativ sein/ },
  { name: 'an unknown ClientID', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', ClientID: 999_999 }), reason: /ClientID 999999 verweist auf keinen vorhandenen Eintrag \(Kunden\)/ },
  { name: 'a ClientID of another account', type: 'Project', method: 'POST', set: 'Projects', properties: (f) => ({ Name: 'P', ClientID: f.other.clientId }), reason: /ClientID \d+ verweist auf keinen vorhandenen Eintrag/ },
  { name: 'AssignedUsers that are not a list of IDs', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', AssignedUsers: 'alle' }), reason: /AssignedUsers muss eine kommagetrennte Liste von IDs sein/ },
  { name: 'AssignedUsers with an unknown user', type: 'Project', method: 'POST', set: 'Projects', properties: () => ({ Name: 'P', AssignedUsers: '1,999999' }), reason: /AssignedUsers enthält IDs, die es nicht gibt: 999999/ },
  { name: 'AssignedTasks with a task of another account', type: 'Project', method: 'POST', set: 'Projects', properties: (f) => ({ Name: 'P', AssignedTasks: String(f.other.taskId) }), reason: /AssignedTasks enthält IDs, die es nicht gibt/ },
  { name: 'a MERGE that empties Name', type: 'Project', method: 'MERGE', set: 'Projects', target: (f) => f.project, properties: () => ({ Name: null }), reason: /Name darf nicht null sein/ },
  { name: 'a MERGE with a foreign ClientID', type: 'Project', method: 'MERGE', set: 'Projects', target: (f) => f.project, properties: (f) => ({ ClientID: f.other.clientId }), reason: /ClientID/ },
  // Clients
  { name: 'a client without Name', type: 'Client', method: 'POST', set: 'Clients', properties: () => ({ Active: true }), reason: /Name ist ein Pflichtfeld/ },
  { name: 'a client Name of 51 characters', type: 'Client', method: 'POST', set: 'Clients', properties: () => ({ Name: long(51) }), reason: /Name darf höchstens 50 Zeichen/ },
  { name: 'a client Active of the wrong type', type: 'Client', method: 'POST', set: 'Clients', properties: () => ({ Name: 'K', Active: 42 }), reason: /Active ist kein gültiger Wert/ },
  // Tasks
  { name: 'a task without Description', type: 'Task', method: 'POST', set: 'Tasks', properties: () => ({ Billable: true }), reason: /Description ist ein Pflichtfeld/ },
  { name: 'a task Description of 101 characters', type: 'Task', method: 'POST', set: 'Tasks', properties: () => ({ Description: long(101) }), reason: /Description darf höchstens 100 Zeichen/ },
  { name: 'a task whose Billable is null', type: 'Task', method: 'POST', set: 'Tasks', properties: () => ({ Description: 'T', Billable: null }), reason: /Billable darf nicht null sein/ },
  // Time entries
  { name: 'EndTime before StartTime', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => day(f, { EndTime: new Date('2026-11-17T08:59:59Z') }), reason: /Die Endzeit \(EndTime\) liegt vor der Startzeit \(StartTime\)/ },
  { name: 'a MERGE that moves EndTime before StartTime', type: 'TimeEntry', method: 'MERGE', set: 'TimeEntries', as: 'jana', target: (f) => f.janasEntry, properties: () => ({ EndTime: new Date('2026-11-16T08:00:00Z') }), reason: /EndTime.+vor der Startzeit/ },
  { name: 'a duration beyond what DurationSeconds (Int32) holds', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => day(f, { StartTime: new Date('1950-01-01T00:00:00Z'), EndTime: new Date('2026-11-17T10:00:00Z') }), reason: /DurationSeconds \(Edm\.Int32\)/ },
  { name: 'an entry without ProjectID', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: () => ({ StartTime: new Date('2026-11-17T09:00:00Z'), EndTime: new Date('2026-11-17T10:00:00Z') }), reason: /ProjectID ist ein Pflichtfeld/ },
  { name: 'an entry without StartTime', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => ({ ProjectID: f.demo.projects.websiteRelaunch, EndTime: new Date('2026-11-17T10:00:00Z') }), reason: /StartTime ist ein Pflichtfeld/ },
  { name: 'an unknown ProjectID', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => ({ ...day(f), ProjectID: 999_999 }), reason: /ProjectID 999999 verweist auf keinen vorhandenen Eintrag \(Projekte\)/ },
  { name: 'a ProjectID of another account', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => ({ ...day(f), ProjectID: f.other.projectId }), reason: /ProjectID \d+ verweist auf keinen vorhandenen Eintrag/ },
  { name: 'an unknown TaskID', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => day(f, { TaskID: 999_999 }), reason: /TaskID 999999 verweist auf keinen vorhandenen Eintrag \(Tätigkeiten\)/ },
  { name: 'a TaskID of another account', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => day(f, { TaskID: f.other.taskId }), reason: /TaskID \d+ verweist auf keinen vorhandenen Eintrag/ },
  { name: 'a task the project does not allow', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => ({ ...day(f), ProjectID: f.demo.projects.energieDashboard, TaskID: f.demo.tasks.support }), reason: /Die Tätigkeit \d+ ist für das Projekt \d+ nicht erlaubt/ },
  { name: 'an archived project', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => ({ ...day(f), ProjectID: f.demo.projects.kassensystem }), reason: /Auf das Projekt \d+ darf nicht gebucht werden/ },
  { name: 'a MERGE onto an archived project', type: 'TimeEntry', method: 'MERGE', set: 'TimeEntries', as: 'jana', target: (f) => f.janasEntry, properties: (f) => ({ ProjectID: f.demo.projects.kassensystem }), reason: /darf nicht gebucht werden/ },
  { name: 'a TypeID other than 1 or 2', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => day(f, { TypeID: 3 }), reason: /TypeID muss 1 \(Dauer\) oder 2 \(Start und Ende\) sein/ },
  { name: 'a duration entry without EndTime', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => day(f, { TypeID: 1, EndTime: null }), reason: /Ein Dauereintrag \(TypeID 1\) braucht eine Endzeit/ },
  { name: 'a second running entry (no EndTime) while a stopwatch runs', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', properties: (f) => day(f, { EndTime: null, UserID: f.tom }), reason: /läuft bereits eine Stoppuhr/ },
  { name: 'a MERGE that reopens a finished entry (EndTime null) while the user\'s stopwatch runs', type: 'TimeEntry', method: 'MERGE', set: 'TimeEntries', target: (f) => f.tomsFinishedEntry, properties: () => ({ EndTime: null }), reason: /läuft bereits eine Stoppuhr/ },
  { name: 'a Comment of 1501 characters', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => day(f, { Comment: long(1501) }), reason: /Comment darf höchstens 1500 Zeichen/ },
  { name: 'a Custom5 of 51 characters', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => day(f, { Custom5: long(51) }), reason: /Custom5 darf höchstens 50 Zeichen/ },
  { name: 'a StartTime that is not a date', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => day(f, { StartTime: 'gestern' }), reason: /StartTime ist kein gültiger Wert vom Typ Edm\.DateTime/ },
  { name: 'a ProjectID that is not a number', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => ({ ...day(f), ProjectID: 'Website' }), reason: /ProjectID ist kein gültiger Wert vom Typ Edm\.Int32/ },
  { name: 'a Billable that is not a boolean', type: 'TimeEntry', method: 'POST', set: 'TimeEntries', as: 'jana', properties: (f) => day(f, { Billable: 'vielleicht' }), reason: /Billable ist kein gültiger Wert vom Typ Edm\.Boolean/ },
  { name: 'a Billable set to null', type: 'TimeEntry', method: 'MERGE', set: 'TimeEntries', as: 'jana', target: (f) => f.janasEntry, properties: () => ({ Billable: null }), reason: /Billable darf nicht null sein/ },
];

describe.each(testDatabases)('validation errors (409) on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;
  let jana: ODataClient;
  let fixtures: Fixtures;

  beforeAll(async () => {
    service = await startTestService(kind);
    alex = new ODataClient(service.root, service.admin.apiKey);
    jana = alex.as(service.jana.apiKey);
    const demo = await demoCatalogue(service);
    const other = await otherAccount(service, alex);
    const janasEntry = (await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-16'))).ID as number;
    const project = (await create(alex, 'Projects', { Name: 'Zu ändern', Active: true })).ID as number;
    const tomsFinishedEntry = (await service.database.db.selectFrom('time_entries').select('id').where('user_id', '=', service.tom.userId)
      .where('locked', '=', 0).where('end_time', 'is not', null).orderBy('id').executeTakeFirstOrThrow()).id;
    fixtures = { demo, other, janasEntry, project, tom: service.tom.userId, tomsFinishedEntry };
  });

  afterAll(() => service?.close());

  describe.each(FORMATS)('in %s', (format: Format) => {
    it.each(RULES)('$name', async (rule) => {
      const client = rule.as === 'jana' ? jana : alex;
      const path = rule.target === undefined ? `/${rule.set}` : `/${rule.set}(${rule.target(fixtures)})`;
      const before = await snapshot(service);
      const reply = await client.send(rule.method, path, payload(format, rule.properties(fixtures)), { format });
      const error = expectValidationError(reply, format, rule.type, rule.reason);
      // service-api.md §7: the code element is there and, as in the documented case, empty.
      expect(error.code).toBe('');
      await expectUnchanged(service, before);
    });
  });

  it('writes the XML error exactly as §7 shows it: m:error with code and message xml:lang', async () => {
    const reply = await alex.send('POST', '/Projects', payload('atom', { Comment: 'ohne Namen' }));
    expect(reply.status).toBe(409);
    expect(reply.contentType).toBe('application/xml;charset=utf-8');
    expect(reply.text).toMatch(new RegExp(`<error xmlns="${NS_METADATA}"><code/><message xml:lang="de-DE">Das Projekt kann nicht gespeichert werden: Name ist ein Pflichtfeld\\.</message></error>$`));
  });

  it('writes the JSON twin: {"error":{"code":"","message":{"lang":"de-DE","value":...}}}', async () => {
    const reply = await alex.send('POST', '/Projects', payload('json', { Comment: 'ohne Namen' }), { format: 'json' });
    expect(reply.status).toBe(409);
    expect(JSON.parse(reply.text)).toEqual({
      error: { code: '', message: { lang: 'de-DE', value: 'Das Projekt kann nicht gespeichert werden: Name ist ein Pflichtfeld.' } },
    });
  });

  it('answers in JSON when $format=json asks for it, whatever the payload format', async () => {
    const reply = await alex.send('POST', '/Projects?$format=json', payload('atom', { Comment: 'ohne Namen' }));
    expectValidationError(reply, 'json', 'Project', /Name/);
  });

  it('counts MaxLength in characters, not UTF-16 units or bytes: 50 emoji fit a Name', async () => {
    const name = '😀'.repeat(50);
    const created = await create(alex, 'Projects', { Name: name });
    expect(created.Name).toBe(name);
  });
});
