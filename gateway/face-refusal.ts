// A refusal by a gateway-wide feature (auth check, load shedding) in the format of the face the
// request is on: an OData error document on the passthrough, RFC 9457 problem+json elsewhere.
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { writeXmlError } from '../odata/xml-documents.js';
import { PROBLEM_MEDIA_TYPE, sendProblem } from './error-handler.js';
import { GatewayError } from './errors.js';
import { faceOf } from './passthrough/face-of.js';
import { sendODataError } from './passthrough/odata-error-reply.js';

export function sendFaceRefusal(error: GatewayError & { readonly retryAfterSeconds?: number }, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (faceOf(request.url) === 'rest') return sendProblem(error, request, reply);
  return sendODataError(request, reply, {
    status: error.status,
    code: error.slug.toUpperCase().replaceAll('-', '_'),
    message: error.message,
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
  });
}

/**
 * Fastify's `frameworkErrors`: a URL the router cannot even decode (`%ZZ`) is the client's 400,
 * in the face's format like every other refusal, not Fastify's own JSON.
 */
export function sendFrameworkError(_error: Error, request: FastifyRequest, reply: FastifyReply): void {
  // The message would quote the URL, which may carry a key: a fixed one says enough.
  sendFaceRefusal(new GatewayError(400, 'bad-request', 'Bad request', 'the request URL cannot be decoded (malformed percent-encoding)'), request, reply);
}

/** The path of the request line a refused request began with, as far as it arrived. */
function requestPathOf(raw: unknown): string {
  const line = Buffer.isBuffer(raw) ? (raw.toString('latin1', 0, Math.min(raw.length, 8192)).split('\r\n', 1)[0] ?? '') : '';
  return line.split(' ')[1] ?? '';
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before any route sees it
 * (a malformed request line, headers beyond the size limit) is answered in the format of the
 * face its request line names, as far as it arrived; then the connection closes, as the parser
 * cannot go on. Fastify's own answer would be `{"error":"Bad Request","message":"Client Error"}`.
 */
export function sendClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, title, detail] = error.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'Request Header Fields Too Large', 'the request line and headers are longer than the gateway accepts']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'the request did not arrive in time']
      : [400, 'Bad Request', 'the request is not valid HTTP'];
  const [contentType, body] = faceOf(requestPathOf(error.rawPacket)) === 'odata'
    ? ['application/xml;charset=utf-8', writeXmlError({ code: 'BAD_REQUEST', message: detail, lang: 'en' })]
    : [PROBLEM_MEDIA_TYPE, JSON.stringify({ type: 'urn:timegate:problem:bad-request', title, status, detail })];
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${title}\r\nContent-Type: ${contentType}\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}
