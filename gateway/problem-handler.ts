// The error handler of the REST face and of the gateway's own endpoints: every failure as an
// RFC 9457 problem document (`application/problem+json`). Gateway errors keep their status, type
// and fields; odata/ parser errors are the client's 400; Fastify's own refusals get their status
// and our types; anything else is a 500 that says nothing about the inside (the details go to the
// log). The OData face has its own handler (passthrough/odata-errors.ts); Fastify calls the one
// of the context the request was routed to, hooks on the root instance included.
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ODataError } from '../odata/errors.js';
import type { FieldError } from './errors.js';
import { GatewayError, MethodNotAllowedError, RouteNotFoundError, UpstreamError, fromFastify } from './errors.js';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly instance?: string;
  readonly code?: string;
  readonly errors?: readonly FieldError[];
}

const INTERNAL: Problem = {
  type: 'urn:timegate:problem:internal',
  title: 'Internal error',
  status: 500,
  detail: 'the gateway failed to answer; the failure has been logged',
};

/** The request path without its query (which may hold an ApiKey). */
function instanceOf(request: FastifyRequest): string {
  const url = request.url;
  const queryStart = url.indexOf('?');
  return queryStart < 0 ? url : url.slice(0, queryStart);
}

export function problemOf(error: unknown, instance: string): Problem {
  const known =
    error instanceof GatewayError ? error
    : error instanceof ODataError ? new GatewayError(error.status, 'invalid-query', 'Invalid query parameters', error.message)
    : fromFastify(error);
  if (known === undefined) return { ...INTERNAL, instance };
  return {
    type: known.type,
    title: known.title,
    status: known.status,
    detail: known.message,
    instance,
    ...(known instanceof UpstreamError && known.upstreamCode ? { code: known.upstreamCode } : {}),
    ...(known.fieldErrors === undefined ? {} : { errors: known.fieldErrors }),
  };
}

export function sendProblem(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const problem = problemOf(error, instanceOf(request));
  if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
  if (error instanceof GatewayError && error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  if (error instanceof MethodNotAllowedError) reply.header('allow', error.allow);
  return reply.code(problem.status).header('content-type', PROBLEM_MEDIA_TYPE).send(JSON.stringify(problem));
}

/** The error and not-found handlers of an instance (the root, the REST face). */
export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendProblem(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(new RouteNotFoundError(`${request.method} ${instanceOf(request).slice(0, 200)} is not an operation of this API; see /openapi.json`), request, reply),
  );
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before any route sees it
 * (a malformed request line, headers beyond the size limit) reached no face, so it is answered
 * as the gateway's own problem; then the connection closes, as the parser cannot go on. Fastify's
 * own answer would be `{"error":"Bad Request","message":"Client Error"}`.
 */
export function sendClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, title, detail] = error.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'Request Header Fields Too Large', 'the request line and headers are longer than the gateway accepts']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'the request did not arrive in time']
      : [400, 'Bad Request', 'the request is not valid HTTP'];
  const body = JSON.stringify({ type: 'urn:timegate:problem:bad-request', title, status, detail });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${title}\r\nContent-Type: ${PROBLEM_MEDIA_TYPE}\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}
