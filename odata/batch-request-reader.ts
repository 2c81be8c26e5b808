// An OData V2 `$batch` request body ([MS-ODATA] §2.2.7.6), read as it streams in: retrieve
// operations and changesets in any order, each operation an HTTP request inside an
// `application/http` part, each changeset a nested multipart/mixed whose requests are all writes.
// The whole body is checked before anything is answered, so a malformed part at the end can never
// leave the changesets before it written; what is kept is the operations, not the body's bytes.
import { BatchLimitError, BatchSyntaxError } from './errors.js';
import type { BatchLimits } from './limits.js';
import { DEFAULT_BATCH_LIMITS } from './limits.js';
import type { MimeHeaders, MultipartHandler } from './multipart-reader.js';
import { mediaTypeOf } from './content-negotiation.js';
import { MultipartReader, boundaryOf, quote, readHttpMessage } from './multipart-reader.js';

/** One HTTP request of a batch. */
export interface BatchOperation {
  /** Upper-cased, as sent (`X-HTTP-Method` is the server's to apply). */
  readonly method: string;
  /** The request target as written: relative to the service root, an absolute path, or a URI. */
  readonly url: string;
  readonly headers: MimeHeaders;
  /** Empty when the request has none. */
  readonly body: Buffer;
  /** From the part's MIME headers, or else the request's own headers. */
  readonly contentId: string | undefined;
  /** The line of the batch its request line is on. */
  readonly line: number;
}

export type BatchPart =
  | { readonly kind: 'retrieve'; readonly operation: BatchOperation }
  | { readonly kind: 'changeset'; readonly operations: readonly BatchOperation[]; readonly line: number };

export interface BatchRequest {
  readonly parts: readonly BatchPart[];
}

/** Methods of a changeset's requests; a retrieve is a GET. */
export const CHANGESET_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'MERGE', 'PATCH', 'DELETE']);

const APPLICATION_HTTP = 'application/http';
const MULTIPART_MIXED = 'multipart/mixed';
const REQUEST_LINE = /^([A-Za-z]+)[ \t]+(\S+)[ \t]+HTTP\/1\.[01][ \t]*$/;

/** An `application/http` part, collected until its end and then read as an HTTP request. */
class OperationPart {
  private readonly chunks: Buffer[] = [];

  constructor(private readonly mimeHeaders: MimeHeaders, private readonly bodyLine: number) {}

  add(bytes: Buffer): void {
    this.chunks.push(bytes);
  }

  read(inChangeset: boolean, maxHeaderBytes: number): BatchOperation {
    let method = '';
    let url = '';
    const message = readHttpMessage(Buffer.concat(this.chunks), this.bodyLine, maxHeaderBytes, 'request', (text, line) => {
      if (text === undefined) throw new BatchSyntaxError('the part holds no HTTP request (METHOD URL HTTP/1.1)', this.bodyLine);
      if (text.length > maxHeaderBytes) throw new BatchLimitError(400, `the request line of line ${line} is longer than ${maxHeaderBytes} bytes`);
      const match = REQUEST_LINE.exec(text);
      if (match === null) throw new BatchSyntaxError(`${quote(text)} is not an HTTP request line (METHOD URL HTTP/1.1)`, line);
      method = (match[1] as string).toUpperCase();
      url = match[2] as string;
      checkMethod(method, inChangeset, line);
      return text;
    });
    const { headers, line: requestLineNumber } = message;
    const body = bodyOf(message.body, headers, method, requestLineNumber);
    const contentId = this.mimeHeaders.get('content-id') ?? headers.get('content-id');
    if (contentId === '') throw new BatchSyntaxError('a Content-ID header is empty', requestLineNumber);
    return { method, url, headers, body, contentId, line: requestLineNumber };
  }
}

function checkMethod(method: string, inChangeset: boolean, line: number): void {
  if (inChangeset) {
    if (method === 'GET') {
      throw new BatchSyntaxError('a changeset holds writes only (POST, PUT, MERGE, PATCH, DELETE): send this GET as a retrieve operation outside the changeset', line);
    }
    if (!CHANGESET_METHODS.has(method)) throw new BatchSyntaxError(`${method} is not an OData method; a changeset holds POST, PUT, MERGE, PATCH and DELETE requests`, line);
  } else if (method !== 'GET') {
    throw new BatchSyntaxError(`a ${method} outside a changeset: only GET may stand alone in a batch, writes go into a changeset (multipart/mixed part)`, line);
  }
}

function bodyOf(rest: Buffer, headers: MimeHeaders, method: string, line: number): Buffer {
  const declared = headers.get('content-length');
  let body = rest;
  if (declared !== undefined) {
    if (!/^\d{1,10}$/.test(declared)) throw new BatchSyntaxError(`Content-Length ${quote(declared)} is not a number of bytes`, line);
    const length = Number(declared);
    if (length > rest.length) throw new BatchSyntaxError(`the request says Content-Length ${length}, but its body has ${rest.length} bytes before the part ends`, line);
    if (!isBlank(rest.subarray(length))) throw new BatchSyntaxError(`the request says Content-Length ${length}, but more than that follows its headers`, line);
    body = rest.subarray(0, length);
  }
  if (method === 'GET' && !isBlank(body)) throw new BatchSyntaxError('a GET request carries no body', line);
  return body;
}

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== 32 && byte !== 9 && byte !== 10 && byte !== 13) return false;
  return true;
}

