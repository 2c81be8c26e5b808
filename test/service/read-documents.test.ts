// What a client sees before and around the data (service-api.md §4.1, §9; data-model.md
// "Behaviour real clients rely on"): the service document, `$metadata` (public, the EDMX of
// spec/ in meaning), the choice between Atom and JSON by `Accept` and `$format`, JSONP by
// `$callback`, the service root in any casing, and 4xx in the negotiated format for addresses
// that do not exist.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { testDatabases } from '../helpers/databases.js';
import { CONTENT_TYPE, ERROR_CONTENT_TYPE, FORMATS, ODataClient, expectStatus, rawGet, readEntry, readError, readFeed } from '../helpers/odata-client.js';
import { DEMO_NOW, startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const SETS = ['Projects', 'Clients', 'Tasks', 'TimeEntries', 'Users', 'AccountSettings'];

describe.each(testDatabases)('service document, metadata and formats on $name', (kind) => {
  let service: TestService;
  let client: ODataClient;
  let anonymous: ODataClient;

  beforeAll(async () => {
    service = await startTestService(kind);
    client = new ODataClient(service.root, service.admin.apiKey);
    anonymous = client.as(null);
  });
  afterAll(() => service?.close());

  describe('the service document (public)', () => {
    it('GET {base_url}/ lists the six collections as an AtomPub service document by default', async () => {
      const reply = await anonymous.get('/');
      expectStatus(reply, 200);
      expect(reply.contentType).toBe('application/xml;charset=utf-8');
      expect(reply.text).toContain(`xml:base="${service.root}/"`);
      expect([...reply.text.matchAll(/<collection href="([^"]+)">/g)].map((m) => m[1])).toEqual(SETS);
    });

    it('GET {base_url}/?$format=json names the entity sets in {"d":{"EntitySets":[...]}}', async () => {
      const reply = await anonymous.get('/?$format=json');
      expectStatus(reply, 200);
      expect(reply.contentType).toBe(CONTENT_TYPE.json);
      expect(JSON.parse(reply.text)).toEqual({ d: { EntitySets: SETS } });
    });

    it('GET {base_url} without the trailing slash is the same document', async () => {
      const reply = await anonymous.get('', { format: 'json' });
      expectStatus(reply, 200);
      expect(JSON.parse(reply.text)).toEqual({ d: { EntitySets: SETS } });
    });
  });

  describe('$metadata (public)', () => {
    it('GET {base_url}/$metadata without a key is the EDMX of spec/timetracking.edmx in meaning', async () => {
      const reply = await anonymous.get('/$metadata');
      expectStatus(reply, 200);
      expect(reply.contentType).toBe('application/xml;charset=utf-8');
      expect(reply.headers.get('dataserviceversion')).toBe('2.0');
      const spec = await readFile(new URL('../../spec/timetracking.edmx', import.meta.url), 'utf8');
      expect(readEdmx(reply.text)).toEqual(readEdmx(spec));
    });

    it('declares every stopwatch operation as GET (strict V2 clients need m:HttpMethod)', async () => {
      const model = readEdmx((await anonymous.get('/$metadata')).text);
      const operations = model.functionImports.map((f) => [f.name, f.httpMethod]);
      expect(operations).toEqual(expect.arrayContaining([
        ['CurrentStopWatch', 'GET'], ['StartStopWatch', 'GET'], ['HaltStopWatch', 'GET'], ['GetChangesDigest', 'GET'],
      ]));
    });

    it('GET {base_url}/$metadata?$format=json is a 406 in JSON: metadata exists only as XML', async () => {
      const reply = await anonymous.get('/$metadata?$format=json');
      expect(reply.status).toBe(406);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE.json);
      expect(readError(reply).message).toContain('$metadata');
    });
  });

  describe('choosing the format', () => {
    it('without Accept or $format, a feed and an entry are Atom', async () => {
      const feed = await client.get('/Projects');
      expectStatus(feed, 200);
      expect(feed.contentType).toBe(CONTENT_TYPE.atom);
      expect(readFeed(feed, 'Projects').records.map((p) => p.Name)).toContain('Website-Relaunch');
      const entry = await client.get('/Projects(1)');
      expect(entry.contentType).toBe(CONTENT_TYPE.atom);
      expect(readEntry(entry, 'Projects').Name).toBe('Website-Relaunch');
    });

    it('Accept: */* is Atom too', async () => {
      const reply = await client.get('/Projects(1)', { headers: { accept: '*/*' } });
      expect(reply.contentType).toBe(CONTENT_TYPE.atom);
    });

    it('Accept: application/json is JSON, also with odata=verbose and a q-value list', async () => {
      for (const accept of ['application/json', 'application/json;odata=verbose', 'application/atom+xml;q=0.5, application/json']) {
        const reply = await client.get('/Projects(1)', { headers: { accept } });
        expectStatus(reply, 200);
        expect(reply.contentType, accept).toBe(CONTENT_TYPE.json);
        expect(readEntry(reply, 'Projects').Name).toBe('Website-Relaunch');
      }
    });

    it("the Accept headers real clients send: .NET's Atom list, jQuery's JSON list", async () => {
      const dotnet = await client.get('/Projects', { headers: { accept: 'application/atom+xml,application/xml' } });
      expect(dotnet.contentType).toBe(CONTENT_TYPE.atom);
      expect(readFeed(dotnet, 'Projects').records).toHaveLength(6);
      const jquery = await client.get('/Projects', { headers: { accept: 'application/json, text/javascript, */*; q=0.01' } });
      expect(jquery.contentType).toBe(CONTENT_TYPE.json);
      expect(readFeed(jquery, 'Projects').records).toHaveLength(6);
    });

    it('$format wins over Accept, both ways', async () => {
      const json = await client.get('/Projects(1)?$format=json', { format: 'atom' });
      expect(json.contentType).toBe(CONTENT_TYPE.json);
      const atom = await client.get('/Projects(1)?$format=atom', { format: 'json' });
      expect(atom.contentType).toBe(CONTENT_TYPE.atom);
      expect(readEntry(atom, 'Projects')).toEqual(readEntry(json, 'Projects'));
    });

    it('Atom and JSON carry the same values for every set', async () => {
      for (const set of SETS) {
        const atom = await client.get(`/${set}?$top=5`, { format: 'atom' });
        const json = await client.get(`/${set}?$top=5`, { format: 'json' });
        expectStatus(atom, 200);
        expectStatus(json, 200);
        expect(readFeed(atom, set).records.length, set).toBeGreaterThan(0);
        expect(readFeed(atom, set).records, set).toEqual(readFeed(json, set).records);
      }
    });

    it('Accept: image/png is a 406 in XML naming what is available', async () => {
      const reply = await client.get('/Projects(1)', { headers: { accept: 'image/png' } });
      expect(reply.status).toBe(406);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE.atom);
      expect(readError(reply).message).toContain('image/png');
    });

    it('$format=csv is a 406 in XML that names the allowed values', async () => {
      const reply = await client.get('/Projects?$format=csv');
      expect(reply.status).toBe(406);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE.atom);
      expect(readError(reply).message).toMatch(/json.*atom/);
    });

    it('every response says DataServiceVersion: 2.0', async () => {
      const reply = await client.get('/Projects(1)');
      expect(reply.headers.get('dataserviceversion')).toBe('2.0');
    });
  });

  describe('JSONP ($callback)', () => {
    it('$callback=cb wraps the JSON document in cb(...) as text/javascript', async () => {
      const reply = await client.get('/Projects(1)?$format=json&$callback=cb');
      expectStatus(reply, 200);
      expect(reply.contentType).toBe('text/javascript;charset=utf-8');
      const match = /^cb\((.*)\);?$/s.exec(reply.text);
      expect(match).not.toBeNull();
      const inner = { ...reply, contentType: CONTENT_TYPE.json, text: match![1]! };
      expect(readEntry(inner, 'Projects').Name).toBe('Website-Relaunch');
    });

    it('$callback alone implies JSON, and takes a dotted name (jQuery.cb_1)', async () => {
      const reply = await client.get('/Projects?$top=2&$callback=jQuery.cb_1');
      expectStatus(reply, 200);
      expect(reply.contentType).toBe('text/javascript;charset=utf-8');
      const inner = { ...reply, contentType: CONTENT_TYPE.json, text: reply.text.replace(/^jQuery\.cb_1\(/, '').replace(/\);?$/, '') };
      expect(readFeed(inner, 'Projects').records).toHaveLength(2);
    });

    it('a $callback that is not an identifier is a 400, so nothing can be injected into the page', async () => {
      const reply = await client.get(`/Projects(1)?$format=json&$callback=${encodeURIComponent('alert(1)//')}`);
      expect(reply.status).toBe(400);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE.json);
      expect(readError(reply).message).toContain('$callback');
      expect(reply.text).not.toContain('alert(1)(');
    });
  });

  describe('the service root, in any casing', () => {
    for (const root of ['/v1/api.svc', '/V1/API.SVC', '/v1/Api.svc']) {
      it(`${root}/Projects(2)/Client answers like /V1/Api.svc, with URIs in the canonical spelling`, async () => {
        const other = new ODataClient(`${service.origin}${root}`, service.admin.apiKey);
        const reply = await other.get('/Projects(2)/Client', { format: 'json' });
        expectStatus(reply, 200);
        expect(readEntry(reply, 'Clients').Name).toBe('Nordwind AG');
        expect(JSON.parse(reply.text).d.__metadata.uri).toBe(`${service.root}/Clients(1)`);
      });
    }
  });

  describe('URIs as clients write them', () => {
    it('URIs in responses use the host and port the request was sent to (clients follow them)', async () => {
      const port = new URL(service.origin).port;
      const headers = { host: `localhost:${port}`, accept: 'application/json', 'x-serviceapikey': service.admin.apiKey };
      const entry = await rawGet(service.origin, '/V1/Api.svc/Projects(1)', headers);
      expect(entry.status).toBe(200);
      expect(JSON.parse(entry.text).d.__metadata.uri).toBe(`http://localhost:${port}/V1/Api.svc/Projects(1)`);
      expect(JSON.parse(entry.text).d.Client.__deferred.uri).toBe(`http://localhost:${port}/V1/Api.svc/Projects(1)/Client`);
      const feed = await rawGet(service.origin, '/V1/Api.svc/TimeEntries', headers);
      expect(JSON.parse(feed.text).d.__next).toMatch(new RegExp(`^http://localhost:${port}/V1/Api\\.svc/TimeEntries\\?`));
    });

    it('JSON writes date-times as "\\/Date(<ms>)\\/" with escaped slashes', async () => {
      const reply = await client.get('/Projects(1)', { format: 'json' });
      expect(reply.text).toContain(`"LastChangeTime":"\\/Date(${DEMO_NOW})\\/"`);
    });

    it('percent-encoded paths and option names, and + for spaces, read like the plain spelling', async () => {
      const encoded = await client.get('/Projects%281%29?%24select=Name', { format: 'json' });
      expect(readEntry(encoded, 'Projects')).toEqual({ Name: 'Website-Relaunch' });
      const plus = await client.get("/Projects?$filter=Name+eq+'Mobile+App'&$orderby=ID+desc", { format: 'json' });
      expect(readFeed(plus, 'Projects').records.map((p) => p.ID)).toEqual([2]);
      const trailing = await client.get('/Projects(1)/', { format: 'json' });
      expect(readEntry(trailing, 'Projects').Name).toBe('Website-Relaunch');
    });

    it('HEAD answers like GET without a body', async () => {
      const reply = await client.request('/Projects(1)', { method: 'HEAD', format: 'json' });
      expect(reply.status).toBe(200);
      expect(reply.contentType).toBe(CONTENT_TYPE.json);
      expect(reply.text).toBe('');
    });
  });

  describe.each(FORMATS)('addresses that do not exist, in %s', (format) => {
    it('an unknown collection is a 404 error document naming it', async () => {
      const reply = await client.get('/Invoices', { format });
      expect(reply.status).toBe(404);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
      expect(readError(reply).message).toContain('Invoices');
    });

    it('a path outside the service root is a 404 error document', async () => {
      const reply = await new ODataClient(service.origin, service.admin.apiKey).get('/V2/Api.svc/Projects', { format });
      expect(reply.status).toBe(404);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
      expect(readError(reply).message).toContain('/V1/Api.svc');
    });

    it('an unknown property is a 404 error document', async () => {
      const reply = await client.get('/Projects(1)/Budget', { format });
      expect(reply.status).toBe(404);
      expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
      expect(readError(reply).message).toContain('Budget');
    });
  });
});
