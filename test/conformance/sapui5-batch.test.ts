// Conformance: a $batch as SAPUI5's ODataModel v2 sends it (through datajs), written here by hand
// from the OData V2 batch format: every delimiter preceded by CRLF (so the body opens with an
// empty line and a changeset's headers end with the delimiter's CRLF), reads with the `sap-*`
// headers, writes in a changeset with a Content-ID among their own headers and Content-Length,
// a later request of the changeset addressing `$<Content-ID>`. The answer is compared whole, byte
// for byte, but for the boundaries the service chose, its port and the instants of the writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const BATCH = 'batch_a5b1-86c6-5d8b';
const CHANGESET = 'changeset_4f7c-2c8a-9e10';

function read(url: string): string {
  return [
    'Content-Type: application/http', 'Content-Transfer-Encoding: binary', '',
    `GET ${url} HTTP/1.1`, 'sap-cancel-on-close: true', 'sap-contextid-accept: header', 'Accept: application/json', 'Accept-Language: de',
    'DataServiceVersion: 2.0', 'MaxDataServiceVersion: 2.0', '', '',
  ].join('\r\n');
}

function write(method: string, url: string, body: string, contentId?: string): string {
  return [
    'Content-Type: application/http', 'Content-Transfer-Encoding: binary', '',
    `${method} ${url} HTTP/1.1`, 'sap-contextid-accept: header', 'Accept: application/json', 'Accept-Language: de',
    'DataServiceVersion: 2.0', 'MaxDataServiceVersion: 2.0', 'x-csrf-token: 7Xzp0N4bVg==', 'Content-Type: application/json',
    ...(contentId === undefined ? [] : [`Content-ID: ${contentId}`]), `Content-Length: ${Buffer.byteLength(body)}`, '', body,
  ].join('\r\n');
}

const REQUEST = `\r\n--${BATCH}\r\n${read('Clients?$skip=0&$top=2&$orderby=Name&$select=ID,Name&$inlinecount=allpages&sap-client=100')}`
  + `\r\n--${BATCH}\r\nContent-Type: multipart/mixed; boundary=${CHANGESET}\r\n`
  + `\r\n--${CHANGESET}\r\n${write('POST', 'Clients', '{"Name":"UI5 Kunde","Active":true}', 'id-1764000000000-11')}`
  + `\r\n--${CHANGESET}\r\n${write('POST', '$id-1764000000000-11/Projects', '{"Name":"UI5 Projekt","Active":true,"TimeBudget":3600}', 'id-1764000000000-12')}`
  + `\r\n--${CHANGESET}\r\n${write('MERGE', '$id-1764000000000-12', '{"Comment":"aus SAPUI5"}')}`
  + `\r\n--${CHANGESET}--\r\n`
  + `\r\n--${BATCH}\r\n${read("Projects?$filter=Name%20eq%20'UI5%20Projekt'&$expand=Client&$select=ID,Name,Comment,Client/Name")}`
  + `\r\n--${BATCH}--\r\n`;

