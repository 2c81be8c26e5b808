// Where a request carries its API key (service-api.md §5): the X-ServiceApiKey header (any
// casing, plus configured alias names), HTTP Basic (user name ignored, key as password), a
// Bearer token, or the ApiKey query parameter. The query parameter grants reads only, so the
// form is kept with the key. When several are sent, a header wins over the query parameter.
export type CredentialForm = 'header' | 'basic' | 'bearer' | 'query';

export interface Credential {
  readonly key: string;
  readonly form: CredentialForm;
}

export interface CredentialRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly url: string;
}

export const DEFAULT_KEY_HEADER = 'x-serviceapikey';

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `headerNames` in lower case (Node lower-cases incoming header names). */
export function credentialOf(request: CredentialRequest, headerNames: readonly string[]): Credential | undefined {
  for (const name of headerNames) {
    const key = first(request.headers[name])?.trim();
    if (key) return { key, form: 'header' };
  }
  const authorization = first(request.headers.authorization)?.trim();
  if (authorization) {
    const space = authorization.indexOf(' ');
    const scheme = authorization.slice(0, space < 0 ? undefined : space).toLowerCase();
    const value = space < 0 ? '' : authorization.slice(space + 1).trim();
    if (scheme === 'bearer' && value) return { key: value, form: 'bearer' };
    if (scheme === 'basic' && value) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      // The key is the password; a client that puts it in the user name with no password
      // (some HTTP libraries make that the easy way) is understood too.
      const key = colon < 0 ? decoded : decoded.slice(colon + 1) || decoded.slice(0, colon);
      if (key) return { key, form: 'basic' };
    }
  }
  const key = queryApiKey(request.url);
  return key ? { key, form: 'query' } : undefined;
}

/** The `ApiKey` query parameter (name matched case-insensitively), if any. */
export function queryApiKey(url: string): string | undefined {
  const queryStart = url.indexOf('?');
  if (queryStart < 0 || !/apikey/i.test(url)) return undefined;
  for (const pair of url.slice(queryStart + 1).split('&')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).toLowerCase() !== 'apikey') continue;
    try {
      return decodeURIComponent(pair.slice(eq + 1).replaceAll('+', ' '));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The URL with the value of every ApiKey parameter masked, for logs. */
export function redactApiKey(url: string): string {
  return url.indexOf('?') < 0 ? url : url.replace(/([?&]apikey=)[^&#]*/gi, '$1***');
}
