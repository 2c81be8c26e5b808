// Bodies of writes that are broken, hostile or of the wrong type (issue 4, bad-input tests):
// malformed JSON and Atom are a 400, values that are not what the property takes a 409 (§7),
// XML DOCTYPE and entity declarations are refused, a missing or foreign Content-Type is a 415
// (§4.1), an oversized body a 413. Each is an OData error document in the negotiated format,
// and nothing stored changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NS_ATOM, NS_DATA, NS_METADATA } from '../../odata/namespaces.js';
import { testDatabases } from '../helpers/databases.js';
import type { Format, Payload } from '../helpers/odata-client.js';
import { FORMATS, ODataClient, expectStatus, payload, rawPayload, readEntry } from '../helpers/odata-client.js';
import type { DemoCatalogue } from '../helpers/odata-payloads.js';
import { demoCatalogue, expectError, expectUnchanged, expectValidationError, snapshot } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const atom = (properties: string, prolog = '') => rawPayload(
  `${prolog}<entry xmlns="${NS_ATOM}" xmlns:d="${NS_DATA}" xmlns:m="${NS_METADATA}"><content type="application/xml"><m:properties>${properties}</m:properties></content></entry>`,
  'application/atom+xml',
);
const json = (text: string) => rawPayload(text, 'application/json');

