// Requests that are wrong before any body is read (issue 4, bad-input tests): hostile `$filter`
// and other query options, keys that are not keys, writes to what cannot be written, writes with
// the read-only `ApiKey` query parameter (§5: 403), and IDs of another company account (404 for
// what the caller cannot see, 409 for a reference to it). Each is a clear 4xx as an OData error
// document in the negotiated format, and nothing stored changes.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { Format } from '../helpers/odata-client.js';
import { FORMATS, ODataClient, expectStatus, payload, readFeed } from '../helpers/odata-client.js';
import type { DemoCatalogue, OtherAccount } from '../helpers/odata-payloads.js';
import { booking, create, demoCatalogue, expectError, expectUnchanged, expectValidationError, otherAccount, readBack, snapshot } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

/** `$filter`s an attacker or a broken client sends: each a 400, never SQL run as written. */
const HOSTILE_FILTERS: ReadonlyArray<readonly [string, string]> = [
  ['a quote closing the literal early', "Name eq 'x'); drop table projects; --'"],
  ['SQL comment and statement separators', 'ID eq 1; delete from projects'],
  ['SQL keywords as operators', "Name = 'x' OR 1=1"],
  ['a subquery', 'ID in (select id from users)'],
  ['4 000 nested parentheses', `${'('.repeat(2000)}ID eq 1${')'.repeat(2000)}`],
  ['a filter longer than the limit', `Name eq '${'x'.repeat(5000)}'`],
  ['a property that is not filterable', "AssignedUsers eq '1'"],
  ['a property that does not exist', 'Passwort eq 1'],
  ['a function that does not exist', 'sleep(10) eq 1'],
  ['an OData V4 lambda', 'TimeEntries/any(t: t/ID eq 1)'],
  ['mismatched types', "ID eq 'eins'"],
  ['an unterminated string', "Name eq 'x"],
  ['a bare operator', 'eq'],
];

/** Filters that look dangerous but are valid V2: answered correctly, matching nothing. */
const HARMLESS_FILTERS: ReadonlyArray<readonly [string, string]> = [
  ['an escaped quote and a comment inside the literal', "Name eq 'x'' or 1 eq 1 --'"],
  ['LIKE wildcards in substringof', "substringof('%', Name) or substringof('_', Name)"],
  ['a backslash at the end of a literal', "startswith(Name, '\\')"],
];

