// Auth normalisation for both faces: whatever form the caller used (ApiKey query parameter,
// Basic, X-ServiceApiKey or an alias in any casing, Bearer), exactly one canonical credential
// goes upstream, in the form the upstream is configured for; every other carrier of a key is
// removed, the query parameter included. The spec's rule is kept at the edge: the query key
// grants reads only, so a write carrying nothing else is refused before the upstream sees it.
import type { UpstreamCredentialConfig } from '../config.js';
import type { AuthConfig } from './auth-config.js';
import type { CallerKey } from './caller-key.js';
import { callerKeyOf, isSendableKey, KEY_HEADER } from './caller-key.js';
import type { GatewayError } from '../errors.js';
import { KeyNotAllowedError, MalformedKeyError, QueryKeyForWriteError } from '../errors.js';
import type { KeyCheck } from './key-check.js';
import { createKeyCheck } from './key-check.js';
import { queryKeyOf, withoutQueryKeyInUrl } from './query-key.js';
import type { ForwardedCredential } from './upstream-credential.js';
import { upstreamCredential } from './upstream-credential.js';

type Headers = Record<string, string | string[] | undefined>;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether `method` may change data (the query key does not grant it). */
export function isWriteMethod(method: string): boolean {
  return !READ_METHODS.has(method.toUpperCase());
}

export type Refusal = 'malformed-key' | 'query-key-write' | 'unknown-key';

export type Admission =
  | { readonly allowed: true; readonly caller: CallerKey | undefined }
  | { readonly allowed: false; readonly reason: Refusal };

/** The error a refusal answers with (each face writes it in its own format). */
export function refusalOf(reason: Refusal): GatewayError {
  switch (reason) {
    case 'malformed-key':
      return new MalformedKeyError();
    case 'query-key-write':
      return new QueryKeyForWriteError();
    case 'unknown-key':
      return new KeyNotAllowedError();
  }
}

/**
 * The rules both faces hold a caller's key to, whatever the gateway's configuration: a key an
 * upstream credential can carry, and the query key for reads only.
 */
export function keyRefusal(caller: CallerKey | undefined, write: boolean): Refusal | undefined {
  if (caller === undefined) return undefined;
  if (!isSendableKey(caller.key)) return 'malformed-key';
  return caller.form === 'query' && write ? 'query-key-write' : undefined;
}

export class CredentialNormaliser {
  /** Lower-case names of the headers a caller may put the key in. */
  readonly keyHeaders: readonly string[];
  private readonly isAllowedKey: KeyCheck;
  private readonly checksKeys: boolean;

  constructor(
    auth: AuthConfig,
    private readonly upstream: UpstreamCredentialConfig,
  ) {
    this.keyHeaders = [...new Set([KEY_HEADER, ...auth.keyHeaderAliases.map((name) => name.toLowerCase())])];
    this.isAllowedKey = createKeyCheck(auth.allowedKeys);
    this.checksKeys = auth.allowedKeys !== undefined;
  }

  /** The caller's key from a raw request: a header form wins over the query parameter. */
  callerOf(headers: Readonly<Headers>, url: string): CallerKey | undefined {
    const fromHeaders = callerKeyOf(headers, {}, this.keyHeaders);
    if (fromHeaders !== undefined) return fromHeaders;
    const key = queryKeyOf(url);
    return key === undefined ? undefined : { key, form: 'query' };
  }

  /** Whether the request may go upstream at all: the rules of keyRefusal, then the optional key check. */
  admit(method: string, caller: CallerKey | undefined): Admission {
    const refused = keyRefusal(caller, isWriteMethod(method));
    if (refused !== undefined) return { allowed: false, reason: refused };
    if (this.checksKeys && !this.isAllowedKey(caller?.key)) return { allowed: false, reason: 'unknown-key' };
    return { allowed: true, caller };
  }

  /** The one credential the upstream gets for `caller`. */
  forwarded(caller: CallerKey | undefined): ForwardedCredential {
    return upstreamCredential(caller?.key, this.upstream);
  }

  /** Request headers for the upstream: every key carrier removed, the canonical one added. */
  forwardHeaders(headers: Headers, credential: ForwardedCredential): Headers {
    for (const name of this.keyHeaders) delete headers[name];
    delete headers.authorization;
    delete headers[this.upstream.headerName.toLowerCase()];
    Object.assign(headers, credential.headers);
    return headers;
  }

  /** The path and query for the upstream: the ApiKey parameter removed, the canonical query credential added. */
  forwardUrl(url: string, credential: ForwardedCredential): string {
    const clean = withoutQueryKeyInUrl(url);
    if (credential.query === '') return clean;
    return `${clean}${clean.includes('?') ? '&' : '?'}${credential.query}`;
  }
}
