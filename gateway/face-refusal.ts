// A refusal by a gateway-wide feature (auth check, load shedding) in the format of the face the
// request is on: an OData error document on the passthrough, RFC 9457 problem+json elsewhere.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './error-handler.js';
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
