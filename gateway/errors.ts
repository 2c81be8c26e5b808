// Every error the gateway answers with, declared once (as Fastify's lib/errors.js): a status, a
// stable slug and a title. Everything else throws these, hooks of both faces included; each face
// writes them in its own format with its own error handler: problem-handler.ts as RFC 9457
// problem documents (REST face, the gateway's own endpoints), passthrough/odata-errors.ts as
// OData error documents whose code is the slug in capitals (`gateway-timeout`: GATEWAY_TIMEOUT).

/** One invalid field: a JSON pointer (RFC 6901) into the body or the query, and what is wrong. */
export interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

const TYPE_PREFIX = 'urn:timegate:problem:';

export class GatewayError extends Error {
  override readonly name: string = 'GatewayError';
  /** Seconds for a Retry-After header, for refusals that say when to come back. */
  readonly retryAfterSeconds?: number;
  constructor(
    readonly status: number,
    /** Stable slug of the kind of problem; the problem `type` is `urn:timegate:problem:<slug>`. */
    readonly slug: string,
    readonly title: string,
    detail: string,
    readonly fieldErrors?: readonly FieldError[],
  ) {
    super(detail);
  }

  get type(): string {
    return TYPE_PREFIX + this.slug;
  }
}

/** A query parameter (or the combination of them) that cannot be used. */
export class InvalidQueryError extends GatewayError {
  override readonly name = 'InvalidQueryError';
  constructor(detail: string, fieldErrors: readonly FieldError[]) {
    super(400, 'invalid-query', 'Invalid query parameters', detail, fieldErrors);
  }
}

/** A path parameter (a key) that is not a value of its type. */
export class InvalidPathError extends GatewayError {
  override readonly name = 'InvalidPathError';
  constructor(detail: string, fieldErrors: readonly FieldError[]) {
    super(400, 'invalid-path', 'Invalid path parameters', detail, fieldErrors);
  }
}

/** A `cursor` this gateway did not write for this list (changed, truncated, from elsewhere). */
export class InvalidCursorError extends GatewayError {
  override readonly name = 'InvalidCursorError';
  constructor(detail: string) {
    super(400, 'invalid-cursor', 'Invalid cursor', detail, [{ pointer: '/cursor', detail }]);
  }
}

/** A body that is not JSON at all. */
export class MalformedBodyError extends GatewayError {
  override readonly name = 'MalformedBodyError';
  constructor(detail: string) {
    super(400, 'malformed-body', 'Malformed request body', detail);
  }
}

/** Well-formed JSON that the operation's schema refuses. */
export class InvalidBodyError extends GatewayError {
  override readonly name = 'InvalidBodyError';
  constructor(detail: string, fieldErrors: readonly FieldError[]) {
    super(422, 'invalid-body', 'Invalid request body', detail, fieldErrors);
  }
}

export class UnsupportedMediaTypeError extends GatewayError {
  override readonly name = 'UnsupportedMediaTypeError';
  constructor(detail: string) {
    super(415, 'unsupported-media-type', 'Unsupported media type', detail);
  }
}

export class PayloadTooLargeError extends GatewayError {
  override readonly name = 'PayloadTooLargeError';
  constructor(detail: string) {
    super(413, 'payload-too-large', 'Request body too large', detail);
  }
}

/** An `Expect` the gateway cannot meet: only `100-continue` is understood (RFC 9110 §10.1.1). */
export class ExpectationFailedError extends GatewayError {
  override readonly name = 'ExpectationFailedError';
  constructor() {
    super(417, 'expectation-failed', 'Expectation failed', 'the only expectation the gateway meets is Expect: 100-continue');
  }
}

/** A GET, HEAD or DELETE that carries a body, which no operation of either face reads. */
export class BodyNotAllowedError extends GatewayError {
  override readonly name = 'BodyNotAllowedError';
  constructor(method: string) {
    super(400, 'body-not-allowed', 'Bad request', `a ${method} request carries no body`);
  }
}

/** A request URL whose path the router cannot decode (`%ZZ`). */
export class MalformedUrlError extends GatewayError {
  override readonly name = 'MalformedUrlError';
  constructor() {
    // A fixed text: the URL may carry a key.
    super(400, 'malformed-url', 'Bad request', 'the request URL cannot be decoded (malformed percent-encoding)');
  }
}

/** The ApiKey query parameter in a spelling that another reader could take for the key (odata/api-key.ts). */
export class MalformedKeyParameterError extends GatewayError {
  override readonly name = 'MalformedKeyParameterError';
  constructor(detail: string) {
    super(400, 'malformed-key-parameter', 'Bad request', detail);
  }
}

/** No route: the path is not part of the REST face. */
export class RouteNotFoundError extends GatewayError {
  override readonly name = 'RouteNotFoundError';
  constructor(detail: string) {
    super(404, 'route-not-found', 'Not found', detail);
  }
}