describe.each(testDatabases)('bad requests on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;
  let jana: ODataClient;
  let demo: DemoCatalogue;
  let other: OtherAccount;
  let otherAdmin: ODataClient;

  beforeAll(async () => {
    service = await startTestService(kind);
    alex = new ODataClient(service.root, service.admin.apiKey);
    jana = alex.as(service.jana.apiKey);
    demo = await demoCatalogue(service);
    other = await otherAccount(service, alex);
    otherAdmin = alex.as(other.adminKey);
  });

  afterAll(() => service?.close());

  describe('what the HTTP parser refuses before the service sees it', () => {
    it('a URL beyond the header size limit is a 431 with an OData error document, and the service goes on', async () => {
      const filter = encodeURIComponent(`${'ID eq 1 or '.repeat(2000)}ID eq 1`);
      const reply = await alex.get(`/Projects?$filter=${filter}`, { format: 'json' });
      expect(reply.status).toBe(431);
      expect(reply.contentType).toBe('application/xml;charset=utf-8');
      expect(expectError(reply, 431, 'atom').message).toMatch(/longer than the server accepts/);
      expectStatus(await alex.get('/Projects', { format: 'json' }), 200);
    });

    it('a request that is not HTTP is a 400 with an OData error document', async () => {
      const { port } = new URL(service.origin);
      const answer = await new Promise<string>((resolve, reject) => {
        let text = '';
        const socket = connect(Number(port), '127.0.0.1', () => socket.write('MERGE /V1/Api.svc/Projects(1) KAPUTT\r\n\r\n'));
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer).toContain('Content-Type: application/xml;charset=utf-8');
      expect(answer).toMatch(/<error xmlns="[^"]+"><code>BAD_REQUEST<\/code><message xml:lang="de-DE">Die Anfrage ist ungültig \(the request is not valid HTTP\)<\/message><\/error>$/);
    });
  });

  describe.each(FORMATS)('answered in %s', (format: Format) => {
    describe('hostile query options', () => {
      it.each(HOSTILE_FILTERS)('$filter with %s is a 400', async (_name, filter) => {
        const before = await snapshot(service);
        for (const set of ['Projects', 'TimeEntries']) {
          expectError(await alex.get(`/${set}?$filter=${encodeURIComponent(filter)}`, { format }), 400, format);
        }
        await expectUnchanged(service, before);
      });

      it.each(HARMLESS_FILTERS)('$filter with %s matches nothing', async (_name, filter) => {
        const before = await snapshot(service);
        const reply = await alex.get(`/Projects?$filter=${encodeURIComponent(filter)}`, { format });
        expectStatus(reply, 200);
        expect(readFeed(reply, 'Projects').records).toEqual([]);
        await expectUnchanged(service, before);
      });

      // The error message quotes the key or name, which XML cannot carry (NUL), or the URL does
      // not even decode to text (a lone surrogate): still an error document, never a bare 500.
      it.each([
        ['a NUL as the key', '/Projects(%00)', 400],
        ['a NUL as the key before a property', '/Tasks(%00)/LastChangeTime', 400],
        ['a NUL as a property name', '/Projects(1)/%00', 404],
        ['a NUL as the entity set', '/%00', 404],
        ['a lone surrogate as the key', '/Projects(%ED%A0%80)', 400],
      ])('%s (%s) is a %i error document', async (_name, path, status) => {
        expectError(await alex.get(path, { format }), status, format);
      });

      it.each([
        ['$orderby with a statement', '$orderby=Name;drop table projects'],
        ['$top below zero', '$top=-1'],
        ['$top beyond the limit', '$top=99999999999'],
        ['$skiptoken the service never wrote', "$skiptoken='1 or 1=1'"],
        ['$expand deeper than allowed', `$expand=${'Client/Projects/'.repeat(10)}Client`],
        ['an unknown $ option', '$drop=projects'],
        ['$filter given twice', '$filter=ID eq 1&$filter=ID eq 2'],
      ])('%s is a 400', async (_name, query) => {
        const before = await snapshot(service);
        expectError(await alex.get(`/Projects?${query}`, { format }), 400, format);
        await expectUnchanged(service, before);
      });

      it('a $filter on a write is checked too, and the write does not happen', async () => {
        const before = await snapshot(service);
        const reply = await alex.send('POST', `/Projects?$filter=${encodeURIComponent("Name eq 1")}`, payload(format, { Name: 'mit Filter' }), { format });
        expectError(reply, 400, format);
        await expectUnchanged(service, before);
      });
    });

    describe('wrong keys', () => {
      it.each([
        ['a word', 'abc', 400], ['a string literal', "'1'", 400], ['a fraction', '1.5', 400], ['an Int64 literal', '1L', 400],
        ['a number beyond Int32', '2147483648', 400], ['two values', '1,2', 400], ['a property that is not the key', "Name='x'", 400],
        ['a hexadecimal number', '0x1', 400], ['a second key predicate', '1)(2', 400], ['a negative ID', '-1', 404], ['an ID nobody has', '999999', 404],
      ] as const)('%s as the key is a %s for MERGE, PUT and DELETE', async (_name, key, status) => {
        const before = await snapshot(service);
        const path = `/Projects(${key})`;
        expectError(await alex.send('MERGE', path, payload(format, { Comment: 'x' }), { format }), status, format);
        expectError(await alex.send('PUT', path, payload(format, { Name: 'x' }), { format }), status, format);
        expectError(await alex.delete(path, { format }), status, format);
        await expectUnchanged(service, before);
      });
    });

    describe('writes to what cannot be written', () => {
      it.each([
        ['POST', '/Nichts', 404], ['MERGE', '/Nichts(1)', 404], ['DELETE', '/Projects(ID)/Nichts', 404],
        ['POST', '/Projects(ID)/Name', 405], ['PUT', '/Projects(ID)/Name', 405], ['DELETE', '/Projects(ID)/Name', 405],
        ['DELETE', '/Projects', 405], ['PUT', '/Projects', 405], ['POST', '/Projects/$count', 405],
        ['POST', '/$metadata', 405], ['DELETE', '/', 405], ['POST', '/Projects(ID)/$links/Client', 405],
        ['POST', '/TimeEntries(ENTRY)/User', 405],
      ] as const)('%s %s is a %s', async (method, pathPattern, status) => {
        const entry = (await service.database.db.selectFrom('time_entries').select('id').orderBy('id').executeTakeFirstOrThrow()).id;
        const path = pathPattern.replace('ID', String(demo.projects.kundenportal)).replace('ENTRY', String(entry));
        const before = await snapshot(service);
        const reply = method === 'DELETE'
          ? await alex.delete(path, { format })
          : await alex.send(method, path, payload(format, { Name: 'x' }), { format });
        expectError(reply, status, format);
        await expectUnchanged(service, before);
      });
    });

    describe('writes with the key in the query string (§5: read access only)', () => {
      it.each([
        ['POST', '/Projects'], ['MERGE', '/Projects(ID)'], ['PATCH', '/Projects(ID)'], ['PUT', '/Projects(ID)'], ['DELETE', '/Projects(ID)'],
      ])('%s %s is a 403 that says how to send the key', async (method, pathPattern) => {
        const byQuery = alex.as(service.admin.apiKey, 'query');
        const path = pathPattern.replace('ID', String(demo.projects.interneOrganisation));
        const before = await snapshot(service);
        const reply = method === 'DELETE'
          ? await byQuery.delete(path, { format })
          : await byQuery.send(method, path, payload(format, { Name: 'per Query-Schlüssel' }), { format });
        expect(expectError(reply, 403, format).message).toMatch(/Abfrageparameter ApiKey erlaubt nur Lesen/);
        await expectUnchanged(service, before);
      });

      it('whatever the parameter\'s casing (apikey, APIKEY)', async () => {
        const before = await snapshot(service);
        for (const name of ['apikey', 'APIKEY']) {
          const reply = await alex.send('POST', `/Projects?${name}=${encodeURIComponent(service.admin.apiKey)}`, payload(format, { Name: name }), { format, key: null });
          expectError(reply, 403, format);
        }
        await expectUnchanged(service, before);
      });

      it('a write tunnelled through POST is a write too', async () => {
        const byQuery = jana.as(service.jana.apiKey, 'query');
        const entry = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-06'));
        const before = await snapshot(service);
        const reply = await byQuery.request(`/TimeEntries(${entry.ID as number})`, { method: 'POST', headers: { 'x-http-method': 'DELETE' }, format });
        expectError(reply, 403, format);
        await expectUnchanged(service, before);
        // The same key still reads.
        expectStatus(await byQuery.get(`/TimeEntries(${entry.ID as number})`, { format }), 200);
      });
    });

    describe('IDs of another company account', () => {
      it.each([
        ['Projects', (o: OtherAccount) => o.projectId], ['Clients', (o: OtherAccount) => o.clientId],
        ['Tasks', (o: OtherAccount) => o.taskId], ['TimeEntries', (o: OtherAccount) => o.timeEntryId],
      ] as const)('%s of the other account do not exist here: 404 for reads and every write', async (set, idOf) => {
        const path = `/${set}(${idOf(other)})`;
        const before = await snapshot(service);
        for (const client of [alex, jana]) {
          expectError(await client.get(path, { format }), 404, format);
          expectError(await client.send('MERGE', path, payload(format, { Comment: 'fremd' }), { format }), 404, format);
          expectError(await client.send('PUT', path, payload(format, { Comment: 'fremd' }), { format }), 404, format);
          expectError(await client.delete(path, { format }), 404, format);
        }
        await expectUnchanged(service, before);
        // Still there for its owners.
        expect((await readBack(otherAdmin, path, set)).ID).toBe(idOf(other));
      });

      it('creating below a parent of the other account is a 404', async () => {
        const before = await snapshot(service);
        const reply = await alex.send('POST', `/Projects(${other.projectId})/TimeEntries`, payload(format, booking(other.projectId, '2026-11-06')), { format });
        expectError(reply, 404, format);
        await expectUnchanged(service, before);
      });

      it('pointing an entry of the other account at this account\'s project, task or user is a 409', async () => {
        const path = `/TimeEntries(${other.timeEntryId})`;
        const before = await snapshot(service);
        expectValidationError(await otherAdmin.send('MERGE', path, payload(format, { ProjectID: demo.projects.websiteRelaunch }), { format }), format, 'TimeEntry', /ProjectID/);
        expectValidationError(await otherAdmin.send('MERGE', path, payload(format, { TaskID: demo.tasks.support }), { format }), format, 'TimeEntry', /TaskID/);
        expectValidationError(await otherAdmin.send('MERGE', path, payload(format, { UserID: service.jana.userId }), { format }), format, 'TimeEntry', /UserID/);
        expectValidationError(await otherAdmin.send('POST', '/Projects', payload(format, { Name: 'x', ClientID: demo.clients.nordwind }), { format }), format, 'Project', /ClientID/);
        expectValidationError(await otherAdmin.send('POST', '/Projects', payload(format, { Name: 'x', AssignedUsers: String(service.tom.userId) }), { format }), format, 'Project', /AssignedUsers/);
        await expectUnchanged(service, before);
      });

      it('the other account\'s stopwatch and this one\'s do not meet', async () => {
        const before = await snapshot(service);
        const reply = await otherAdmin.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}`, { format });
        expectValidationError(reply, format, 'TimeEntry', /ProjectID/);
        expectError(await otherAdmin.get('/HaltStopWatch', { format }), 404, format);
        await expectUnchanged(service, before);
      });
    });
  });
});