/** Checks a part's Content-Type and Content-Transfer-Encoding; its media type. */
function partType(headers: MimeHeaders, line: number, inChangeset: boolean): string {
  const contentType = headers.get('content-type');
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === MULTIPART_MIXED) {
    if (inChangeset) throw new BatchSyntaxError('a changeset cannot hold another changeset (a multipart/mixed part inside a changeset)', line);
    return mediaType;
  }
  if (mediaType !== APPLICATION_HTTP) {
    const expected = inChangeset ? APPLICATION_HTTP : `${APPLICATION_HTTP} (an operation) or ${MULTIPART_MIXED} (a changeset)`;
    throw new BatchSyntaxError(`the part's Content-Type is ${contentType === undefined ? 'missing' : quote(contentType)}; it must be ${expected}`, line);
  }
  const encoding = headers.get('content-transfer-encoding');
  if (encoding !== undefined && encoding.toLowerCase() !== 'binary') {
    throw new BatchSyntaxError(`Content-Transfer-Encoding ${quote(encoding)}: the requests of a batch are sent binary`, line);
  }
  return mediaType;
}

/**
 * Reads a batch body pushed in chunks: `push()` as bytes arrive, then `end()` for the request.
 * Every malformation is a BatchSyntaxError naming its line, every limit a BatchLimitError.
 */
export class BatchRequestReader {
  private readonly reader: MultipartReader;
  private readonly parts: BatchPart[] = [];
  private readonly onPart: (part: BatchPart) => void;
  private bytes = 0;
  private operations = 0;
  private operation: OperationPart | undefined;
  private changeset: { reader: MultipartReader; operations: BatchOperation[]; contentIds: Set<string>; line: number } | undefined;

  /**
   * `onPart`: given, each part goes there as soon as it is read and is not kept (a proxy that
   * only looks at the parts, and forwards the body's own bytes, holds them once); end() then
   * returns no parts.
   */
  constructor(
    contentType: string | undefined,
    private readonly limits: BatchLimits = DEFAULT_BATCH_LIMITS,
    onPart?: (part: BatchPart) => void,
  ) {
    this.onPart = onPart ?? ((part) => this.parts.push(part));
    this.reader = new MultipartReader(boundaryOf(contentType), this.batchHandler(), { maxHeaderBytes: limits.maxHeaderBytes, name: 'the batch' });
  }

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limits.maxBytes) throw new BatchLimitError(413, `the batch is larger than ${this.limits.maxBytes} bytes`);
    this.reader.push(chunk);
  }

  end(): BatchRequest {
    this.reader.end();
    return { parts: this.parts };
  }

  private beginOperation(headers: MimeHeaders, bodyLine: number): void {
    if (++this.operations > this.limits.maxOperations) {
      throw new BatchLimitError(400, `the batch holds more than ${this.limits.maxOperations} operations; send it in several batches`);
    }
    this.operation = new OperationPart(headers, bodyLine);
  }

  private endOperation(inChangeset: boolean): BatchOperation {
    const part = this.operation as OperationPart;
    this.operation = undefined;
    return part.read(inChangeset, this.limits.maxHeaderBytes);
  }

  private batchHandler(): MultipartHandler {
    return {
      partStart: (headers, line, bodyLine) => {
        if (partType(headers, line, false) === APPLICATION_HTTP) return this.beginOperation(headers, bodyLine);
        const reader = new MultipartReader(boundaryOf(headers.get('content-type'), line), this.changesetHandler(), {
          maxHeaderBytes: this.limits.maxHeaderBytes,
          firstLine: bodyLine,
          name: `the changeset of line ${line}`,
        });
        this.changeset = { reader, operations: [], contentIds: new Set(), line };
      },
      partData: (bytes) => {
        if (this.changeset !== undefined) this.changeset.reader.push(bytes);
        else this.operation?.add(bytes);
      },
      partEnd: () => {
        const changeset = this.changeset;
        if (changeset === undefined) {
          this.onPart({ kind: 'retrieve', operation: this.endOperation(false) });
          return;
        }
        changeset.reader.end();
        this.changeset = undefined;
        if (changeset.operations.length === 0) throw new BatchSyntaxError('the changeset holds no request', changeset.line);
        this.onPart({ kind: 'changeset', operations: changeset.operations, line: changeset.line });
      },
    };
  }

  private changesetHandler(): MultipartHandler {
    return {
      partStart: (headers, line, bodyLine) => {
        partType(headers, line, true);
        this.beginOperation(headers, bodyLine);
      },
      partData: (bytes) => this.operation?.add(bytes),
      partEnd: () => {
        const changeset = this.changeset as NonNullable<BatchRequestReader['changeset']>;
        const operation = this.endOperation(true);
        if (operation.contentId !== undefined) {
          if (changeset.contentIds.has(operation.contentId)) {
            throw new BatchSyntaxError(`Content-ID ${quote(operation.contentId)} is given twice in the changeset of line ${changeset.line}`, operation.line);
          }
          changeset.contentIds.add(operation.contentId);
        }
        changeset.operations.push(operation);
      },
    };
  }
}

/** A whole batch body at once (tests, and bodies already in memory). */
export function readBatchRequest(contentType: string | undefined, body: string | Buffer, limits?: BatchLimits): BatchRequest {
  const reader = new BatchRequestReader(contentType, limits);
  reader.push(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return reader.end();
}