/** The path exists but the model offers no such method on it; `allow` is what it offers. */
export class MethodNotAllowedError extends GatewayError {
  override readonly name = 'MethodNotAllowedError';
  constructor(detail: string, readonly allow: string) {
    super(405, 'method-not-allowed', 'Method not allowed', detail);
  }
}

/** The gateway's key list does not hold the caller's key (or there is none). */
export class KeyNotAllowedError extends GatewayError {
  override readonly name = 'KeyNotAllowedError';
  constructor() {
    super(401, 'unauthorized', 'Unauthorized', 'this API key is not accepted by the gateway');
  }
}

/** A key with characters no API key has, which no upstream credential could carry either. */
export class MalformedKeyError extends GatewayError {
  override readonly name = 'MalformedKeyError';
  constructor() {
    super(401, 'malformed-key', 'Unauthorized', 'the API key holds characters an API key cannot have (only printable ASCII)');
  }
}

/** The API key came in the query string of a write, which the contract allows for reads only. */
export class QueryKeyForWriteError extends GatewayError {
  override readonly name = 'QueryKeyForWriteError';
  constructor() {
    super(403, 'query-key-write', 'Forbidden', 'the ApiKey query parameter grants read access only; send the key in a header to write');
  }
}

export class PreconditionFailedError extends GatewayError {
  override readonly name = 'PreconditionFailedError';
  constructor(detail: string) {
    super(412, 'precondition-failed', 'Precondition failed', detail);
  }
}

/** The upstream answered with an OData error; its status (when the contract knows it) and words are kept. */
export class UpstreamError extends GatewayError {
  override readonly name = 'UpstreamError';
  constructor(
    status: number,
    title: string,
    detail: string,
    /** The upstream's error code, when it gave one. */
    readonly upstreamCode: string | undefined,
    /** What was refused, where the gateway knows: the item of a bulk create (`/19`). */
    fieldErrors?: readonly FieldError[],
  ) {
    // A 412 is the same problem whichever side compared the ETags (entity-replies.ts).
    super(status, status === 412 ? 'precondition-failed' : status >= 500 ? 'upstream-failure' : 'upstream-refusal', title, detail, fieldErrors);
  }
}

/** The upstream is unreachable, or answered something the gateway cannot read. */
export class BadGatewayError extends GatewayError {
  override readonly name = 'BadGatewayError';
  constructor(detail: string) {
    super(502, 'bad-gateway', 'Bad gateway', detail);
  }
}

export class GatewayTimeoutError extends GatewayError {
  override readonly name = 'GatewayTimeoutError';
  constructor(detail: string) {
    super(504, 'gateway-timeout', 'Gateway timeout', detail);
  }
}

/** The circuit breaker is open: the upstream failed repeatedly and is given time to recover. */
export class UpstreamUnavailableError extends GatewayError {
  override readonly name = 'UpstreamUnavailableError';
  constructor(override readonly retryAfterSeconds: number) {
    super(503, 'upstream-unavailable', 'Service unavailable', `the upstream OData service is failing; the gateway stops calling it for ${retryAfterSeconds} s`);
  }
}

/** The gateway itself is overloaded and sheds this request. */
export class OverloadedError extends GatewayError {
  override readonly name = 'OverloadedError';
  constructor(override readonly retryAfterSeconds: number) {
    super(503, 'overloaded', 'Service unavailable', 'the gateway is overloaded; try again shortly');
  }
}

/** The caller used up the budget of a rate-limit policy (`policy` is its name in the headers). */
export class RateLimitedError extends GatewayError {
  override readonly name = 'RateLimitedError';
  constructor(
    readonly policy: string,
    override readonly retryAfterSeconds: number,
    detail?: string,
  ) {
    super(429, 'rate-limited', 'Too many requests', `${detail ?? `the rate limit "${policy}" of this key is used up`}; retry in ${retryAfterSeconds} s`);
  }
}

/** The caller already has as many requests at the upstream as it may (and the line is full). */
export class ConcurrencyLimitedError extends GatewayError {
  override readonly name = 'ConcurrencyLimitedError';
  constructor(
    override readonly retryAfterSeconds: number,
    reason: string,
  ) {
    super(429, 'concurrency-limited', 'Too many concurrent requests', reason);
  }
}

/** Whole seconds for a Retry-After header (at least 1). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * Fastify's own refusals of a request (a body beyond the limit, an unknown media type, a body
 * that is not what it claims) as the gateway's errors; undefined for anything else.
 */
export function fromFastify(error: unknown): GatewayError | undefined {
  const { code, statusCode, message } = (error ?? {}) as { code?: unknown; statusCode?: unknown; message?: unknown };
  const detail = typeof message === 'string' ? message : '';
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError(detail);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return statusCode === 415 ? new UnsupportedMediaTypeError(detail) : new MalformedBodyError(detail);
    default:
      if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) return new GatewayError(statusCode, 'bad-request', 'Bad request', detail);
      return undefined;
  }
}