/** The answer, with {root} for the service root, {b} and {c} for the boundaries, {t} for instants. */
const EXPECTED = [
  '--{b}',
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  '',
  'HTTP/1.1 200 OK',
  'DataServiceVersion: 2.0',
  'Content-Type: application/json;charset=utf-8',
  'Content-Length: {n}',
  '',
  '{"d":{"__count":"3","results":[{"__metadata":{"uri":"{root}/Clients(3)","type":"Service.Client","etag":"W/\\"1\\""},"ID":3,"Name":"Bäckerei Sonnenschein"},{"__metadata":{"uri":"{root}/Clients(1)","type":"Service.Client","etag":"W/\\"1\\""},"ID":1,"Name":"Nordwind AG"}]}}',
  '--{b}',
  'Content-Type: multipart/mixed; boundary={c}',
  '',
  '--{c}',
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  'Content-ID: id-1764000000000-11',
  '',
  'HTTP/1.1 201 Created',
  'DataServiceVersion: 2.0',
  'Location: {root}/Clients(4)',
  'ETag: W/"1"',
  'Content-Type: application/json;charset=utf-8',
  'Content-Length: {n}',
  '',
  '{"d":{"__metadata":{"uri":"{root}/Clients(4)","type":"Service.Client","etag":"W/\\"1\\""},"ID":4,"Name":"UI5 Kunde","Comment":null,"Active":true,"AssignedToCurrentUser":false,"Custom1":null,"Custom2":null,"Custom3":null,"Custom4":null,"Custom5":null,"LastChangeTime":"\\/Date({t})\\/","LastChangeAuthor":1,"Version":1,"Projects":{"__deferred":{"uri":"{root}/Clients(4)/Projects"}}}}',
  '--{c}',
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  'Content-ID: id-1764000000000-12',
  '',
  'HTTP/1.1 201 Created',
  'DataServiceVersion: 2.0',
  'Location: {root}/Projects(7)',
  'ETag: W/"1"',
  'Content-Type: application/json;charset=utf-8',
  'Content-Length: {n}',
  '',
  '{"d":{"__metadata":{"uri":"{root}/Projects(7)","type":"Service.Project","etag":"W/\\"1\\""},"ID":7,"Name":"UI5 Projekt","Active":true,"Comment":null,"TimeBudget":3600,"ClientID":4,"HourlyRate":null,"AssignedToCurrentUser":true,"AssignedUsers":null,"AssignedTasks":null,"Custom1":null,"Custom2":null,"Custom3":null,"Custom4":null,"Custom5":null,"LastChangeTime":"\\/Date({t})\\/","LastChangeAuthor":1,"Version":1,"Client":{"__deferred":{"uri":"{root}/Projects(7)/Client"}},"TimeEntries":{"__deferred":{"uri":"{root}/Projects(7)/TimeEntries"}}}}',
  '--{c}',
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  '',
  'HTTP/1.1 204 No Content',
  'DataServiceVersion: 2.0',
  // The MERGE's new ETag, which the model keeps for its next write.
  'ETag: W/"2"',
  '',
  '',
  '--{c}--',
  '',
  '--{b}',
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  '',
  'HTTP/1.1 200 OK',
  'DataServiceVersion: 2.0',
  'Content-Type: application/json;charset=utf-8',
  'Content-Length: {n}',
  '',
  '{"d":{"results":[{"__metadata":{"uri":"{root}/Projects(7)","type":"Service.Project","etag":"W/\\"2\\""},"ID":7,"Name":"UI5 Projekt","Comment":"aus SAPUI5","Client":{"__metadata":{"uri":"{root}/Clients(4)","type":"Service.Client","etag":"W/\\"1\\""},"Name":"UI5 Kunde"}}]}}',
  '--{b}--',
  '',
].join('\r\n');

describe.each(testDatabases)('a SAPUI5 ODataModel v2 batch against the service on $name', (kind) => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(kind);
  });

  afterAll(() => service?.close());

  it('is answered exactly', async () => {
    const response = await fetch(`${service.root}/$batch`, {
      method: 'POST',
      headers: {
        'content-type': `multipart/mixed;boundary=${BATCH}`, accept: 'multipart/mixed', 'x-serviceapikey': service.admin.apiKey,
        'sap-contextid-accept': 'header', 'sap-cancel-on-close': 'true', 'x-csrf-token': '7Xzp0N4bVg==',
        dataserviceversion: '2.0', maxdataserviceversion: '2.0', 'accept-language': 'de',
      },
      body: REQUEST,
    });
    expect(response.status).toBe(202);
    expect(response.headers.get('dataserviceversion')).toBe('2.0');
    const [, batchBoundary] = /^multipart\/mixed; boundary=(batch_[0-9a-f-]{36})$/.exec(response.headers.get('content-type') ?? '') ?? [];
    const text = await response.text();
    const [, changesetBoundary] = /boundary=(changeset_[0-9a-f-]{36})\r\n/.exec(text) ?? [];

    // Every Content-Length counts the bytes of its body, which is all that stands before the next delimiter.
    for (const [, length, body] of text.matchAll(/Content-Length: (\d+)\r\n\r\n(.*)\r\n--/g)) expect(Buffer.byteLength(body as string)).toBe(Number(length));
    // The instants of the two creates are those a read alone shows: the client's as it stands,
    // the project's before the MERGE of the same changeset stamped it again.
    const instants = [...text.matchAll(/\\\/Date\((\d+)\)\\\//g)].map((m) => Number(m[1]));
    const alone = async (path: string) => {
      const reply = await fetch(`${service.root}/${path}?$select=LastChangeTime&$format=json`, { headers: { 'x-serviceapikey': service.admin.apiKey } });
      return Number(/Date\((\d+)\)/.exec(await reply.text())?.[1]);
    };
    const [clientCreated, projectCreated] = instants as [number, number];
    expect(instants).toHaveLength(2);
    expect(clientCreated).toBe(await alone('Clients(4)'));
    expect(projectCreated).toBeGreaterThanOrEqual(clientCreated);
    expect(projectCreated).toBeLessThanOrEqual(await alone('Projects(7)'));

    const normalised = text
      .replaceAll(batchBoundary as string, '{b}').replaceAll(changesetBoundary as string, '{c}').replaceAll(service.root, '{root}')
      .replace(/Content-Length: \d+/g, 'Content-Length: {n}').replace(/\\\/Date\(\d+\)\\\//g, '\\/Date({t})\\/');
    expect(normalised).toBe(EXPECTED);
  });
});
