// The REST face's client of the upstream: one OData request sent through the one dispatcher
// (upstream-dispatcher.ts, the passthrough's too), its answer buffered up to a limit. What the
// dispatcher fails with (a deadline, an open breaker, no connection) becomes the gateway's
// 502/503/504 here, with upstream-faults.ts, as the passthrough maps it.
import type { Readable } from 'node:stream';
import { BadGatewayError } from '../errors.js';
import type { UpstreamCall } from './upstream-call.js';
import { withCall } from './upstream-call.js';
import type { UpstreamStack } from './upstream-dispatcher.js';
import { upstreamFailure } from './upstream-faults.js';

export type UpstreamMethod = 'GET' | 'POST' | 'PUT' | 'MERGE' | 'PATCH' | 'DELETE';

export interface UpstreamRequest {
  readonly method: UpstreamMethod;
  /** Resource path below the service root, percent-encoded, without a leading `/` (`Projects(7)`). */
  readonly path: string;
  /** Query string, encoded, without `?`; empty for none. */
  readonly query: string;
  /** Lower-case header names; the object is the call's (the dispatcher's policies write into it). */
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** Whose call it is: the caller's key goes upstream in the upstream's form. */
  readonly call: UpstreamCall;
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
}

/** One header value (the first, when repeated). */
export function headerOf(response: UpstreamResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function createUpstreamClient(stack: UpstreamStack, maxResponseBytes: number): UpstreamClient {
  const { dispatcher, rootPath } = stack;

  // Events rather than `for await`: the async iterator costs a promise per chunk and a stream
  // teardown per response, on the path of every REST call.
  function readBody(body: Readable): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxResponseBytes) {
          body.destroy();
          reject(new BadGatewayError(`the upstream answered with more than ${maxResponseBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      body.once('error', reject);
      body.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    });
  }

  return {
    async send(request) {
      const path = `${rootPath}/${request.path}${request.query === '' ? '' : `?${request.query}`}`;
      try {
        const response = await dispatcher.request({
          method: request.method,
          path,
          headers: withCall(request.headers, request.call),
          ...(request.body === undefined ? {} : { body: request.body }),
        });
        return { status: response.statusCode, headers: response.headers, body: await readBody(response.body) };
      } catch (error) {
        throw upstreamFailure(error);
      }
    },
  };
}
