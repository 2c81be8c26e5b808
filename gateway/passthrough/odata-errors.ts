// The error handler of the OData face: every refusal and failure as an OData error document
// (service-api.md §7), so an OData client reads a gateway failure exactly as it reads the
// upstream's: XML `<error>` by default, JSON when the request asked for JSON (`$format=json` or
// Accept). The code is the gateway error's slug in capitals (`upstream-unavailable`:
// UPSTREAM_UNAVAILABLE). Refusals by hooks on the root instance (auth, limits, hygiene) come here
// too, because Fastify calls the handler of the context the request was routed to. Never a stack
// trace.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { negotiate } from '../../odata/content-negotiation.js';
import { writeJsonError } from '../../odata/json-documents.js';
import { writeXmlError } from '../../odata/xml-documents.js';
import { GatewayError, MethodNotAllowedError, fromFastify } from '../errors.js';

function formatOption(url: string): string | undefined {
  const queryStart = url.indexOf('?');
  if (queryStart < 0 || !url.includes('format', queryStart)) return undefined;
  try {
    return new URLSearchParams(url.slice(queryStart + 1)).get('$format') ?? undefined;
  } catch {
    return undefined;
  }
}

function codeOf(error: GatewayError): string {
  return error.slug.toUpperCase().replaceAll('-', '_');
}

export function sendODataError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const known = error instanceof GatewayError ? error : fromFastify(error);
  if (known === undefined || known.status >= 500) request.log[known === undefined ? 'error' : 'warn']({ err: error }, 'OData request failed');
  const status = known?.status ?? 500;
  const document = {
    code: known === undefined ? 'INTERNAL' : codeOf(known),
    message: known?.message ?? 'the gateway failed to answer; the failure has been logged',
    lang: 'en',
  };
  const contentType = negotiate({ accept: request.headers.accept, format: formatOption(request.url), kind: 'error' });
  const body = contentType.startsWith('application/json') ? writeJsonError(document) : writeXmlError(document);
  if (known?.retryAfterSeconds !== undefined) reply.header('retry-after', String(known.retryAfterSeconds));
  if (known instanceof MethodNotAllowedError) reply.header('allow', known.allow);
  return reply.code(status).header('content-type', contentType).send(body);
}
