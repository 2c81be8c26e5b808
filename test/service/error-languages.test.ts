// One language per answer (issue 31): every error status the service answers carries a German
// message by default, as the original service does, and an English one when the request's
// Accept-Language prefers English; `lang` / `xml:lang` says which. The time-tracking rules have
// every message in both languages (the German byte for byte as before); detail the service has in
// one language only (a parser's) stays in the message, in parentheses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { Reply } from '../helpers/odata-client.js';
import { FORMATS, ODataClient, payload } from '../helpers/odata-client.js';
import { create, expectError } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

/** A word each language's message of the status holds, and the other's does not. */
const GERMAN = /[äöüß]|\b(?:die|der|das|ist|nicht|nur|wird|braucht|gibt|zu)\b/i;
const ENGLISH = /\b(?:the|is|not|only|needs|does|too|cannot)\b/i;

describe.each(testDatabases)('error messages in German by default, English on request, on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;
  let jana: ODataClient;
  let entry: { path: string; etag: string };

  beforeAll(async () => {
    service = await startTestService(kind, { bodyLimitBytes: 4096 });
    alex = new ODataClient(service.root, service.admin.apiKey);
    jana = alex.as(service.jana.apiKey);
    const project = await create(alex, 'Projects', { Name: 'Sprachen', Active: true });
    const created = await jana.send('POST', '/TimeEntries', payload('json', {
      ProjectID: project.ID as number, StartTime: new Date('2026-11-18T09:00:00Z'), EndTime: new Date('2026-11-18T10:00:00Z'),
    }), { format: 'json' });
    entry = { path: `/TimeEntries(${(JSON.parse(created.text) as { d: { ID: number } }).d.ID})`, etag: created.headers.get('etag') as string };
  });

  afterAll(() => service?.close());

  /** Each status, as a request that gets it; `headers` adds the language. */
  const REQUESTS: ReadonlyArray<readonly [number, (headers: Record<string, string>, format: 'atom' | 'json') => Promise<Reply>]> = [
    [400, (headers, format) => alex.get('/Projects?$top=zwei', { format, headers })],
    [401, (headers, format) => alex.get('/Projects', { format, headers, key: null })],
    [401, (headers, format) => alex.get('/Projects', { format, headers, key: 'kein-gueltiger-schluessel' })],
    [403, (headers, format) => alex.get('/Projects', { format, headers }).then(() => jana.send('POST', '/Projects', payload('json', { Name: 'x' }), { format, headers }))],
    [403, (headers, format) => alex.delete('/Projects(1)', { format, headers, keyForm: 'query' })],
    [404, (headers, format) => alex.get('/Projects(999999)', { format, headers })],
    [405, (headers, format) => alex.delete('/Projects', { format, headers })],
    [409, (headers, format) => alex.send('POST', '/Projects', payload('json', { Comment: 'ohne Namen' }), { format, headers })],
    [412, (headers, format) => jana.send('MERGE', entry.path, payload('json', { Comment: 'x' }), { format, headers: { ...headers, 'if-match': 'W/"99"' } })],
    [413, (headers, format) => alex.send('POST', '/Projects', payload('json', { Name: 'x', Comment: 'y'.repeat(5000) }), { format, headers })],
    [415, (headers, format) => alex.request('/Projects', { method: 'POST', body: 'Name=x', contentType: 'text/plain', format, headers })],
    [501, (headers, format) => alex.request('/Projects', { method: 'POST', body: '{"Name":"x","Client":{"Name":"tief"}}', contentType: 'application/json', format, headers })],
  ];

  describe.each(FORMATS)('in %s', (format) => {
    it.each(REQUESTS)('%i: German without Accept-Language, English for Accept-Language: en', async (status, send) => {
      const german = expectError(await send({}, format), status, format);
      expect(german.lang).toBe('de-DE');
      expect(german.message).toMatch(GERMAN);
      const english = expectError(await send({ 'accept-language': 'en' }, format), status, format);
      expect(english.lang).toBe('en');
      expect(english.message).toMatch(ENGLISH);
      expect(english.message).not.toBe(german.message);
    });
  });

  it('428 too, when --require-if-match is on', async () => {
    const strict = await startTestService(kind, { requireIfMatch: true });
    try {
      const client = new ODataClient(strict.root, strict.jana.apiKey);
      const entries = JSON.parse((await client.get('/TimeEntries?$top=1&$format=json')).text) as { d: { results: { ID: number }[] } };
      const path = `/TimeEntries(${entries.d.results[0]?.ID ?? 0})`;
      const german = expectError(await client.delete(path, { format: 'json' }), 428, 'json');
      expect([german.lang, german.message]).toEqual(['de-DE', expect.stringMatching(/brauchen den Kopf If-Match/)]);
      const english = expectError(await client.delete(path, { format: 'json', headers: { 'accept-language': 'en-GB' } }), 428, 'json');
      expect([english.lang, english.message]).toEqual(['en', expect.stringMatching(/need an If-Match header/)]);
    } finally {
      await strict.close();
    }
  });

  it('the rules\' own refusals: German as before by default, wholly English for Accept-Language: en', async () => {
    const project = 1;
    const backwards = (headers: Record<string, string>) => jana.send('POST', '/TimeEntries', payload('json', {
      ProjectID: project, StartTime: new Date('2026-11-18T10:00:00Z'), EndTime: new Date('2026-11-18T09:00:00Z'),
    }), { format: 'json', headers });
    const nameless = (headers: Record<string, string>) => alex.send('POST', '/Clients', payload('json', { Comment: 'ohne Namen' }), { format: 'atom', headers });
    const cases: ReadonlyArray<readonly [number, (headers: Record<string, string>) => Promise<Reply>, 'atom' | 'json', string, string]> = [
      [409, backwards, 'json', 'Der Zeiteintrag kann nicht gespeichert werden: Die Endzeit (EndTime) liegt vor der Startzeit (StartTime).',
        'The time entry cannot be saved: The end time (EndTime) is before the start time (StartTime).'],
      [409, nameless, 'atom', 'Der Kunde kann nicht gespeichert werden: Name ist ein Pflichtfeld.', 'The client cannot be saved: Name is required.'],
      [403, (headers) => jana.send('POST', '/Clients', payload('json', { Name: 'x' }), { format: 'json', headers }), 'json',
        'Nur Administratoren dürfen Kunden anlegen, ändern oder löschen.', 'Only administrators may create, change or delete clients.'],
    ];
    for (const [status, send, format, de, en] of cases) {
      expect(expectError(await send({}), status, format)).toMatchObject({ lang: 'de-DE', message: de });
      expect(expectError(await send({ 'accept-language': 'de-DE,en;q=0.5' }), status, format)).toMatchObject({ lang: 'de-DE', message: de });
      expect(expectError(await send({ 'accept-language': 'en-GB' }), status, format)).toMatchObject({ lang: 'en', message: en });
    }
  });

  it('reads Accept-Language by weight: English wins only where it is preferred to German', async () => {
    const langOf = async (acceptLanguage: string) => expectError(await alex.get('/Projects(999999)', { format: 'json', headers: { 'accept-language': acceptLanguage } }), 404, 'json').lang;
    expect(await langOf('en-US,en;q=0.9')).toBe('en');
    expect(await langOf('de-DE,de;q=0.9,en;q=0.8')).toBe('de-DE');
    expect(await langOf('fr, en;q=0.5, de;q=0.4')).toBe('en');
    expect(await langOf('fr, it')).toBe('de-DE');
    expect(await langOf('en;q=0, de;q=0.1')).toBe('de-DE');
    expect(await langOf(';;;,,=q')).toBe('de-DE');
  });
});
