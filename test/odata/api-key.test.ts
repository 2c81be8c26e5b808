// The one reading of a request's API key that the service and the gateway share: which carriers
// and spellings are the key, which query spellings are malformed (400 on both), what is left of a
// URL without the key, and log lines that never show one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readApiKey, readQueryKey, redactApiKeys, withoutQueryKey } from '../../odata/api-key.js';

const K = 'tg_SecretKey-123';
const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe('readApiKey', () => {
  it('reads the header (any alias given), Basic (password, or user name alone), Bearer and the query', () => {
    expect(readApiKey({ 'x-serviceapikey': K }, '/Projects')).toEqual({ kind: 'key', key: K, form: 'header' });
    expect(readApiKey({ 'x-api-key': K }, '/Projects', ['x-serviceapikey', 'x-api-key'])).toEqual({ kind: 'key', key: K, form: 'header' });
    expect(readApiKey({ authorization: basic(`user:${K}`) }, '/Projects')).toEqual({ kind: 'key', key: K, form: 'basic' });
    expect(readApiKey({ authorization: basic(K) }, '/Projects')).toEqual({ kind: 'key', key: K, form: 'basic' });
    expect(readApiKey({ authorization: `Bearer ${K}` }, '/Projects')).toEqual({ kind: 'key', key: K, form: 'bearer' });
    expect(readApiKey({}, `/Projects?ApiKey=${K}`)).toEqual({ kind: 'key', key: K, form: 'query' });
    expect(readApiKey({}, '/Projects')).toEqual({ kind: 'none' });
  });

  it('lets a header win over the query parameter, but not over a malformed query', () => {
    expect(readApiKey({ 'x-serviceapikey': 'header-key' }, `/Projects?ApiKey=${K}`)).toEqual({ kind: 'key', key: 'header-key', form: 'header' });
    expect(readApiKey({ 'x-serviceapikey': 'header-key' }, `/Projects?ApiKey[]=${K}`).kind).toBe('malformed');
  });
});

describe('readQueryKey', () => {
  it.each([
    [`ApiKey=${K}`, K],
    [`apikey=${K}`, K],
    [`APIKEY=${K}&$top=1`, K],
    [`%41piKey=${K}`, K],
    [`ApiKey=${encodeURIComponent(' tg_a b ')}`, 'tg_a b'],
    [`$format=json&ApiKey=${K}`, K],
    [`ApiKey=${K}&$skiptoken=5&ApiKey=${K}`, K],
  ])('%s is the key', (query, key) => {
    expect(readQueryKey(`/Projects?${query}`)).toEqual({ kind: 'key', key, form: 'query' });
  });

  it.each(['', 'ApiKey=', '$filter=substringof(\'apikey\',Name)', 'myapikey=1', 'ApiKeys=1', 'x=ApiKey', '$filter=Name%20eq%20%27x%27'])('%s holds no key', (query) => {
    expect(readQueryKey(`/Projects?${query}`)).toEqual({ kind: 'none' });
  });

  it.each([
    `ApiKey%00=${K}`,
    `ApiKey[]=${K}`,
    `ApiKey%5B%5D=${K}`,
    `%20ApiKey=${K}`,
    `ApiKey%20=${K}`,
    `Api-Key=${K}`,
    `api_key=${K}`,
    `Api%4Bey%00=${K}`,
    `x=1;ApiKey=${K}`,
    `$top=1;apikey=${K}`,
    `ApiKey=${K}&apikey=other`,
    'ApiKey=%ZZ',
  ])('%s is malformed', (query) => {
    expect(readQueryKey(`/Projects?${query}`).kind).toBe('malformed');
  });
});

describe('withoutQueryKey', () => {
  it('cuts the key parameter and keeps the rest byte for byte', () => {
    expect(withoutQueryKey(`/P?$filter=Name%20eq%20'a+b'&ApiKey=${K}&$top=1`)).toBe("/P?$filter=Name%20eq%20'a+b'&$top=1");
    expect(withoutQueryKey(`/P?%41piKey=${K}`)).toBe('/P');
    expect(withoutQueryKey('/P?$top=1')).toBe('/P?$top=1');
    expect(withoutQueryKey('/P')).toBe('/P');
  });
});

describe('redactApiKeys', () => {
  it('masks every spelling of the key, well-formed or not, and leaves the rest', () => {
    expect(redactApiKeys(`/P?ApiKey=${K}&$top=1`)).toBe('/P?ApiKey=***&$top=1');
    expect(redactApiKeys(`/P?x=1;ApiKey=${K}`)).toBe('/P?x=1;ApiKey=***');
    expect(redactApiKeys(`/P?ApiKey%00=${K}`)).toBe('/P?ApiKey%00=***');
    expect(redactApiKeys('/P?$top=1')).toBe('/P?$top=1');
  });

  it('never lets a key placed in any key-like spelling through', () => {
    const spelling = fc.constantFrom('ApiKey', 'apikey', '%41piKey', 'ApiKey%00', 'ApiKey[]', ' ApiKey', 'Api-Key', 'api_key', 'Api%4Bey');
    const separator = fc.constantFrom('&', ';', '%26', '%3B');
    const key = fc.stringMatching(/^tg_[A-Za-z0-9_-]{8,40}$/);
    fc.assert(fc.property(spelling, separator, key, fc.boolean(), (name, sep, secret, encodeEquals) => {
      const url = `/V1/Api.svc/Projects?$top=1${sep}${name}${encodeEquals ? '%3D' : '='}${secret}&$format=json`;
      expect(redactApiKeys(url)).not.toContain(secret);
    }), { seed: 32, numRuns: 500 });
  });
});