/** Bodies no reader can make an entity of: 400. */
const MALFORMED: ReadonlyArray<readonly [string, Payload, RegExp]> = [
  ['truncated JSON', json('{"Name": "x"'), /JSON/],
  ['text that is not JSON', json('Name=x'), /JSON/],
  ['a JSON array', json('[{"Name":"x"}]'), /JSON object/],
  ['a JSON string', json('"Name"'), /JSON object/],
  ['JSON null', json('null'), /JSON object/],
  ['an empty body', json(''), /no entity/],
  ['a body of blanks', json('  \n '), /no entity/],
  ['JSON nested 20 000 levels deep', json(`${'['.repeat(20_000)}${']'.repeat(20_000)}`), /nesting/],
  ['a __proto__ key', json('{"__proto__":{"Active":true},"Name":"x"}'), /__proto__/],
  ['a property the type does not have', json('{"Name":"x","Farbe":"blau"}'), /Farbe/],
  ['__metadata of another entity type', json('{"__metadata":{"type":"Service.Task"},"Name":"x"}'), /Service\.Task/],
  ['Atom sent as JSON', rawPayload(atom('<d:Name>x</d:Name>').body, 'application/json'), /JSON/],
  ['JSON sent as Atom', rawPayload('{"Name":"x"}', 'application/atom+xml'), /./],
  ['text that is not XML', rawPayload('Name=x', 'application/atom+xml'), /./],
  ['truncated XML', rawPayload(atom('<d:Name>x</d:Name>').body.slice(0, 150), 'application/atom+xml'), /./],
  ['a feed instead of an entry', rawPayload(`<feed xmlns="${NS_ATOM}"/>`, 'application/atom+xml'), /entry/],
  ['two root elements', rawPayload(`${atom('<d:Name>x</d:Name>').body}<entry/>`, 'application/atom+xml'), /root/],
  ['an element the type does not have', atom('<d:Name>x</d:Name><d:Farbe>blau</d:Farbe>'), /Farbe/],
  ['a DOCTYPE with an internal entity', atom('<d:Name>&x;</d:Name>', '<?xml version="1.0"?><!DOCTYPE entry [<!ENTITY x "eingeschleust">]>'), /DOCTYPE/],
  ['an entity expansion bomb', atom('<d:Name>&lol3;</d:Name>', '<!DOCTYPE entry [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'), /DOCTYPE/],
  ['an external entity (XXE)', atom('<d:Name>&xxe;</d:Name>', '<!DOCTYPE entry [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'), /DOCTYPE/],
  ['an undeclared entity reference', atom('<d:Name>&passwd;</d:Name>'), /passwd/],
  ['a character reference XML forbids', atom('<d:Name>a&#0;b</d:Name>'), /&#0;/],
  ['elements nested 5 000 levels deep', atom(`<d:Name>${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}</d:Name>`), /deeper/],
];

/** Well-formed bodies whose values are not what the property takes: 409 (service-api.md §7). */
const INVALID_VALUES: ReadonlyArray<readonly [string, Payload, RegExp]> = [
  ['an object where a string belongs', json('{"Name":{"de":"x"}}'), /Name ist kein gültiger Wert vom Typ Edm\.String/],
  ['a number where a string belongs', json('{"Name":42}'), /Name ist kein gültiger Wert/],
  ['a fraction where an Int32 belongs', json('{"Name":"x","TimeBudget":1.5}'), /TimeBudget ist kein gültiger Wert vom Typ Edm\.Int32/],
  ['a NUL character in JSON text', json('{"Name":"a\\u0000b"}'), /Name ist kein gültiger Wert vom Typ Edm\.String/],
  ['a lone surrogate in JSON text', json('{"Name":"\\ud800x"}'), /Name ist kein gültiger Wert vom Typ Edm\.String/],
  ['a control character in JSON text', json('{"Name":"x","Comment":"\\u0007"}'), /Comment ist kein gültiger Wert/],
  ['m:null on a property that cannot be null', atom('<d:Name m:null="true"/>'), /Name darf nicht null sein/],
  ['an Atom boolean that is not one', atom('<d:Name>x</d:Name><d:Active>ja</d:Active>'), /Active ist kein gültiger Wert vom Typ Edm\.Boolean/],
  ['an m:type that contradicts the property', atom('<d:Name>x</d:Name><d:TimeBudget m:type="Edm.String">fünf</d:TimeBudget>'), /TimeBudget/],
  ['a repeated element', atom('<d:Name>x</d:Name><d:Name>y</d:Name>'), /Name/],
];

/** Content types a write does not take (§4.1: JSON or Atom only). */
const FOREIGN_TYPES = ['text/plain', 'application/xml', 'text/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/jsonx'];

describe.each(testDatabases)('bad request bodies on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;
  let demo: DemoCatalogue;

  beforeAll(async () => {
    service = await startTestService(kind, { bodyLimitBytes: 64 * 1024 });
    alex = new ODataClient(service.root, service.admin.apiKey);
    demo = await demoCatalogue(service);
  });

  afterAll(() => service?.close());

  describe.each(FORMATS)('answered in %s', (format: Format) => {
    it.each(MALFORMED)('%s is a 400 on POST and on MERGE', async (_name, body, reason) => {
      const before = await snapshot(service);
      expect(expectError(await alex.send('POST', '/Projects', body, { format }), 400, format).message).toMatch(reason);
      expect(expectError(await alex.send('MERGE', `/Projects(${demo.projects.kundenportal})`, body, { format }), 400, format).message).toMatch(reason);
      await expectUnchanged(service, before);
    });

    it.each([
      ['JSON', 'application/json', (bad: Buffer) => Buffer.concat([Buffer.from('{"Name":"'), bad, Buffer.from('"}')])],
      ['Atom', 'application/atom+xml', (bad: Buffer) => Buffer.from(atom(`<d:Name>${bad.toString('latin1')}</d:Name>`).body, 'latin1')],
    ] as const)('a %s body that is not UTF-8 (FF FE C0 80) is a 400 on POST, MERGE and in a $batch, and nothing is stored', async (_name, contentType, bodyWith) => {
      const before = await snapshot(service);
      const body = bodyWith(Buffer.from([0xff, 0xfe, 0xc0, 0x80]));
      for (const [method, path] of [['POST', '/Projects'], ['MERGE', `/Projects(${demo.projects.kundenportal})`]] as const) {
        const reply = await alex.request(path, { method, body, contentType, format });
        expect(expectError(reply, 400, format).message).toMatch(/UTF-8/);
      }
      const batch = Buffer.concat([
        Buffer.from(['--b', 'Content-Type: multipart/mixed; boundary=c', '', '--c', 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', '',
          'POST Projects HTTP/1.1', `Content-Type: ${contentType}`, '', ''].join('\r\n')),
        body,
        Buffer.from('\r\n--c--\r\n--b--\r\n'),
      ]);
      const answer = await alex.request('/$batch', { method: 'POST', body: batch, contentType: 'multipart/mixed; boundary=b' });
      expectStatus(answer, 202);
      expect(answer.text).toMatch(/HTTP\/1\.1 400 Bad Request/);
      await expectUnchanged(service, before);
    });

    it.each(INVALID_VALUES)('%s is a 409 naming the property', async (_name, body, reason) => {
      const before = await snapshot(service);
      expectValidationError(await alex.send('POST', '/Projects', body, { format }), format, 'Project', reason);
      await expectUnchanged(service, before);
    });

    it.each(FOREIGN_TYPES)('Content-Type %s is a 415 on every write method', async (contentType) => {
      const before = await snapshot(service);
      const body = '{"Name":"x"}';
      const path = `/Projects(${demo.projects.kundenportal})`;
      for (const [method, target, headers] of [
        ['POST', '/Projects', {}], ['MERGE', path, {}], ['PATCH', path, {}], ['PUT', path, {}], ['POST', path, { 'x-http-method': 'MERGE' }],
      ] as const) {
        const reply = await alex.send(method, target, rawPayload(body, contentType), { format, headers });
        expect(expectError(reply, 415, format).message, `${method} ${target}`).toMatch(/application\/json or application\/atom\+xml/);
      }
      await expectUnchanged(service, before);
    });

    it('a Content-Type that is not a media type at all is a 415', async () => {
      const before = await snapshot(service);
      expectError(await alex.send('POST', '/Projects', rawPayload('{"Name":"x"}', 'kein Medientyp'), { format }), 415, format);
      await expectUnchanged(service, before);
    });

    it('a write without any Content-Type is a 415', async () => {
      const before = await snapshot(service);
      // Bytes go without a Content-Type (a string body would get text/plain from fetch).
      const bytes = new TextEncoder().encode('{"Name":"ohne Typ"}');
      const reply = await alex.request('/Projects', { method: 'POST', body: bytes, format });
      expect(expectError(reply, 415, format).message).toMatch(/no Content-Type/);
      const merge = await alex.request(`/Projects(${demo.projects.kundenportal})`, { method: 'MERGE', body: bytes, format });
      expectError(merge, 415, format);
      await expectUnchanged(service, before);
    });

    it('a body above the limit is a 413, and the service goes on serving', async () => {
      const before = await snapshot(service);
      const big = payload('json', { Name: 'gross', Comment: 'x'.repeat(100 * 1024) });
      expectError(await alex.send('POST', '/Projects', big, { format }), 413, format);
      expectError(await alex.send('MERGE', `/Projects(${demo.projects.kundenportal})`, big, { format }), 413, format);
      await expectUnchanged(service, before);
      expectStatus(await alex.get(`/Projects(${demo.projects.kundenportal})`, { format }), 200);
    });
  });

  describe('what a lenient reader should still take', () => {
    it.each([
      ['Atom with a byte order mark and an XML declaration', atom('<d:Name>Mit BOM</d:Name>', '\uFEFF<?xml version="1.0" encoding="utf-8"?>')],
      ['Atom with CDATA and character references', atom('<d:Name><![CDATA[A & <B>]]>&#x2713;</d:Name>')],
      ['Atom typed as application/atom+xml;type=entry;charset=utf-8', rawPayload(atom('<d:Name>Typ-Parameter</d:Name>').body, 'application/atom+xml;type=entry;charset=utf-8')],
      ['JSON typed as application/json;odata=verbose', rawPayload('{"Name":"verbose"}', 'application/json;odata=verbose')],
      ['JSON with a upper-case media type', rawPayload('{"Name":"GROSS"}', 'Application/JSON; Charset=UTF-8')],
      ['JSON wrapped in "d" as V2 clients send it back', json('{"d":{"Name":"im d"}}')],
      ['JSON with __metadata and deferred navigation sent back from a read', json('{"__metadata":{"type":"Service.Project"},"Name":"zurück","Client":{"__deferred":{"uri":"x"}}}')],
    ])('%s', async (_name, body) => {
      const reply = await alex.send('POST', '/Projects', body, { format: 'json' });
      expectStatus(reply, 201);
      expect(readEntry(reply, 'Projects').Name).toMatch(/^(Mit BOM|A & <B>✓|Typ-Parameter|verbose|GROSS|im d|zurück)$/);
    });
  });
});

describe.each(testDatabases)('the default body limit on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;

  beforeAll(async () => {
    service = await startTestService(kind);
    alex = new ODataClient(service.root, service.admin.apiKey);
  });

  afterAll(() => service?.close());

  it('takes a body just under 1 MiB to the validation and refuses one over it with a 413', async () => {
    const before = await snapshot(service);
    // Under the limit the body is read: the 1 000 000-character comment is then too long (409).
    const under = await alex.send('POST', '/Projects', payload('json', { Name: 'gross', Comment: 'x'.repeat(1_000_000) }), { format: 'json' });
    expectValidationError(under, 'json', 'Project', /Comment darf höchstens 1500 Zeichen/);
    const over = await alex.send('POST', '/Projects', payload('json', { Name: 'gross', Comment: 'x'.repeat(1_100_000) }), { format: 'json' });
    expectError(over, 413, 'json');
    await expectUnchanged(service, before);
  });
});
