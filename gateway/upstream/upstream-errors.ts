// An upstream's error response as the gateway's problem: the OData error document (JSON or XML,
// whatever the upstream chose) gives the message and code; the status is kept when the REST
// contract has it, anything else the upstream failed at is a 502 (the gateway is the server the
// client talks to, and the contract names 502 for "the upstream answered with an error").
import { STATUS_CODES } from 'node:http';
import { readJsonError } from '../../odata/json-documents.js';
import { readXmlError } from '../../odata/xml-documents.js';
import { UpstreamError } from '../errors.js';
import type { UpstreamResponse } from './upstream-client.js';
import { headerOf } from './upstream-client.js';

/** Upstream statuses the REST contract answers as they are. */
const KEPT = new Set([400, 401, 403, 404, 409, 412, 429, 503, 504]);

const MAX_DETAIL = 2000;

interface UpstreamMessage {
  readonly code: string | undefined;
  readonly message: string | undefined;
}

function messageOf(response: UpstreamResponse): UpstreamMessage {
  const contentType = headerOf(response, 'content-type') ?? '';
  const body = response.body.toString('utf8').trim();
  try {
    if (contentType.includes('json') || body.startsWith('{')) {
      const error = readJsonError(body);
      return { code: error.code ?? undefined, message: error.message };
    }
    if (contentType.includes('xml') || body.startsWith('<')) {
      const error = readXmlError(body);
      return { code: error.code, message: error.message };
    }
  } catch {
    // not an OData error document (a proxy's HTML page, say): the status is all there is
  }
  return { code: undefined, message: undefined };
}

export function upstreamError(response: UpstreamResponse): UpstreamError {
  const status = KEPT.has(response.status) ? response.status : 502;
  const { code, message } = messageOf(response);
  const detail = message ? message.slice(0, MAX_DETAIL) : `the upstream OData service answered ${response.status} ${STATUS_CODES[response.status] ?? ''}`.trimEnd();
  return new UpstreamError(status, STATUS_CODES[status] ?? 'Upstream error', detail, code === '' ? undefined : code);
}
