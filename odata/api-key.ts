// Where a request to the OData API carries its API key (service-api.md §5), read one way for
// the service and the gateway alike, so that a spelling one of them takes for the key is the key
// to the other, and one either refuses is refused by both:
//
//   X-ServiceApiKey (or a configured alias), any casing     the key, as is
//   Authorization: Basic base64(user:key)                   the password (or the user name alone)
//   Authorization: Bearer key                               the key
//   ?ApiKey=key                                             the key (reads only: the caller checks)
//
// A header wins over the query parameter. The query is split at `&`; a parameter name is
// percent-decoded (`+` is a space) and compared without regard to case, so `%41piKey` is the
// parameter as RFC 3986 §6.2.2 says it is. A query that some other reader could take for a key
// and this one would not is malformed (400), never passed on, whatever the headers say:
//   - a name that is the parameter once everything but letters and digits is dropped
//     (`ApiKey%00`, `ApiKey[]`, ` ApiKey`, `Api-Key`, `api_key`);
//   - the parameter behind a `;` (`x=1;ApiKey=K`: servers that split at `;` read a key there);
//   - the parameter twice with different values, or a value whose percent-encoding is broken.
// redactApiKeys() masks all of that, and anything else whose decoded text names the parameter,
// for log lines. Pure: no I/O, nothing of the time-tracking service.

export type ApiKeyForm = 'header' | 'basic' | 'bearer' | 'query';

export interface ApiKey {
  readonly key: string;
  readonly form: ApiKeyForm;
}

export type ApiKeyReading =
  | { readonly kind: 'none' }
  | ({ readonly kind: 'key' } & ApiKey)
  | { readonly kind: 'malformed'; readonly detail: string };

/** The header of the contract (lower case, as Node gives header names). */
export const API_KEY_HEADER = 'x-serviceapikey';
/** The query parameter of the contract, as written there; matched without regard to case. */
export const API_KEY_PARAMETER = 'ApiKey';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const NONE: ApiKeyReading = { kind: 'none' };
const FOLDED_NAME = 'apikey';
const SENDABLE_KEY = /^[\x20-\x7e]+$/;
const NOT_ALPHANUMERIC = /[^a-z0-9]+/g;

