// The caller's key handed to the upstream in the one form the upstream is configured for,
// whatever form the caller used.
import type { UpstreamCredentialConfig } from '../config.js';

export interface ForwardedCredential {
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** `name=value`, encoded, to append to the query; empty for none. */
  readonly query: string;
}

const NONE: ForwardedCredential = { headers: {}, query: '' };

export function upstreamCredential(key: string | undefined, config: UpstreamCredentialConfig): ForwardedCredential {
  if (key === undefined) return NONE;
  switch (config.form) {
    case 'header':
      return { headers: { [config.headerName.toLowerCase()]: key }, query: '' };
    case 'bearer':
      return { headers: { authorization: `Bearer ${key}` }, query: '' };
    case 'basic':
      return { headers: { authorization: `Basic ${Buffer.from(`apikey:${key}`).toString('base64')}` }, query: '' };
    case 'query':
      return { headers: {}, query: `${encodeURIComponent(config.queryName)}=${encodeURIComponent(key)}` };
  }
}
