// Authentication (service-api.md §5; issue 4 "Auth and accounts"): the API key as the
// `X-ServiceApiKey` header (name in any casing, plus configured aliases), as the password of
// HTTP Basic with any user name, as a Bearer token, or as the `ApiKey` query parameter (reads
// only). Missing, unknown and revoked keys and inactive users are a 401 with
// `WWW-Authenticate: Basic realm=...` and an OData error document in the negotiated format.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, newKey, revokeKeys } from '../../service/accounts/account-admin.js';
import { testDatabases } from '../helpers/databases.js';
import type { Format, KeyForm } from '../helpers/odata-client.js';
import { ERROR_CONTENT_TYPE, FORMATS, ODataClient, expectStatus, readEntry, readError, readFeed } from '../helpers/odata-client.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const KEY_FORMS: readonly KeyForm[] = ['header', 'basic', 'bearer', 'query'];
const CHALLENGE = 'Basic realm="timegate", charset="UTF-8"';

describe.each(testDatabases)('API keys on $name', (kind) => {
  let service: TestService;
  let client: ODataClient;
  /** Jana's own time entries, as the database holds them. */
  let janasEntryIds: number[];

  beforeAll(async () => {
    service = await startTestService(kind, { apiKeyHeaderAliases: ['X-Api-Key'] });
    client = new ODataClient(service.root, service.jana.apiKey);
    const rows = await service.database.db.selectFrom('time_entries').select('id').where('user_id', '=', service.jana.userId).orderBy('id').execute();
    janasEntryIds = rows.map((row) => row.id);
  });
  afterAll(() => service?.close());

  async function expectUnauthorized(path: string, options: Parameters<ODataClient['get']>[1], format: Format): Promise<string> {
    const reply = await client.get(path, { ...options, format });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe(CHALLENGE);
    expect(reply.contentType).toBe(ERROR_CONTENT_TYPE[format]);
    return readError(reply).message;
  }

  describe.each(KEY_FORMS)('the key as %s', (form) => {
    it('GET /TimeEntries reads as the key\'s user: Jana sees exactly her own entries', async () => {
      const { records } = await client.as(service.jana.apiKey, form).readAll('/TimeEntries', 'TimeEntries', { format: 'json' });
      expect(records.map((r) => r.ID)).toEqual(janasEntryIds);
    });

    it('GET /Users(n) in Atom works the same way', async () => {
      const reply = await client.as(service.tom.apiKey, form).get(`/Users(${service.tom.userId})`);
      expectStatus(reply, 200);
      expect(readEntry(reply, 'Users')).toMatchObject({ FirstName: 'Tom', LastName: 'Weber' });
    });

    it('GET /CurrentStopWatch answers the key\'s user (Tom\'s stopwatch runs)', async () => {
      const reply = await client.as(service.tom.apiKey, form).get('/CurrentStopWatch', { format: 'json' });
      expectStatus(reply, 200);
      expect(readEntry(reply, 'TimeEntries')).toMatchObject({ UserID: service.tom.userId, EndTime: null });
    });
  });

  it('the header name is matched in any casing', async () => {
    for (const name of ['X-ServiceApiKey', 'x-serviceapikey', 'X-SERVICEAPIKEY', 'x-ServiceAPIKey']) {
      const reply = await client.get('/Projects/$count', { key: null, headers: { [name]: service.jana.apiKey } });
      expect(reply.status, name).toBe(200);
    }
  });

  it('a configured alias header (X-Api-Key) carries the key too', async () => {
    const reply = await client.get('/Users/$count', { key: null, headers: { 'x-api-key': service.jana.apiKey } });
    expectStatus(reply, 200);
    expect(reply.text).toBe('3');
  });

  it('HTTP Basic ignores the user name, even an empty one; the key alone as user name works too', async () => {
    for (const credentials of [`jana:${service.jana.apiKey}`, `:${service.jana.apiKey}`, `${service.jana.apiKey}:`, `x@y:${service.jana.apiKey}`]) {
      const reply = await client.get('/Projects/$count', { key: null, headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } });
      expect(reply.status, credentials.replace(service.jana.apiKey, 'KEY')).toBe(200);
    }
  });

  it('the query parameter name is matched in any casing (apikey, APIKEY)', async () => {
    for (const name of ['ApiKey', 'apikey', 'APIKEY']) {
      const reply = await client.get(`/Projects/$count?${name}=${encodeURIComponent(service.jana.apiKey)}`, { key: null });
      expect(reply.status, name).toBe(200);
    }
  });

  it('a header key wins over the query parameter', async () => {
    const reply = await client.as(service.tom.apiKey, 'header').get(`/Users(${service.jana.userId})/TimeEntries/$count?ApiKey=${encodeURIComponent(service.jana.apiKey)}`);
    expectStatus(reply, 200);
    expect(reply.text).toBe('0');
  });

  it('User-Agent / X-UserAgent are recommended, never required', async () => {
    const reply = await client.get('/Projects/$count', { headers: { 'x-useragent': 'timegate-tests/1.0' } });
    expectStatus(reply, 200);
  });

  it('the service document and $metadata need no key, and a bad key does not spoil them', async () => {
    for (const path of ['/', '/$metadata']) {
      expect((await client.get(path, { key: null })).status, path).toBe(200);
      expect((await client.get(path, { key: 'not-a-key' })).status, path).toBe(200);
    }
  });

  it('a write with the key in the query parameter is a 403 and writes nothing', async () => {
    const before = (await client.get('/TimeEntries/$count')).text;
    const reply = await client.request('/TimeEntries', {
      method: 'POST', keyForm: 'query', format: 'json', contentType: 'application/json',
      body: JSON.stringify({ ProjectID: 1, StartTime: '/Date(1795165200000)/', EndTime: '/Date(1795168800000)/' }),
    });
    expect(reply.status).toBe(403);
    expect(reply.contentType).toBe(ERROR_CONTENT_TYPE.json);
    expect(readError(reply).message).toContain('ApiKey');
    expect((await client.get('/TimeEntries/$count')).text).toBe(before);
  });

  describe.each(FORMATS)('refusals in %s', (format) => {
    it('no key at all: 401, the challenge, and an error naming the ways to send one', async () => {
      const message = await expectUnauthorized('/Projects', { key: null }, format);
      expect(message).toContain('X-ServiceApiKey');
    });

    it('an unknown key in each form: 401', async () => {
      for (const form of KEY_FORMS) {
        const unknown = 'tg_' + 'A'.repeat(43);
        const message = await expectUnauthorized('/Projects', { key: unknown, keyForm: form }, format);
        expect(message).toContain('ungültig');
        expect(message).not.toContain(unknown);
      }
    });

    it('a garbled key, an empty header and a Basic header without a password: 401', async () => {
      await expectUnauthorized('/Projects', { key: 'x', keyForm: 'header' }, format);
      await expectUnauthorized('/Projects', { key: null, headers: { 'x-serviceapikey': '' } }, format);
      await expectUnauthorized('/Projects', { key: null, headers: { authorization: 'Basic !!!not-base64' } }, format);
      await expectUnauthorized('/Projects', { key: null, headers: { authorization: 'Negotiate abc' } }, format);
    });

    it('a key of another user that was revoked: 401 saying so; a new key works at once', async () => {
      const user = await createUser(service.database.db, {
        accountId: service.accountId, email: `revoked.${format}@demo.example`, firstName: 'Rita', lastName: 'Revoked', role: 'user',
      });
      expectStatus(await client.get('/Projects/$count', { key: user.apiKey }), 200);
      await revokeKeys(service.database.db, user.userId);
      const message = await expectUnauthorized('/Projects/$count', { key: user.apiKey }, format);
      expect(message).toContain('widerrufen');
      const { apiKey } = await newKey(service.database.db, user.userId);
      expectStatus(await client.get('/Projects/$count', { key: apiKey }), 200);
    });

    it('the key of an inactive user: 401 saying so', async () => {
      const user = await createUser(service.database.db, {
        accountId: service.accountId, email: `inactive.${format}@demo.example`, firstName: 'Ines', lastName: 'Inactive', role: 'user',
      });
      await service.database.db.updateTable('users').set({ active: 0 }).where('id', '=', user.userId).execute();
      const message = await expectUnauthorized('/Projects', { key: user.apiKey }, format);
      expect(message).toContain('inaktiv');
    });

    it('the inactive user still appears in /Users with Active false', async () => {
      const users = readFeed(await client.get('/Users?$filter=Active%20eq%20false', { format }), 'Users').records;
      expect(users.map((u) => u.LastName)).toContain('Inactive');
    });

    it('every kind of read below the root needs a key, none gives data away without one', async () => {
      const paths = ['/Projects(1)', '/Projects(1)/Name', '/Projects(1)/Name/$value', '/Projects/$count', '/Projects(1)/Client',
        '/Projects(1)/$links/TimeEntries', '/Users', '/AccountSettings', '/CurrentStopWatch',
        `/GetChangesDigest?LastSynchronizationTime=datetime'2026-01-01T00:00:00'`, '/Projects(999)', "/Projects?$filter=Name eq 'x'"];
      for (const path of paths) {
        const reply = await client.get(path, { key: null, format });
        expect(reply.status, path).toBe(401);
        expect(reply.headers.get('www-authenticate'), path).toBe(CHALLENGE);
        expect(reply.text, path).not.toContain('Website-Relaunch');
      }
    });

    it('a stopwatch operation without a key: 401 too', async () => {
      await expectUnauthorized('/CurrentStopWatch', { key: null }, format);
    });
  });
});
