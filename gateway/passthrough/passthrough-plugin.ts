// The OData passthrough face: `/V1/Api.svc/*` (any casing) proxied to the upstream service root
// through the gateway's one upstream dispatcher (upstream/; the call itself in upstream-relay.ts), so the
// credential, deadline, retry, breaker and metrics policies are the REST face's too. Request
// bodies are read first (bounded by the body limit, so the upstream never waits on a slow client
// and a 413 comes before any upstream call) and sent with their length; response bodies stream.
// Hop-by-hop headers and Expect are dropped, X-Forwarded-* and X-Request-Id set; every absolute
// URI of a response is rewritten from the upstream's root to the gateway's (bodies as they
// stream, Location/Content-Location headers). Its own error handler writes every failure, the
// root hooks' refusals included, as an OData error document. `$batch` has a route of its own,
// whose body is read and checked before it goes (batch-passthrough.ts).
import { Readable } from 'node:stream';
import type { Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { BadGatewayError, GatewayError, MalformedUrlError } from '../errors.js';
import type { UpstreamCall } from '../upstream/upstream-call.js';
import { newCall, withCall } from '../upstream/upstream-call.js';
import type { UpstreamStack } from '../upstream/upstream-dispatcher.js';
import { upstreamFailure } from '../upstream/upstream-faults.js';
import type { BatchBodyOptions } from './batch-passthrough.js';
import { BatchAnswerRewriter, isBatchAnswer, registerBatchBody } from './batch-passthrough.js';
import { stripHopByHop } from './hop-by-hop.js';
import { sendODataError } from './odata-errors.js';
import type { RootPair } from './root-rewriter.js';
import { bodyMayEscapeSlashes, isRewritable, rewriteRoot, rewriteRootBytes, RootRewriteStream } from './root-rewriter.js';
import type { RelayAnswer, RelayHead } from './upstream-relay.js';
import { relayUpstream } from './upstream-relay.js';

/** Where the face answers on the gateway, whatever the upstream's root path is. */
export const PASSTHROUGH_ROOT = '/V1/Api.svc';

// find-my-way matches static segments case-sensitively; these regex parameters accept any casing.
const ROOT_ROUTE = '/:v(^[vV]1$)/:svc(^[aA][pP][iI]\\.[sS][vV][cC]$)';

/**
 * Rewritable answers up to this size (by their Content-Length) are read whole, then rewritten in
 * one copy and sent in one write with their length; larger ones stream through the rewriter,
 * chunked. Pages of 100 entries (80 kB JSON, 210 kB Atom) are read whole: against streaming
 * them (the limit was 16 kB), three interleaved A/Bs of 7 to 9 rounds gave the same added p50
 * within 0.03 ms and a p99 13 to 35% lower in every case (BENCHMARKS.md, gateway-passthrough).
 */
export const WHOLE_BODY_BYTES = 256 * 1024;

/** A path the WHATWG URL parser would change: a dot segment, a backslash, a byte outside printable ASCII. */
const NEEDS_NORMALISING = /\/\.|\\|[^!-~]/;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'MERGE', 'DELETE', 'OPTIONS'] as const;

export interface PassthroughOptions {
  readonly upstream: UpstreamStack;
  /** The upstream writes the gateway's root into its answers itself (UpstreamConfig). */
  readonly writesGatewayRoot: boolean;
  readonly batch: Omit<BatchBodyOptions, 'odataBasePath'>;
}

interface ProxyState {
  readonly pair: RootPair;
  readonly call: UpstreamCall;
  /** A `$batch`, its body read by the batch reader and handed on as a stream. */
  readonly isBatch: boolean;
}

/** Where the response object keeps its request's call, for the `close` listener. */
const CALL_OF_RESPONSE = Symbol('timegate.passthroughCall');

declare module 'fastify' {
  interface FastifyRequest {
    passthrough?: ProxyState;
  }
}

/**
 * What to rewrite in this request's answer: the upstream's root, and, where the upstream's root
 * path is not the gateway's, what an upstream that believes the X-Forwarded-Host/-Proto sent
 * with the request writes instead (the gateway's origin with the upstream's path).
 */
function rootPairOf(request: FastifyRequest, upstreamRoot: string, upstreamRootPath: string): RootPair {
  const origin = `${request.protocol}://${request.host}`;
  const to = `${origin}${PASSTHROUGH_ROOT}`;
  const forwardedFrom = `${origin}${upstreamRootPath}`;
  return to.startsWith(forwardedFrom) ? { from: upstreamRoot, to } : { from: upstreamRoot, to, forwardedFrom };
}

/** The path and query after the root, as the client wrote them (`/Projects(1)?$top=2`, or ``). */
function tailOf(request: FastifyRequest): string {
  const params = request.params as { v: string; svc: string };
  return request.url.slice(2 + params.v.length + params.svc.length);
}

