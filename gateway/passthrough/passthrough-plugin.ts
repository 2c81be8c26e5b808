// The OData passthrough face: `/V1/Api.svc/*` (any casing) proxied to the upstream service root
// with @fastify/reply-from over an undici pool. Bodies stream both ways; hop-by-hop headers are
// dropped, X-Forwarded-* and X-Request-Id set; the caller's key is normalised to the one
// canonical credential; every absolute URI of a response is rewritten from the upstream's root
// to the gateway's (bodies as they stream, Location/Content-Location headers). The breaker and
// retries of resilience/ guard the upstream; failures answer as OData error documents.
import type { Readable } from 'node:stream';
import replyFrom from '@fastify/reply-from';
import type { FastifyReplyFromHooks } from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Pool } from 'undici';
import type { CredentialNormaliser } from '../auth/credential-normaliser.js';
import { refusalOf } from '../auth/credential-normaliser.js';
import type { ForwardedCredential } from '../auth/upstream-credential.js';
import type { UpstreamConfig } from '../config.js';
import { sendFaceRefusal } from '../face-refusal.js';
import type { GatewayMetrics } from '../ops/metrics.js';
import type { CircuitBreaker } from '../resilience/circuit-breaker.js';
import { isFailureStatus } from '../resilience/circuit-breaker.js';
import type { IdempotentReads } from '../resilience/idempotent-reads.js';
import { retryAfterSeconds } from '../resilience/resilience-errors.js';
import type { RetryPolicy } from '../resilience/retry-policy.js';
import { stripHopByHop } from './hop-by-hop.js';
import { sendODataError } from './odata-error-reply.js';
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
  readonly upstream: UpstreamConfig;
  readonly normaliser: CredentialNormaliser;
  readonly breaker: CircuitBreaker;
  readonly retries: RetryPolicy;
  readonly reads: IdempotentReads;
  readonly metrics: GatewayMetrics;
}

interface UpstreamAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, unknown>;
  readonly stream: Readable;
}

interface ProxyState {
  readonly pair: RootPair;
  /** The one credential sent upstream. */
  readonly credential: ForwardedCredential;
  /** The query string sent upstream (the query key taken out). */
  readonly query: string;
  readonly started: number;
  settled: boolean;
}

/** Where the response object keeps its request's ProxyState, for the `close` listener. */
const PROXY_STATE = Symbol('timegate.passthrough');

type RetryDelay = NonNullable<FastifyReplyFromHooks['retryDelay']>;

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

/** A resource path reply-from cannot decode (the query is the upstream's to judge). */
function isMalformedPath(tail: string): boolean {
  const queryStart = tail.indexOf('?');
  try {
    decodeURIComponent(queryStart < 0 ? tail : tail.slice(0, queryStart));
    return false;
  } catch {
    return true;
  }
}

