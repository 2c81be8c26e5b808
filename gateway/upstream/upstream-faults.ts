// Which failures of an upstream call are the upstream's own (the breaker counts them, the retry
// policy may try again), and how any failure of a call reaches the client: one mapping for both
// faces, which never names the upstream's host. A client error, an answer the upstream gave, or
// a request undici refused to send (a header it cannot write, say) is no upstream fault.
import { errors } from 'undici';
import { BadGatewayError, GatewayError, GatewayTimeoutError } from '../errors.js';

/** Transport failures that say the upstream (or the way to it) is not well. */
const FAULT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Answers that say the upstream is failing (its application errors, a 500 included, do not). */
export function isFailureStatus(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}

/** Whether `error`, ending an attempt, is the upstream's fault. */
export function isUpstreamFault(error: unknown): boolean {
  if (error instanceof GatewayTimeoutError) return true;
  const code = codeOf(error);
  return code !== undefined && FAULT_CODES.has(code);
}

/** Whether an attempt that ended with `error` may be made again (nothing reached the upstream's logic). */
export function isRetryableFault(error: unknown): boolean {
  return !(error instanceof GatewayTimeoutError) && isUpstreamFault(error);
}

/** Any failure of an upstream call as the gateway error a client sees. */
export function upstreamFailure(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  // A failure wrapped around what the dispatcher failed with.
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof GatewayError) return cause;
  const code = codeOf(cause) ?? codeOf(error);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return new GatewayTimeoutError('the upstream OData service did not answer in time');
  if (error instanceof errors.RequestAbortedError || cause instanceof errors.RequestAbortedError) return new BadGatewayError('the upstream request was aborted');
  return new BadGatewayError('the upstream OData service cannot be reached');
}