function addForwardedFor(headers: Record<string, string | string[] | undefined>, request: FastifyRequest): void {
  const previous = headers['x-forwarded-for'];
  const address = request.socket.remoteAddress ?? '';
  headers['x-forwarded-for'] = previous ? `${Array.isArray(previous) ? previous.join(', ') : previous}, ${address}` : address;
  headers['x-forwarded-proto'] = request.protocol;
  headers['x-forwarded-host'] = request.host;
}

function contentTypeOf(head: RelayHead): string | undefined {
  const header = head.headers['content-type'];
  return typeof header === 'string' ? header : undefined;
}

/** The client went away before its answer was sent: what follows says nothing of the upstream. */
function onClientClose(this: { [CALL_OF_RESPONSE]?: UpstreamCall; writableFinished: boolean }): void {
  const call = this[CALL_OF_RESPONSE];
  if (call !== undefined && !this.writableFinished) call.isClientGone = true;
}

/**
 * The upstream's body through `rewriter`. Wired by hand, not with stream.pipeline(): its
 * AbortController per call showed in the profile of this path. An upstream failure ends the
 * client's answer; a client gone away releases the upstream connection.
 */
function relay(request: FastifyRequest, upstreamBody: Readable, rewriter: Transform): Transform {
  upstreamBody.once('error', (error) => {
    request.log.warn({ err: error }, 'upstream body failed while streaming');
    rewriter.destroy(error);
  });
  rewriter.once('error', (error) => {
    // The upstream's answer itself is malformed (a batch answer the gateway cannot read).
    if (!upstreamBody.destroyed) request.log.warn({ err: error }, 'upstream answer could not be rewritten');
  });
  rewriter.once('close', () => {
    if (!upstreamBody.readableEnded) upstreamBody.destroy();
  });
  return upstreamBody.pipe(rewriter);
}

