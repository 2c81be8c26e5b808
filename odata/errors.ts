// Every error the protocol library raises. Each carries the HTTP status the server side answers
// with and a stable code; service/ and gateway/ map them to the wire in one error handler.

export class ODataError extends Error {
  override readonly name: string = 'ODataError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Where in the input the problem is (a character offset, a property name, a path). */
    readonly target?: string,
  ) {
    super(message);
  }
}

/** A resource path that names nothing in the model: unknown set, property, navigation, key. */
export class ResourceNotFoundError extends ODataError {
  override readonly name = 'ResourceNotFoundError';
  constructor(message: string, target?: string) {
    super(404, 'ODATA_NOT_FOUND', message, target);
  }
}

/** Malformed or unsupported URI: resource path or a system query option. */
export class UriSyntaxError extends ODataError {
  override readonly name = 'UriSyntaxError';
  constructor(message: string, target?: string) {
    super(400, 'ODATA_URI_SYNTAX', message, target);
  }
}

/** `$filter` / `$orderby` expression that does not parse or does not type-check. */
export class ExpressionError extends ODataError {
  override readonly name = 'ExpressionError';
  constructor(
    message: string,
    /** 0-based character offset in the expression. */
    readonly position: number,
  ) {
    super(400, 'ODATA_EXPRESSION', `${message} at position ${position}`, String(position));
  }
}

/** A literal that is not a valid value of its Edm type. */
export class LiteralError extends ODataError {
  override readonly name = 'LiteralError';
  constructor(message: string, target?: string) {
    super(400, 'ODATA_LITERAL', message, target);
  }
}

/** A request or response body (Atom, XML or JSON) that cannot be read. */
export class PayloadError extends ODataError {
  override readonly name = 'PayloadError';
  constructor(message: string, target?: string) {
    super(400, 'ODATA_PAYLOAD', message, target);
  }
}

/** A query that exceeds a configured limit (filter length, node count, expand depth, $top). */
export class LimitError extends ODataError {
  override readonly name = 'LimitError';
  constructor(message: string, target?: string) {
    super(400, 'ODATA_LIMIT', message, target);
  }
}

/** No representation the client accepts (Accept / $format). */
export class NotAcceptableError extends ODataError {
  override readonly name = 'NotAcceptableError';
  constructor(message: string) {
    super(406, 'ODATA_NOT_ACCEPTABLE', message);
  }
}

/** A request body in a content type the operation does not read. */
export class UnsupportedMediaTypeError extends ODataError {
  override readonly name = 'UnsupportedMediaTypeError';
  constructor(message: string) {
    super(415, 'ODATA_UNSUPPORTED_MEDIA_TYPE', message);
  }
}

/** A value the server cannot put on the wire in the requested format (e.g. U+0001 in XML). */
export class SerializationError extends ODataError {
  override readonly name = 'SerializationError';
  constructor(message: string, target?: string) {
    super(500, 'ODATA_SERIALIZATION', message, target);
  }
}

/**
 * A `$batch` body that is not a well-formed OData V2 batch: multipart/mixed framing, changeset
 * nesting, or an HTTP request inside a part. The message names the line of the body it is about.
 */
export class BatchSyntaxError extends ODataError {
  override readonly name = 'BatchSyntaxError';
  constructor(message: string, line?: number) {
    super(400, 'ODATA_BATCH_SYNTAX', line === undefined ? message : `line ${line} of the batch: ${message}`, line === undefined ? undefined : String(line));
  }
}

/** A `$batch` beyond a configured limit: 413 for its bytes, 400 for its operations or headers. */
export class BatchLimitError extends ODataError {
  override readonly name = 'BatchLimitError';
  constructor(status: 400 | 413, message: string) {
    super(status, 'ODATA_BATCH_LIMIT', message);
  }
}
