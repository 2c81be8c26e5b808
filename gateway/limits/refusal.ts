// A 429 in the format of the face it happens on: RFC 9457 problem+json on the REST face, an
// OData error document (JSON or XML, as the client's $format/Accept ask) on the passthrough.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { negotiate } from '../../odata/content-negotiation.js';
import { writeJsonError } from '../../odata/json-documents.js';
import { writeXmlError } from '../../odata/xml-documents.js';
import { sendProblem } from '../error-handler.js';
import type { Face } from '../ops/metrics.js';
import type { ConcurrencyLimitedError, RateLimitedError } from './limit-errors.js';

function formatOf(query: unknown): string | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  const format = (query as Record<string, unknown>)['$format'];
  return typeof format === 'string' ? format : undefined;
}

export function sendRefusal(
  face: Face,
  error: RateLimitedError | ConcurrencyLimitedError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  reply.header('retry-after', String(error.retryAfterSeconds));
  if (face === 'rest') return sendProblem(error, request, reply);
  const accept = request.headers.accept;
  const format = formatOf(request.query);
  const contentType = negotiate({ kind: 'error', ...(accept === undefined ? {} : { accept }), ...(format === undefined ? {} : { format }) });
  const body = contentType.startsWith('application/json')
    ? writeJsonError({ code: error.slug, message: error.message, lang: 'en' })
    : writeXmlError({ code: error.slug, message: error.message, lang: 'en' });
  return reply.code(error.status).header('content-type', contentType).send(body);
}
