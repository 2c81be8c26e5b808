// The OData passthrough face: `/V1/Api.svc/*` (any casing) proxied to the upstream service root
// with @fastify/reply-from over the gateway's one upstream dispatcher (upstream/), so the
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
import replyFrom from '@fastify/reply-from';
import type { FastifyReplyFromHooks } from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BadGatewayError, MalformedUrlError } from '../errors.js';
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

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'MERGE', 'DELETE', 'OPTIONS'] as const;

export interface PassthroughOptions {
  readonly upstream: UpstreamStack;
  /** The upstream writes the gateway's root into its answers itself (UpstreamConfig). */
  readonly writesGatewayRoot: boolean;
  readonly batch: Omit<BatchBodyOptions, 'odataBasePath'>;
}

interface UpstreamAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, unknown>;
  readonly stream: Readable;
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

function readWhole(stream: Readable, done: (error: Error | null, body?: Buffer) => void): void {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.once('error', done);
  stream.once('end', () => done(null, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
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
  // The dispatcher is the gateway's: reply-from neither builds nor closes one.
  await app.register(replyFrom, { base: upstream.origin, undici: upstream.dispatcher as never, disableRequestLogging: true });

  for (const method of ['MERGE'] as const) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }

  // Bodies are read whole, up to the body limit (Fastify's 413 beyond), as they are: they are not
  // rewritten, a text property that names the gateway is the caller's data.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  // reply-from's types call `res` a ServerResponse; at run time it is undici's answer.
  const onResponse = (request: FastifyRequest, reply: FastifyReply, raw: unknown): void => {
    const res = raw as UpstreamAnswer;
    const state = request.passthrough as ProxyState;
    const contentType = typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : undefined;
    if (state.isBatch && isBatchAnswer(res.statusCode, contentType)) {
      reply.send(relay(request, res.stream, new BatchAnswerRewriter(contentType as string, state.pair)));
      return;
    }
    if (request.method === 'HEAD' || !isRewritable(contentType)) {
      reply.send(res.stream);
      return;
    }
    const escapedSlashes = bodyMayEscapeSlashes(contentType);
    const length = Number(res.headers['content-length']);
    if (length <= WHOLE_BODY_BYTES) {
      // Read whole, rewritten in one copy and sent in one write with its length (see
      // WHOLE_BODY_BYTES).
      readWhole(res.stream, (error, body) => {
        if (error) {
          // Nothing has been sent yet: the client gets an answer, not a dropped connection.
          request.log.warn({ err: error }, 'upstream body failed while reading');
          sendODataError(new BadGatewayError('the upstream OData service broke off its answer'), request, reply);
          return;
        }
        reply.send(relaysUntouched ? body : rewriteRootBytes(body as Buffer, state.pair, escapedSlashes));
      });
      return;
    }
    if (relaysUntouched) {
      reply.send(res.stream);
      return;
    }
    reply.send(relay(request, res.stream, new RootRewriteStream(state.pair, escapedSlashes)));
  };

  // The callbacks of reply.from() are made once, not per request: each reads the request's own
  // ProxyState (a closure per callback per request showed in the profile of this hot path).
  const rewriteRequestHeaders = (request: FastifyRequest, headers: Record<string, unknown>): Record<string, unknown> => {
    const forwarded = stripHopByHop(headers as Record<string, string | string[] | undefined>);
    // Met by the gateway itself (request-hygiene.ts); undici refuses to send it.
    delete forwarded.expect;
    addForwardedFor(forwarded, request);
    forwarded['x-request-id'] = request.id;
    // Bodies are rewritten as they arrive; an identity encoding keeps them readable.
    delete forwarded['accept-encoding'];
    return withCall(forwarded, (request.passthrough as ProxyState).call);
  };

  const rewriteHeaders = (headers: Record<string, unknown>, request: FastifyRequest): Record<string, unknown> => {
    const { pair } = request.passthrough as ProxyState;
    const rewritten = stripHopByHop({ ...headers } as Record<string, string | string[] | undefined>);
    for (const name of ['location', 'content-location']) {
      const value = rewritten[name];
      if (typeof value === 'string') rewritten[name] = rewriteRoot(value, pair);
    }
    if (!relaysUntouched && isRewritable(typeof rewritten['content-type'] === 'string' ? rewritten['content-type'] : undefined)) delete rewritten['content-length'];
    return rewritten;
  };

  const onError = (errorReply: FastifyReply, { error }: { error: unknown }): void => {
    sendODataError(upstreamFailure(error), errorReply.request, errorReply);
  };

  // Retries are the dispatcher's: reply-from must not add its own (it retries a GET on 503 by default).
  const noRetry: NonNullable<FastifyReplyFromHooks['retryDelay']> = () => null;
  const hooks = { rewriteRequestHeaders, rewriteHeaders, retryDelay: noRetry, onResponse, onError } as FastifyReplyFromHooks;

  async function proxy(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const tail = tailOf(request);
    const queryStart = tail.indexOf('?');
    const { key, partition } = request.credential;
    const isBatch = request.body instanceof Readable;
    const state: ProxyState = { pair: rootPairOf(request, upstreamRoot, upstream.rootPath), call: newCall('odata', key, partition), isBatch };
    request.passthrough = state;
    (reply.raw as { [CALL_OF_RESPONSE]?: UpstreamCall })[CALL_OF_RESPONSE] = state.call;
    reply.raw.once('close', onClientClose);
    const source = `${upstream.rootPath}${queryStart < 0 ? tail : tail.slice(0, queryStart)}`;
    const body = request.body as Buffer | undefined;
    try {
      // A batch's body stream is sent by reply-from as the request's own.
      return reply.from(source, isBatch || body === undefined || body.length === 0 ? hooks : { ...hooks, body, contentType: request.headers['content-type'] ?? 'application/octet-stream' });
    } catch (error) {
      // reply-from decodes the path to look for `..`: a path that does not decode is the client's.
      if (error instanceof URIError) throw new MalformedUrlError();
      throw error;
    }
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
