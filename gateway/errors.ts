// Every error the gateway answers with, declared once (as Fastify's lib/errors.js): a status, a
// stable problem type and a title. Everything else throws these; error-handler.ts turns them
// into RFC 9457 problem documents in one place.

/** One invalid field: a JSON pointer (RFC 6901) into the body or the query, and what is wrong. */
export interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

const TYPE_PREFIX = 'urn:timegate:problem:';

export class GatewayError extends Error {
  override readonly name: string = 'GatewayError';
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
  ) {
    super(status, status >= 500 ? 'upstream-failure' : 'upstream-refusal', title, detail);
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
