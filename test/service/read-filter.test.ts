// `$filter` over HTTP (service-api.md §4.2 rule 6 and its examples; OData V2 operators and
// functions): each filter's result must be exactly the entities a plain JavaScript predicate
// picks from the whole collection, in Atom and in JSON; filters the service cannot answer are a
// 400 error document in the negotiated format, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdmRecord } from '../../odata/edm.js';
import { testDatabases } from '../helpers/databases.js';
import { ERROR_CONTENT_TYPE, FORMATS, ODataClient, readError } from '../helpers/odata-client.js';
import { DEMO_NOW, startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const DAY_MS = 86_400_000;
const isoOf = (ms: number) => new Date(ms).toISOString().slice(0, 19);
const TWO_WEEKS_AGO = DEMO_NOW - 14 * DAY_MS;
const ONE_WEEK_AGO = DEMO_NOW - 7 * DAY_MS;

type Predicate = (entity: EdmRecord) => boolean;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const time = (value: unknown): number => (value instanceof Date ? value.getTime() : Number.NaN);

describe.each(testDatabases)('filter expressions on $name', (kind) => {
  let service: TestService;
  let client: ODataClient;
  let entries: EdmRecord[];
  let projects: EdmRecord[];
  let clients: EdmRecord[];
  let tasks: EdmRecord[];
  let users: EdmRecord[];

  beforeAll(async () => {
    service = await startTestService(kind);
    client = new ODataClient(service.root, service.admin.apiKey);
    const all = async (set: string) => (await client.readAll(`/${set}`, set, { format: 'json' })).records;
    [entries, projects, clients, tasks, users] = await Promise.all([all('TimeEntries'), all('Projects'), all('Clients'), all('Tasks'), all('Users')]);
  });
  afterAll(() => service?.close());

  const projectOf = (entry: EdmRecord) => projects.find((p) => p.ID === entry.ProjectID) as EdmRecord;
  const clientOf = (project: EdmRecord) => clients.find((c) => c.ID === project.ClientID);
  const taskOf = (entry: EdmRecord) => tasks.find((t) => t.ID === entry.TaskID);
  const userOf = (entry: EdmRecord) => users.find((u) => u.ID === entry.UserID) as EdmRecord;

  // [filter as a client writes it, the same condition in JavaScript]
  const entryFilters: ReadonlyArray<readonly [string, Predicate]> = [
    ['ProjectID eq 1', (e) => e.ProjectID === 1],
    [`ProjectID eq 1 and StartTime gt datetime'${isoOf(TWO_WEEKS_AGO)}'`, (e) => e.ProjectID === 1 && time(e.StartTime) > TWO_WEEKS_AGO],
    [`LastChangeTime ge datetime'${isoOf(ONE_WEEK_AGO)}.000'`, (e) => time(e.LastChangeTime) >= ONE_WEEK_AGO],
    [`StartTime ge datetime'${isoOf(TWO_WEEKS_AGO)}' and StartTime lt datetime'${isoOf(ONE_WEEK_AGO)}'`,
      (e) => time(e.StartTime) >= TWO_WEEKS_AGO && time(e.StartTime) < ONE_WEEK_AGO],
    ['ProjectID ne 1 and Billable eq false', (e) => e.ProjectID !== 1 && e.Billable === false],
    ['(ProjectID eq 2 or ProjectID eq 3) and not Locked', (e) => (e.ProjectID === 2 || e.ProjectID === 3) && e.Locked === false],
    ['Locked eq true or TaskID le 1', (e) => e.Locked === true || (e.TaskID !== null && (e.TaskID as number) <= 1)],
    ['TaskID eq null', (e) => e.TaskID === null],
    ['EndTime eq null', (e) => e.EndTime === null],
    ['EndTime ne null and TaskID ne null', (e) => e.EndTime !== null && e.TaskID !== null],
    // Two-valued logic: a comparison with null is false, so its negation is true.
    ['not (TaskID eq 1)', (e) => e.TaskID !== 1],
    ['TaskID ne 1', (e) => e.TaskID !== 1],
    ["not substringof('Review', Comment)", (e) => text(e.Comment)?.includes('Review') !== true],
    ["Comment eq null or Comment eq 'Tests'", (e) => e.Comment === null || e.Comment === 'Tests'],
    ["StartTime gt datetime'2026-11-10T00:00'", (e) => time(e.StartTime) > Date.UTC(2026, 10, 10)],
    ["substringof('Review', Comment)", (e) => text(e.Comment)?.includes('Review') === true],
    ["startswith(Comment, 'Abstimmung') eq true", (e) => text(e.Comment)?.startsWith('Abstimmung') === true],
    ["endswith(Custom1, '7')", (e) => text(e.Custom1)?.endsWith('7') === true],
    ["tolower(Comment) eq 'tests'", (e) => text(e.Comment)?.toLowerCase() === 'tests'],
    ["toupper(Comment) eq 'REVIEW'", (e) => text(e.Comment)?.toUpperCase() === 'REVIEW'],
    ['length(Comment) gt 10', (e) => (text(e.Comment)?.length ?? 0) > 10],
    ["indexof(Comment, 'e') eq 1", (e) => text(e.Comment)?.indexOf('e') === 1],
    ["substring(Comment, 0, 5) eq 'Works'", (e) => text(e.Comment)?.slice(0, 5) === 'Works'],
    ["substring(Comment, 3) eq 'ts'", (e) => text(e.Comment)?.slice(3) === 'ts'],
    ["concat(Comment, '!') eq 'Umsetzung!'", (e) => e.Comment === 'Umsetzung'],
    ["trim(concat(' ', Comment)) eq 'Review'", (e) => e.Comment === 'Review'],
    ["replace(Comment, 'ung', 'UNG') eq 'UmsetzUNG'", (e) => e.Comment === 'Umsetzung'],
    [`year(StartTime) eq ${new Date(ONE_WEEK_AGO).getUTCFullYear()} and month(StartTime) eq ${new Date(ONE_WEEK_AGO).getUTCMonth() + 1} and day(StartTime) eq ${new Date(ONE_WEEK_AGO).getUTCDate()}`,
      (e) => new Date(time(e.StartTime)).toISOString().slice(0, 10) === new Date(ONE_WEEK_AGO).toISOString().slice(0, 10)],
    ['hour(StartTime) lt 8 and minute(StartTime) ge 30', (e) => new Date(time(e.StartTime)).getUTCHours() < 8 && new Date(time(e.StartTime)).getUTCMinutes() >= 30],
    ['second(EndTime) eq 0 and EndTime ne null', (e) => e.EndTime !== null],
    ['ProjectID add 1 eq 3', (e) => e.ProjectID === 2],
    ['ProjectID sub 1 eq 0', (e) => e.ProjectID === 1],
    ['TaskID mul 2 gt 6', (e) => e.TaskID !== null && (e.TaskID as number) * 2 > 6],
    ['ProjectID mod 2 eq 0', (e) => (e.ProjectID as number) % 2 === 0],
    ['ProjectID div 2 eq 2', (e) => Math.trunc((e.ProjectID as number) / 2) === 2],
    ['-ProjectID lt -5', (e) => -(e.ProjectID as number) < -5],
    ["Project/Name eq 'Kundenportal'", (e) => projectOf(e).Name === 'Kundenportal'],
    ["Project/Client/Name eq 'Nordwind AG'", (e) => clientOf(projectOf(e))?.Name === 'Nordwind AG'],
    ['Task/Billable eq false', (e) => taskOf(e)?.Billable === false],
    [`User/Email eq 'jana.schmidt@demo.example' and Project/Active eq false`,
      (e) => userOf(e).Email === 'jana.schmidt@demo.example' && projectOf(e).Active === false],
    ["startswith(Project/Name, 'K') and Task/Description ne 'Support'",
      (e) => text(projectOf(e).Name)?.startsWith('K') === true && taskOf(e)?.Description !== 'Support'],
  ];

  const projectFilters: ReadonlyArray<readonly [string, Predicate]> = [
    ['Active eq false', (p) => p.Active === false],
    ['ClientID eq null', (p) => p.ClientID === null],
    ['HourlyRate gt 90M', (p) => p.HourlyRate !== null && Number(p.HourlyRate) > 90],
    ['HourlyRate ge 85.5', (p) => p.HourlyRate !== null && Number(p.HourlyRate) >= 85.5],
    ['round(HourlyRate) eq 86M', (p) => p.HourlyRate !== null && Math.round(Number(p.HourlyRate)) === 86],
    ['floor(HourlyRate) eq 85M and ceiling(HourlyRate) eq 86M', (p) => p.HourlyRate === '85.5'],
    ['TimeBudget ge 3600', (p) => p.TimeBudget !== null && (p.TimeBudget as number) >= 3600],
    ["Client/Name eq 'Stadtwerke Musterstadt'", (p) => clientOf(p)?.Name === 'Stadtwerke Musterstadt'],
    ["Custom1 eq 'KST-100'", (p) => p.Custom1 === 'KST-100'],
    ["replace(Name, '-', ' ') eq 'Website Relaunch'", (p) => p.Name === 'Website-Relaunch'],
    ["Name eq 'O''Reilly' or Name eq 'Mobile App'", (p) => p.Name === 'Mobile App'],
    ['LastChangeAuthor eq 1 and ID ge 4', (p) => p.LastChangeAuthor === 1 && (p.ID as number) >= 4],
  ];

  it('the demo data gives every filter below something to find and something to leave', () => {
    for (const [filter, predicate] of entryFilters) {
      const hits = entries.filter(predicate).length;
      expect(hits, filter).toBeGreaterThan(0);
      expect(hits, filter).toBeLessThan(entries.length);
    }
    for (const [filter, predicate] of projectFilters) {
      expect(projects.filter(predicate).length, filter).toBeGreaterThan(0);
      expect(projects.filter(predicate).length, filter).toBeLessThan(projects.length);
    }
  });

  describe.each(FORMATS)('in %s', (format) => {
    it.each(entryFilters)('GET /TimeEntries?$filter=%s', async (filter, predicate) => {
      const { records } = await client.readAll(`/TimeEntries?$filter=${encodeURIComponent(filter)}`, 'TimeEntries', { format });
      expect(records.map((e) => e.ID)).toEqual(entries.filter(predicate).map((e) => e.ID));
    });

    it.each(projectFilters)('GET /Projects?$filter=%s', async (filter, predicate) => {
      const { records } = await client.readAll(`/Projects?$filter=${encodeURIComponent(filter)}`, 'Projects', { format });
      expect(records.map((p) => p.ID)).toEqual(projects.filter(predicate).map((p) => p.ID));
    });

    // [filter on Clients, names expected] - text compares by code point on both databases
    const nonAscii: ReadonlyArray<readonly [string, string[]]> = [
      ["Name eq 'Bäckerei Sonnenschein'", ['Bäckerei Sonnenschein']],
      ["Name gt 'Bz' and Name lt 'C'", ['Bäckerei Sonnenschein']],
      ["substringof('bäckerei', tolower(toupper(Name)))", ['Bäckerei Sonnenschein']],
      ["toupper(Name) eq 'BÄCKEREI SONNENSCHEIN'", ['Bäckerei Sonnenschein']],
      ["tolower(Name) eq 'bäckerei sonnenschein'", ['Bäckerei Sonnenschein']],
      ["substringof('ä', Name) and length(Name) eq 21 and indexof(Name, 'c') eq 2", ['Bäckerei Sonnenschein']],
    ];

    it.each(nonAscii)('GET /Clients?$filter=%s handles non-ASCII text', async (filter, names) => {
      const { records } = await client.readAll(`/Clients?$filter=${encodeURIComponent(filter)}`, 'Clients', { format });
      expect(records.map((c) => c.Name)).toEqual(names);
    });

    it("GET /Clients?$filter=Name eq 'Bäckerei Sonnenschein' matches non-ASCII text exactly", async () => {
      const { records } = await client.readAll(`/Clients?$filter=${encodeURIComponent("Name eq 'Bäckerei Sonnenschein'")}`, 'Clients', { format });
      expect(records.map((c) => c.Name)).toEqual(['Bäckerei Sonnenschein']);
    });

    it('$filter on navigation and on a key combine: /Projects(1)/TimeEntries?$filter=Billable eq false', async () => {
      const { records } = await client.readAll('/Projects(1)/TimeEntries?$filter=Billable%20eq%20false', 'TimeEntries', { format });
      expect(records.map((e) => e.ID)).toEqual(entries.filter((e) => e.ProjectID === 1 && e.Billable === false).map((e) => e.ID));
    });

    it('$filter on a single entity: 404 when the entity does not pass it', async () => {
      const kept = await client.get("/Projects(1)?$filter=Name eq 'Website-Relaunch'", { format });
      expect(kept.status).toBe(200);
      const dropped = await client.get("/Projects(1)?$filter=Name eq 'Mobile App'", { format });
      expect(dropped.status).toBe(404);
      expect(dropped.contentType).toBe(ERROR_CONTENT_TYPE[format]);
    });

    // [filter, what the error message must mention]
    const refused: ReadonlyArray<readonly [string, string]> = [
      ['Name eq', 'end'],
      ["Name eq 'unterminated", 'not closed'],
      ['Nope eq 1', 'Nope'],
      ["ProjectID eq 'eins'", 'Edm.String'],
      ['ProjectID eq 1 and', 'end'],
      ['DurationSeconds gt 60', 'DurationSeconds'],
      ['frobnicate(Comment)', 'frobnicate'],
      ["substringof('x')", 'substringof'],
      ['Project/Nope eq 1', 'Nope'],
      ['ProjectID eq 99999999999', 'Int32'],
      ["StartTime gt datetime'2026-13-45T99:00:00'", 'datetime'],
      ['ProjectID', 'Boolean'],
      ["1 eq 1; drop table projects", ';'],
      [`${'('.repeat(500)}ProjectID eq 1${')'.repeat(500)}`, 'deep'],
    ];

    it.each(refused)('GET /TimeEntries?$filter=%s is a 400 error document', async (filter, mentioned) => {
      const reply = await client.get(`/TimeEntries?$filter=${encodeURIComponent(filter)}`, { format });
      expect(reply.status).toBe(400);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
      expect(readError(reply).message.toLowerCase()).toContain(mentioned.toLowerCase());
    });
  });

  it('the refused filters changed nothing: the projects table is still there', async () => {
    const reply = await client.get('/Projects/$count');
    expect(reply.text).toBe(String(projects.length));
  });
});
