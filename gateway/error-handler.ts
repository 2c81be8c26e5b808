// The one place where a failure becomes an RFC 9457 problem document (`application/problem+json`).
// Gateway errors keep their status, type and fields; odata/ parser errors are the client's 400;
// Fastify's own refusals (body too large, unknown content type) get their status and our types;
// anything else is a 500 that says nothing about the inside (the details go to the log).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ODataError } from '../odata/errors.js';
import type { FieldError } from './errors.js';
import {
  GatewayError,
  MalformedBodyError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  RouteNotFoundError,
  UnsupportedMediaTypeError,
  UpstreamError,
} from './errors.js';

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

/** Fastify's client errors that have a problem type of their own. */
function fromFastify(error: Partial<FastifyError>): GatewayError | undefined {
  const message = typeof error.message === 'string' ? error.message : '';
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError(message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return error.statusCode === 415 ? new UnsupportedMediaTypeError(message) : new MalformedBodyError(message);
    default:
      if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
        return new GatewayError(error.statusCode, 'bad-request', 'Bad request', message);
      }
      return undefined;
  }
}

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
    : fromFastify(error as Partial<FastifyError>);
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
  // Refusals that say when to come back (an open circuit breaker, shed load) carry the seconds.
  const retryAfter = (error as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
  if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
  if (error instanceof MethodNotAllowedError) reply.header('allow', error.allow);
  return reply.code(problem.status).header('content-type', PROBLEM_MEDIA_TYPE).send(JSON.stringify(problem));
}

/** Registers the error and not-found handlers of the whole instance. */
export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendProblem(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(new RouteNotFoundError(`${request.method} ${instanceOf(request).slice(0, 200)} is not an operation of this API; see /openapi.json`), request, reply),
  );
}
