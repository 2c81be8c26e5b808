// Where a caller's API key may come from, in every form the contract's security schemes list:
// the X-ServiceApiKey header (name in any casing), HTTP Basic (user name ignored, key as the
// password), a Bearer token, or the ApiKey query parameter (reads only). A header wins over the
// query parameter. The key itself is never logged: request logs carry neither headers nor it.

export type CallerKeyForm = 'header' | 'basic' | 'bearer' | 'query';

export interface CallerKey {
  readonly key: string;
  readonly form: CallerKeyForm;
}

export const KEY_HEADER = 'x-serviceapikey';
/** The query parameter of the apiKeyQuery scheme, matched case-insensitively. */
export const KEY_QUERY_PARAMETER = 'apikey';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const SENDABLE_KEY = /^[\x20-\x7e]+$/;

/**
 * Whether a key can go upstream: printable ASCII, as every API key is. Anything else (a Basic
 * password or a query key decoded to `€`, a NUL, a line break) is refused at the edge: undici
 * refuses a header value it cannot send, and as of 7.30 keeps the pool connection it had taken
 * for that request, so a few dozen such calls would hang every later call to the upstream.
 */
export function isSendableKey(key: string): boolean {
  return SENDABLE_KEY.test(key);
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function fromAuthorization(authorization: string): CallerKey | undefined {
  const space = authorization.indexOf(' ');
  const scheme = authorization.slice(0, space < 0 ? undefined : space).toLowerCase();
  const value = space < 0 ? '' : authorization.slice(space + 1).trim();
  if (value === '') return undefined;
  if (scheme === 'bearer') return { key: value, form: 'bearer' };
  if (scheme !== 'basic') return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // The key is the password; a key given as the user name with no password is understood too.
  const key = colon < 0 ? decoded : decoded.slice(colon + 1) || decoded.slice(0, colon);
  return key === '' ? undefined : { key, form: 'basic' };
}

/**
 * The caller's key, from its headers or (reads only, checked by the caller) its query.
 * `headerNames` (lower case) are the key headers accepted: X-ServiceApiKey and configured aliases.
 */
export function callerKeyOf(
  headers: Headers,
  query: Readonly<Record<string, unknown>>,
  headerNames: readonly string[] = [KEY_HEADER],
): CallerKey | undefined {
  for (const name of headerNames) {
    const header = first(headers[name])?.trim();
    if (header) return { key: header, form: 'header' };
  }
  const authorization = first(headers.authorization)?.trim();
  const fromHeader = authorization ? fromAuthorization(authorization) : undefined;
  if (fromHeader) return fromHeader;
  for (const [name, value] of Object.entries(query)) {
    if (name.toLowerCase() !== KEY_QUERY_PARAMETER) continue;
    const key = first(value as string | string[] | undefined)?.trim();
    if (key) return { key, form: 'query' };
  }
  return undefined;
}

/** The query without the ApiKey parameter: the key is a credential, not a list option. */
export function withoutQueryKey(query: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    if (name.toLowerCase() !== KEY_QUERY_PARAMETER) rest[name] = value;
  }
  return rest;
}

/** A request URL with every ApiKey query parameter cut out, for logs and problem documents. */
export { withoutQueryKeyInUrl } from './query-key.js';
