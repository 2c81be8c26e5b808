// Where a request carries its API key (service-api.md §5), read with odata/api-key.ts, the reading
// the gateway uses too: the X-ServiceApiKey header (any casing, plus configured alias names),
// HTTP Basic (user name ignored, key as password), a Bearer token, or the ApiKey query parameter.
// The query parameter grants reads only, so the form is kept with the key. A query that names the
// key in a malformed spelling (`ApiKey%00=`, `x=1;ApiKey=`, `ApiKey[]=`) is a 400.
import type { ApiKey, ApiKeyForm } from '../../odata/api-key.js';
import { API_KEY_HEADER, readApiKey, redactApiKeys } from '../../odata/api-key.js';
import { BadRequestError } from '../odata-server/errors.js';

export type CredentialForm = ApiKeyForm;
export type Credential = ApiKey;

export interface CredentialRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly url: string;
}

export const DEFAULT_KEY_HEADER = API_KEY_HEADER;

/** `headerNames` in lower case (Node lower-cases incoming header names). */
export function credentialOf(request: CredentialRequest, headerNames: readonly string[]): Credential | undefined {
  const reading = readApiKey(request.headers, request.url, headerNames);
  if (reading.kind === 'malformed') throw new BadRequestError(reading.detail);
  return reading.kind === 'key' ? { key: reading.key, form: reading.form } : undefined;
}

/** The URL with every value that is or names an ApiKey masked, for logs. */
export const redactApiKey = redactApiKeys;
