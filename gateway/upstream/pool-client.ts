// The upstream client over an undici Pool: keep-alive connections to the service root's origin,
// connect and response timeouts, and a cap on how much of a response is buffered. Transport
// failures become the gateway's 502/504 problems here, and nowhere else.
import type { Readable } from 'node:stream';
import { Pool, errors } from 'undici';
import type { UpstreamConfig } from '../config.js';
import { BadGatewayError, GatewayTimeoutError } from '../errors.js';
import type { UpstreamClient, UpstreamRequest, UpstreamResponse } from './upstream-client.js';

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** A transport failure as the problem the client sees; it never names the upstream's host. */
function transportProblem(error: unknown): Error {
  if (error instanceof BadGatewayError) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) {
    return new GatewayTimeoutError('the upstream OData service did not answer in time');
  }
  const reason = typeof code === 'string' ? ` (${code})` : '';
  return new BadGatewayError(`the upstream OData service cannot be reached${reason}`);
}

export function createPoolClient(config: UpstreamConfig): UpstreamClient {
  const root = new URL(config.url);
  if (root.protocol !== 'http:' && root.protocol !== 'https:') throw new TypeError(`upstream URL must be http(s), not ${root.protocol}`);
  const rootPath = root.pathname.replace(/\/+$/, '');
  const pool = new Pool(root.origin, {
    connections: config.connections,
    connectTimeout: config.connectTimeoutMs,
    headersTimeout: config.requestTimeoutMs,
    bodyTimeout: config.requestTimeoutMs,
    pipelining: 1,
  });
  const limit = config.maxResponseBytes;

  // Events rather than `for await`: the async iterator costs a promise per chunk and a stream
  // teardown per response, on the path of every REST call.
  function readBody(body: Readable): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          body.destroy();
          reject(new BadGatewayError(`the upstream answered with more than ${limit} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      body.once('error', reject);
      body.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    });
  }

  return {
    async send(request: UpstreamRequest): Promise<UpstreamResponse> {
      const path = `${rootPath}/${request.path}${request.query === '' ? '' : `?${request.query}`}`;
      try {
        const response = await pool.request({
          method: request.method,
          path,
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
        });
        const body = await readBody(response.body);
        return { status: response.statusCode, headers: response.headers, body };
      } catch (error) {
        if (error instanceof errors.RequestAbortedError) throw new BadGatewayError('the upstream request was aborted');
        throw transportProblem(error);
      }
    },
    close: () => pool.close(),
  };
}