export async function passthroughPlugin(app: FastifyInstance, options: PassthroughOptions): Promise<void> {
  const { upstream, normaliser, breaker, retries, reads, metrics } = options;
  const root = new URL(upstream.url);
  const upstreamRoot = `${root.origin}${root.pathname.replace(/\/+$/, '')}`;
  const upstreamRootPath = root.pathname.replace(/\/+$/, '');
  const pool = new Pool(root.origin, {
    connections: upstream.connections,
    connectTimeout: upstream.connectTimeoutMs,
    headersTimeout: upstream.requestTimeoutMs,
    bodyTimeout: upstream.requestTimeoutMs,
    pipelining: 1,
  });
  app.addHook('onClose', async () => {
    await pool.destroy();
  });
  await app.register(replyFrom, { base: root.origin, undici: pool, disableRequestLogging: true });

  for (const method of ['MERGE'] as const) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }

  // Request bodies are not parsed: they stream to the upstream as they come. (They are not
  // rewritten: a text property that names the gateway is the caller's data.)
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  // reply-from's types call `res` a ServerResponse; at run time it is undici's answer.
  const onResponse = (request: FastifyRequest, reply: FastifyReply, raw: unknown): void => {
    const res = raw as UpstreamAnswer;
    const state = request.passthrough as ProxyState;
    settle(state, res.statusCode);
    const contentType = typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : undefined;
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
          sendODataError(request, reply, { status: 502, code: 'BAD_GATEWAY', message: 'the upstream OData service broke off its answer' });
          return;
        }
        reply.send(rewriteRootBytes(body as Buffer, state.pair, escapedSlashes));
      });
      return;
    }
    // Wired by hand, not with stream.pipeline(): its AbortController per call showed in the
    // profile of this path. An upstream failure ends the client's answer; a client gone away
    // releases the upstream connection.
    const upstreamBody = res.stream;
    const rewriter = new RootRewriteStream(state.pair, escapedSlashes);
    upstreamBody.once('error', (error) => {
      request.log.warn({ err: error }, 'upstream body failed while streaming');
      rewriter.destroy(error);
    });
    rewriter.once('close', () => {
      if (!upstreamBody.readableEnded) upstreamBody.destroy();
    });
    reply.send(upstreamBody.pipe(rewriter));
  };

  function settle(state: ProxyState, outcome: number | 'error'): void {
    if (state.settled) return;
    state.settled = true;
    metrics.upstreamCalled('odata', outcome, (performance.now() - state.started) / 1000);
    if (outcome === 'error' || isFailureStatus(outcome)) breaker.failed();
    else breaker.succeeded();
  }

  // The callbacks of reply.from() are made once, not per request: each reads the request's own
  // ProxyState (a closure per callback per request showed in the profile of this hot path).
  const queryString = (_search: unknown, _url: unknown, request: FastifyRequest): string => (request.passthrough as ProxyState).query;

  const rewriteRequestHeaders = (request: FastifyRequest, headers: Record<string, unknown>): Record<string, unknown> => {
    const state = request.passthrough as ProxyState;
    const forwarded = stripHopByHop(normaliser.forwardHeaders(headers as Record<string, string | string[] | undefined>, state.credential));
    addForwardedFor(forwarded, request);
    forwarded['x-request-id'] = request.id;
    // Bodies are rewritten as they arrive; an identity encoding keeps them readable.
    delete forwarded['accept-encoding'];
    return forwarded;
  };

  const rewriteHeaders = (headers: Record<string, unknown>, request: FastifyRequest): Record<string, unknown> => {
    const { pair } = request.passthrough as ProxyState;
    const rewritten = stripHopByHop({ ...headers } as Record<string, string | string[] | undefined>);
    for (const name of ['location', 'content-location']) {
      const value = rewritten[name];
      if (typeof value === 'string') rewritten[name] = rewriteRoot(value, pair);
    }
    if (isRewritable(typeof rewritten['content-type'] === 'string' ? rewritten['content-type'] : undefined)) delete rewritten['content-length'];
    return rewritten;
  };

  const onError = (errorReply: FastifyReply, { error }: { error: unknown }): void => {
    const { request } = errorReply;
    settle(request.passthrough as ProxyState, 'error');
    const code = (error as { code?: string }).code ?? '';
    const isTimeout = /TIMEOUT/i.test(code);
    request.log.warn({ err: error }, 'upstream call failed');
    sendODataError(request, errorReply, isTimeout
      ? { status: 504, code: 'GATEWAY_TIMEOUT', message: 'the upstream OData service did not answer in time' }
      : { status: 502, code: 'BAD_GATEWAY', message: 'the upstream OData service cannot be reached' });
  };

  const retryDelay: RetryDelay = ({ err, res, attempt }) => {
    const failed = err !== undefined && err !== null ? true : res !== undefined && res !== null && isFailureStatus(res.statusCode);
    if (!failed) return null;
    const delay = retries.delayBeforeRetry(attempt + 1);
    if (delay === undefined) return null;
    (res as { stream?: Readable } | undefined)?.stream?.destroy();
    metrics.upstreamRetried('odata');
    return Math.max(1, delay);
  };

  function onClientClose(this: { [PROXY_STATE]?: ProxyState }): void {
    // The client went away before the upstream answered: the call says nothing of the upstream.
    const state = this[PROXY_STATE];
    if (state !== undefined && !state.settled) {
      state.settled = true;
      breaker.released();
    }
  }

  async function proxy(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const caller = normaliser.callerOf(request.headers, request.url);
    const admission = normaliser.admit(request.method, caller);
    if (!admission.allowed) return sendFaceRefusal(refusalOf(admission.reason), request, reply);
    const tail = tailOf(request);
    if (isMalformedPath(tail)) return sendODataError(request, reply, { status: 400, code: 'ODATA_URI_SYNTAX', message: 'the request URI has a malformed percent-encoding' });
    const permit = breaker.acquire();
    if (!permit.allowed) {
      const seconds = retryAfterSeconds(permit.retryAfterMs);
      return sendODataError(request, reply, { status: 503, code: 'UPSTREAM_UNAVAILABLE', message: `the upstream OData service is failing; the gateway stops calling it for ${seconds} s`, retryAfterSeconds: seconds });
    }
    const credential = normaliser.forwarded(admission.caller);
    const forwardedUrl = normaliser.forwardUrl(tail, credential);
    const queryStart = forwardedUrl.indexOf('?');
    const path = queryStart < 0 ? forwardedUrl : forwardedUrl.slice(0, queryStart);
    const state: ProxyState = {
      pair: rootPairOf(request, upstreamRoot, upstreamRootPath),
      credential,
      query: queryStart < 0 ? '' : forwardedUrl.slice(queryStart + 1),
      started: performance.now(),
      settled: false,
    };
    request.passthrough = state;
    (reply.raw as { [PROXY_STATE]?: ProxyState })[PROXY_STATE] = state;
    reply.raw.on('close', onClientClose);

    const mayRetry = !permit.isProbe && retries.mayRetry(request.method, reads.isIdempotentRead(request.method, path));
    if (mayRetry) retries.budget.deposit();

    return reply.from(`${upstreamRootPath}${path}`, {
      queryString,
      rewriteRequestHeaders,
      rewriteHeaders,
      // Without a retryDelay reply-from sends the request once, as a probe or a write must be.
      ...(mayRetry ? { retryDelay } : {}),
      onResponse,
      onError,
    } as FastifyReplyFromHooks);
  }

  for (const url of [ROOT_ROUTE, `${ROOT_ROUTE}/*`]) {
    app.route({ method: [...METHODS], url, handler: proxy, config: { metricsRoute: `${PASSTHROUGH_ROOT}/*` } });
  }

  // Anything else that fails on this face (a request Fastify refuses) is an OData error too.
  app.setErrorHandler((error, request, reply) => {
    const status = typeof (error as { statusCode?: unknown }).statusCode === 'number' ? (error as { statusCode: number }).statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'passthrough request failed');
    return sendODataError(request, reply, status >= 400 && status < 500
      ? { status, code: 'BAD_REQUEST', message: error instanceof Error ? error.message : 'bad request' }
      : { status: 500, code: 'INTERNAL', message: 'the gateway failed to answer; the failure has been logged' });
  });
}