export async function passthroughPlugin(app: FastifyInstance, options: PassthroughOptions): Promise<void> {
  const { upstream } = options;
  const upstreamRoot = `${upstream.origin}${upstream.rootPath}`;
  // An upstream said to write the gateway's root itself, at the gateway's own root path, sends
  // bodies with nothing to rewrite: they go through untouched, unscanned, with their length (read
  // whole up to WHOLE_BODY_BYTES all the same: one write of a page cost less CPU than relaying
  // its chunks, 1.17x in alternating rounds). Where its path differs, it writes the gateway's host
  // with its own path, which is rewritten.
  const relaysUntouched = options.writesGatewayRoot && upstream.rootPath === PASSTHROUGH_ROOT;

  for (const method of ['MERGE'] as const) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }

  // Bodies are read whole, up to the body limit (Fastify's 413 beyond), as they are: they are not
  // rewritten, a text property that names the gateway is the caller's data.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const upstreamHost = new URL(upstream.origin).host;

  /**
   * The upstream's path for the client's path below the root: refused when a segment climbs
   * (`..`, encoded or not) or does not decode; what a URL would normalise (a `.` segment, a
   * backslash, a byte outside printable ASCII) is normalised as the WHATWG URL parser does.
   */
  function upstreamPath(tailPath: string): string {
    const source = `${upstream.rootPath}${tailPath}`;
    let decoded: string;
    try {
      decoded = decodeURIComponent(source);
    } catch {
      throw new MalformedUrlError();
    }
    if (decoded.includes('/..') || decoded.includes('../')) throw new GatewayError(400, 'bad-request', 'Bad request', 'the path climbs above the service root (a `..` segment)');
    if (!NEEDS_NORMALISING.test(source)) return source;
    // `//host` would name another origin: relative to the root it stays a path.
    const url = new URL(source.startsWith('//') ? `.${source}` : source, `${upstream.origin}/`);
    if (url.origin !== upstream.origin) throw new MalformedUrlError();
    return url.pathname;
  }

  // What a response of the upstream becomes: its head rewritten (hop-by-hop headers dropped,
  // Location and Content-Location named on the gateway), its body relayed (upstream-relay.ts):
  // rewritable bodies up to WHOLE_BODY_BYTES whole, any other as a stream.
  const readsWhole = (request: FastifyRequest, head: RelayHead): boolean => {
    const contentType = contentTypeOf(head);
    if (request.method === 'HEAD' || !isRewritable(contentType)) return false;
    if ((request.passthrough as ProxyState).isBatch && isBatchAnswer(head.statusCode, contentType)) return false;
    return Number(head.headers['content-length']) <= WHOLE_BODY_BYTES;
  };

  function answerHeaders(request: FastifyRequest, headers: Record<string, string | string[] | undefined>, rewritesBody: boolean): Record<string, string | string[]> {
    const { pair } = request.passthrough as ProxyState;
    const answer = stripHopByHop({ ...headers });
    for (const name of ['location', 'content-location']) {
      const value = answer[name];
      if (typeof value === 'string') answer[name] = rewriteRoot(value, pair);
    }
    // A rewritten body has a length of its own: Fastify writes it, or the body is chunked.
    if (rewritesBody) delete answer['content-length'];
    return answer as Record<string, string | string[]>;
  }

  function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: RelayAnswer): void {
    const state = request.passthrough as ProxyState;
    const contentType = contentTypeOf(answer);
    try {
      reply.code(answer.statusCode);
    } catch {
      answer.stream?.destroy();
      sendODataError(new BadGatewayError('the upstream OData service answered with an invalid status'), request, reply);
      return;
    }
    reply.headers(answerHeaders(request, answer.headers, !relaysUntouched && isRewritable(contentType)));
    if (answer.body !== undefined) {
      // Read whole (readsWhole): rewritten in one copy and sent in one write with its length.
      reply.send(relaysUntouched ? answer.body : rewriteRootBytes(answer.body, state.pair, bodyMayEscapeSlashes(contentType as string)));
    } else if (state.isBatch && isBatchAnswer(answer.statusCode, contentType)) {
      reply.send(relay(request, answer.stream, new BatchAnswerRewriter(contentType as string, state.pair)));
    } else if (request.method === 'HEAD' || !isRewritable(contentType) || relaysUntouched) {
      reply.send(answer.stream);
    } else {
      reply.send(relay(request, answer.stream, new RootRewriteStream(state.pair, bodyMayEscapeSlashes(contentType))));
    }
  }

  function requestHeaders(request: FastifyRequest, body: Buffer | undefined): Record<string, string | string[] | undefined> {
    const headers = stripHopByHop({ ...request.headers });
    // Met by the gateway itself (request-hygiene.ts); undici refuses to send it.
    delete headers.expect;
    // Bodies are rewritten as they arrive; an identity encoding keeps them readable.
    delete headers['accept-encoding'];
    headers.host = upstreamHost;
    addForwardedFor(headers, request);
    headers['x-request-id'] = request.id;
    if (body !== undefined) {
      headers['content-length'] = String(body.length);
      headers['content-type'] = request.headers['content-type'] ?? 'application/octet-stream';
    }
    return headers;
  }

  function proxy(request: FastifyRequest, reply: FastifyReply): void {
    const tail = tailOf(request);
    const queryStart = tail.indexOf('?');
    const path = queryStart < 0 ? tail : tail.slice(0, queryStart);
    const { key, partition } = request.credential;
    const isBatch = request.body instanceof Readable;
    const state: ProxyState = { pair: rootPairOf(request, upstreamRoot, upstream.rootPath), call: newCall('odata', key, partition), isBatch };
    request.passthrough = state;
    (reply.raw as { [CALL_OF_RESPONSE]?: UpstreamCall })[CALL_OF_RESPONSE] = state.call;
    reply.raw.once('close', onClientClose);
    const body = isBatch ? undefined : (request.body as Buffer | undefined);
    relayUpstream(upstream.dispatcher, {
      method: request.method as Dispatcher.HttpMethod,
      path: upstreamPath(path) + (queryStart < 0 ? '' : tail.slice(queryStart)),
      headers: withCall(requestHeaders(request, body), state.call),
      // A batch's body stream goes as the request's own.
      body: isBatch ? (request.body as Readable) : body,
    }, {
      readsWhole: (head) => readsWhole(request, head),
      isClientGone: () => state.call.isClientGone || reply.raw.destroyed,
      done: (error, answer, isBrokenOff) => {
        if (answer !== undefined) sendAnswer(request, reply, answer);
        // Gone: there is no one to answer.
        else if (reply.raw.destroyed) return;
        // Nothing has been sent yet: the client gets an answer, not a dropped connection.
        else if (isBrokenOff) {
          request.log.warn({ err: error }, 'upstream body failed while reading');
          sendODataError(new BadGatewayError('the upstream OData service broke off its answer'), request, reply);
        } else {
          sendODataError(upstreamFailure(error), request, reply);
        }
      },
    });
  }

  for (const url of [ROOT_ROUTE, `${ROOT_ROUTE}/*`]) {
    app.route({ method: [...METHODS], url, handler: proxy, config: { metricsRoute: `${PASSTHROUGH_ROOT}/*` } });
  }
  app.setErrorHandler(sendODataError);
  // Its own context, for its own body parser (after the error handler, which it inherits).
  await app.register(async (batch) => {
    registerBatchBody(batch, { ...options.batch, odataBasePath: PASSTHROUGH_ROOT });
    batch.route({ method: 'POST', url: `${ROOT_ROUTE}/$batch`, handler: proxy, config: { metricsRoute: `${PASSTHROUGH_ROOT}/$batch` } });
  });
}
