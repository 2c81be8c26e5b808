// The passthrough face's own refusals as OData error documents (service-api.md §7), so an OData
// client reads a gateway failure exactly as it reads the upstream's: XML `<error>` by default,
// JSON when the request asked for JSON (`$format=json` or Accept). Never a stack trace.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { negotiate } from '../../odata/content-negotiation.js';
import { writeJsonError } from '../../odata/json-documents.js';
import { writeXmlError } from '../../odata/xml-documents.js';

export interface ODataFailure {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  /** Seconds for a Retry-After header (503, 429). */
  readonly retryAfterSeconds?: number;
}

function formatOption(url: string): string | undefined {
  const queryStart = url.indexOf('?');
  if (queryStart < 0 || !url.includes('format', queryStart)) return undefined;
  try {
    return new URLSearchParams(url.slice(queryStart + 1)).get('$format') ?? undefined;
  } catch {
    return undefined;
  }
}

export function sendODataError(request: FastifyRequest, reply: FastifyReply, failure: ODataFailure): FastifyReply {
  const contentType = negotiate({ accept: request.headers.accept, format: formatOption(request.url), kind: 'error' });
  const document = { code: failure.code, message: failure.message, lang: 'en' };
  const body = contentType.startsWith('application/json') ? writeJsonError(document) : writeXmlError(document);
  if (failure.retryAfterSeconds !== undefined) reply.header('retry-after', String(failure.retryAfterSeconds));
  return reply.code(failure.status).header('content-type', contentType).send(body);
}
