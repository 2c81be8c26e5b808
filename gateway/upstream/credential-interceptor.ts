// Auth normalisation for both faces, as the outermost interceptor of the one dispatcher: whatever
// the face sends (the passthrough forwards the client's headers and query, the REST face builds
// its own), every carrier of a key is removed (X-ServiceApiKey and its aliases, Authorization,
// the upstream's own key header, the ApiKey query parameter) and exactly one credential, the
// caller's key of the call, goes upstream in the form the upstream is configured for. The
// upstream's verdict on it is kept for the read cache (auth/credential-freshness.ts).
import type { Dispatcher } from 'undici';
import { withoutQueryKey } from '../../odata/api-key.js';
import type { CredentialFreshness } from '../auth/credential-freshness.js';
import type { UpstreamCredentialConfig } from '../config.js';
import type { UpstreamCall } from './upstream-call.js';
import { ForwardingHandler, callOf } from './upstream-call.js';

export interface CredentialOptions {
  readonly credential: UpstreamCredentialConfig;
  /** Lower-case names of the headers a caller may send its key in. */
  readonly keyHeaders: readonly string[];
  readonly freshness: CredentialFreshness;
}

type Headers = Record<string, string | string[] | undefined>;

class VerdictHandler extends ForwardingHandler {
  constructor(
    handler: Dispatcher.DispatchHandler,
    private readonly freshness: CredentialFreshness,
    private readonly call: UpstreamCall,
  ) {
    super(handler);
  }

  override onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    this.freshness.record(this.call.partition, statusCode);
    super.onResponseStart(controller, statusCode, headers, statusMessage);
  }
}

/** Writes `key` into the request in the configured form; returns the path to send. */
type CredentialWriter = (headers: Headers, path: string, key: string) => string;

function writerOf(config: UpstreamCredentialConfig): CredentialWriter {
  const headerName = config.headerName.toLowerCase();
  const queryName = encodeURIComponent(config.queryName);
  switch (config.form) {
    case 'header':
      return (headers, path, key) => {
        headers[headerName] = key;
        return path;
      };
    case 'bearer':
      return (headers, path, key) => {
        headers.authorization = `Bearer ${key}`;
        return path;
      };
    case 'basic':
      return (headers, path, key) => {
        headers.authorization = `Basic ${Buffer.from(`apikey:${key}`).toString('base64')}`;
        return path;
      };
    case 'query':
      return (_headers, path, key) => `${path}${path.includes('?') ? '&' : '?'}${queryName}=${encodeURIComponent(key)}`;
  }
}

export function credentialInterceptor(options: CredentialOptions): Dispatcher.DispatcherComposeInterceptor {
  const carriers = [...new Set([...options.keyHeaders, 'authorization', options.credential.headerName.toLowerCase()])];
  const write = writerOf(options.credential);
  return (dispatch) => function credential(opts, handler) {
    const call = callOf(opts);
    // Every face hands over a plain object of its own; anything else gets one.
    const isOwnObject = typeof opts.headers === 'object' && opts.headers !== null && !Array.isArray(opts.headers);
    const headers = (isOwnObject ? opts.headers : {}) as Headers;
    for (const name of carriers) if (headers[name] !== undefined) delete headers[name];
    let path = withoutQueryKey(opts.path);
    if (call.key !== undefined) path = write(headers, path, call.key);
    const forwarded = path === opts.path && isOwnObject ? opts : { ...opts, path, headers };
    return dispatch(forwarded, new VerdictHandler(handler, options.freshness, call));
  };
}
