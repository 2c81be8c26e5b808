// What the REST face needs from an upstream: send one OData request, get its status, headers and
// body. Every upstream call goes through this interface, so a cache, retries or a circuit
// breaker wrap a client (as undici's dispatchers wrap each other) without touching the callers.

export type UpstreamMethod = 'GET' | 'POST' | 'PUT' | 'MERGE' | 'PATCH' | 'DELETE';

export interface UpstreamRequest {
  readonly method: UpstreamMethod;
  /** Resource path below the service root, percent-encoded, without a leading `/` (`Projects(7)`). */
  readonly path: string;
  /** Query string, encoded, without `?`; empty for none. */
  readonly query: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface UpstreamResponse {
  readonly status: number;
  /** Lower-case header names, as undici gives them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** As received: the codec decodes it (a large Atom page in pieces, see odata/xml-source.ts). */
  readonly body: Buffer;
}

export interface UpstreamClient {
  send(request: UpstreamRequest): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

/** One header value (the first, when repeated). */
export function headerOf(response: UpstreamResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