/** Printable ASCII, as every API key is: anything else cannot be a header value upstream. */
export function isSendableKey(key: string): boolean {
  return SENDABLE_KEY.test(key);
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The key of an Authorization header of the Basic or Bearer scheme. */
export function keyOfAuthorization(authorization: string): ApiKey | undefined {
  const space = authorization.indexOf(' ');
  const scheme = authorization.slice(0, space < 0 ? undefined : space).toLowerCase();
  const value = space < 0 ? '' : authorization.slice(space + 1).trim();
  if (value === '') return undefined;
  if (scheme === 'bearer') return { key: value, form: 'bearer' };
  if (scheme !== 'basic') return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // The key is the password; a client that puts it in the user name with no password (some HTTP
  // libraries make that the easy way) is understood too.
  const key = colon < 0 ? decoded : decoded.slice(colon + 1) || decoded.slice(0, colon);
  return key === '' ? undefined : { key, form: 'basic' };
}

function decode(text: string): string | undefined {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/** Each valid `%XX` decoded, the rest left as it is: how the most lenient reader sees a name. */
function looseDecode(text: string): string {
  return text.replaceAll('+', ' ').replace(/(?:%[0-9a-f]{2})+/gi, (escapes) => decode(escapes) ?? escapes);
}

/** Whether some reader could take `name` (raw, as in the URL) for the key parameter. */
function looksLikeKeyName(name: string): boolean {
  return looseDecode(name).toLowerCase().replace(NOT_ALPHANUMERIC, '') === FOLDED_NAME;
}

function nameOf(pair: string): string {
  const eq = pair.indexOf('=');
  return eq < 0 ? pair : pair.slice(0, eq);
}

/** Most queries carry nothing that could be a key: no escape and no `key` at all. */
function mayNameKey(query: string): boolean {
  return query.includes('%') || /key/i.test(query);
}

/** The query of `url` without `?`, or '' when it has none. */
function queryOf(url: string): string {
  const start = url.indexOf('?');
  return start < 0 ? '' : url.slice(start + 1);
}

/** The ApiKey query parameter of `url` under the rules above. */
export function readQueryKey(url: string): ApiKeyReading {
  const query = queryOf(url);
  if (query === '' || !mayNameKey(query)) return NONE;
  let found: ApiKeyReading = NONE;
  for (const pair of query.split('&')) {
    const pieces = pair.split(';');
    for (let i = 1; i < pieces.length; i++) {
      if (looksLikeKeyName(nameOf(pieces[i] as string))) return { kind: 'malformed', detail: `the ${API_KEY_PARAMETER} parameter follows a ';' (send it after '&')` };
    }
    const name = nameOf(pair);
    if (!looksLikeKeyName(name)) continue;
    if (decode(name)?.toLowerCase() !== FOLDED_NAME) return { kind: 'malformed', detail: `a query parameter name resembles ${API_KEY_PARAMETER} but is not it` };
    const value = decode(pair.slice(name.length + 1));
    if (value === undefined) return { kind: 'malformed', detail: `the ${API_KEY_PARAMETER} parameter has a malformed percent-encoding` };
    const key = value.trim();
    if (key === '') continue;
    // Twice the same key is harmless (a client that appends its key to a next link that has it).
    if (found.kind === 'key' && found.key !== key) return { kind: 'malformed', detail: `the ${API_KEY_PARAMETER} parameter is given twice with different values` };
    found = { kind: 'key', key, form: 'query' };
  }
  return found;
}

/**
 * The caller's key from its headers and URL. `headerNames` (lower case) are the key headers
 * accepted: X-ServiceApiKey and any configured aliases. A malformed query is malformed even
 * beside a header key: it would be passed on as it is.
 */
export function readApiKey(headers: Headers, url: string, headerNames: readonly string[] = [API_KEY_HEADER]): ApiKeyReading {
  const fromQuery = readQueryKey(url);
  if (fromQuery.kind === 'malformed') return fromQuery;
  for (const name of headerNames) {
    const key = first(headers[name])?.trim();
    if (key) return { kind: 'key', key, form: 'header' };
  }
  const authorization = first(headers.authorization)?.trim();
  const fromAuthorization = authorization ? keyOfAuthorization(authorization) : undefined;
  return fromAuthorization === undefined ? fromQuery : { kind: 'key', ...fromAuthorization };
}

/**
 * `url` without its ApiKey parameter (`?` dropped when nothing is left), the rest byte for byte
 * as written: an OData `$filter` must reach the upstream as the client wrote it. For a query that
 * readQueryKey() found well-formed.
 */
export function withoutQueryKey(url: string): string {
  const start = url.indexOf('?');
  if (start < 0 || !mayNameKey(url.slice(start + 1))) return url;
  const kept = url.slice(start + 1).split('&').filter((pair) => !looksLikeKeyName(nameOf(pair)));
  return kept.length === 0 ? url.slice(0, start) : `${url.slice(0, start)}?${kept.join('&')}`;
}

/**
 * `url` for a log line: the value of every pair that is, resembles or (decoded) mentions the key
 * parameter replaced by `***`, whether the query is well-formed or not.
 */
export function redactApiKeys(url: string): string {
  const start = url.indexOf('?');
  if (start < 0 || !mayNameKey(url.slice(start + 1))) return url;
  const pairs = url.slice(start + 1).split(/([&;])/);
  for (let i = 0; i < pairs.length; i += 2) {
    const pair = pairs[i] as string;
    if (!looseDecode(pair).toLowerCase().replace(NOT_ALPHANUMERIC, '').includes(FOLDED_NAME)) continue;
    const name = nameOf(pair);
    pairs[i] = looksLikeKeyName(name) ? `${name}=***` : '***';
  }
  return `${url.slice(0, start)}?${pairs.join('')}`;
}
