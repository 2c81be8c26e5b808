// The one place where a failure becomes an OData error document (service-api.md §7): XML
// `<error>` in the metadata namespace by default, its JSON twin when the request asked for JSON
// (`$format` or `Accept`). Known errors keep their status, code and message; anything else is a
// 500 that says nothing about the inside (the details go to the log, never to the client).
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { negotiate } from '../../odata/content-negotiation.js';
import { ODataError, UriSyntaxError } from '../../odata/errors.js';
import { writeJsonError } from '../../odata/json-documents.js';
import { writeXmlError } from '../../odata/xml-documents.js';
import { LANGUAGE_TAGS, messageIn, preferredLanguage } from './error-texts.js';
import { MethodNotAllowedError, ServiceError, UnauthorizedError } from './errors.js';

export interface ErrorDescription {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly lang: string;
}

/** Status, code and message of any error thrown while serving a request. */
export function describeError(error: unknown): ErrorDescription {
  if (error instanceof ODataError) {
    return { status: error.status, code: error.code, message: error.message, lang: error instanceof ServiceError ? error.lang : 'en' };
  }
  const fastify = error as Partial<FastifyError>;
  // Fastify's own refusals (body too large, unsupported content type, bad Content-Length) are
  // client errors with messages written for clients.
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500 && typeof fastify.message === 'string') {
    return { status: fastify.statusCode, code: fastify.code ?? 'BAD_REQUEST', message: fastify.message, lang: 'en' };
  }
  return { status: 500, code: 'INTERNAL', message: 'internal error; it has been logged', lang: 'en' };
}

/** `$format` of a request URL, if it has one that can be read. */
function formatOption(url: string): string | undefined {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return undefined;
  try {
    return new URLSearchParams(url.slice(queryStart + 1)).get('$format') ?? undefined;
  } catch {
    return undefined;
  }
}

export interface ErrorReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * The error document of a failure, in the format the request asked for and the language its
 * Accept-Language prefers (error-texts.ts), with its headers.
 */
export function errorReply(error: unknown, accept: string | undefined, url: string, realm: string, acceptLanguage?: string): ErrorReply {
  const described = describeError(error);
  const contentType = negotiate({ accept, format: formatOption(url), kind: 'error' });
  const language = preferredLanguage(acceptLanguage);
  const own = described.lang.toLowerCase().startsWith('de') ? 'de' : described.lang.toLowerCase().startsWith('en') ? 'en' : undefined;
  const message = messageIn(error, described.status, described.message, own, language);
  const document = { code: described.code, message, lang: LANGUAGE_TAGS[language] };
  const body = contentType.startsWith('application/json') ? writeJsonError(document) : writeXmlError(document);
  const headers: Record<string, string> = { 'content-type': contentType };
  if (error instanceof UnauthorizedError) headers['www-authenticate'] = `Basic realm="${realm}", charset="UTF-8"`;
  if (error instanceof MethodNotAllowedError) headers.allow = error.allow.join(', ');
  return { status: described.status, headers, body };
}

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, realm: string): FastifyReply {
  const answer = errorReply(error, request.headers.accept, request.url, realm, request.headers['accept-language']);
  if (answer.status >= 500) request.log.error({ err: error }, 'request failed');
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}

/**
 * Fastify's `frameworkErrors`: a URL its router cannot decode (`%ED%A0%80`, a lone surrogate)
 * never reaches a route. The message is fixed, as the URL may hold a key.
 */
export function sendFrameworkError(request: FastifyRequest, reply: FastifyReply, realm: string): FastifyReply {
  return sendError(new UriSyntaxError('the request URL cannot be decoded (malformed percent-encoding)'), request, reply, realm);
}

/**
 * Requests Node's HTTP parser refuses before any route sees them (a URL or headers beyond the
 * size limit, a malformed request line): an XML error document too (the Accept header was never
 * read, so the default format), then the connection closes as the parser cannot continue.
 */
export function sendClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] = error.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'Request Header Fields Too Large', 'the request line and headers are longer than the server accepts; send long $filter expressions shorter']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'the request did not arrive in time']
      : [400, 'Bad Request', 'the request is not valid HTTP'];
  // No header was read, Accept-Language neither: the default language.
  const body = writeXmlError({ code: 'BAD_REQUEST', message: messageIn(error, status, message, 'en', 'de'), lang: LANGUAGE_TAGS.de });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/xml;charset=utf-8\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}
