// The answer to an OData V2 `$batch` ([MS-ODATA] §2.2.7.6.6), read as it streams in, for a
// client of a batch or a proxy that must change the answer (the gateway rewrites the upstream's
// root in it): one `application/http` part per retrieve or failed changeset, one nested
// multipart/mixed per changeset that succeeded. Each part is handed on as soon as it is complete
// (a changeset once all its answers are), so what is held is one part, never the whole answer.
// The MIME layer is multipart-reader.ts, as for batch requests.
import type { OperationAnswer } from './batch-response-writer.js';
import { BatchSyntaxError } from './errors.js';
import type { MimeHeaders, MultipartHandler } from './multipart-reader.js';
import { mediaTypeOf } from './content-negotiation.js';
import { MultipartReader, boundaryOf, quote, readHttpMessage } from './multipart-reader.js';

export type BatchAnswerPart =
  | { readonly kind: 'operation'; readonly answer: OperationAnswer }
  /** `boundary`: the changeset's own, to write it again with the same one. */
  | { readonly kind: 'changeset'; readonly answers: readonly OperationAnswer[]; readonly boundary: string };

const STATUS_LINE = /^HTTP\/1\.[01][ \t]+(\d{3})(?:[ \t].*)?$/;
const DEFAULT_MAX_HEADER_BYTES = 16 * 1024;

/** An `application/http` part read as an HTTP response. */
function readResponse(bytes: Buffer, mimeHeaders: MimeHeaders, bodyLine: number, maxHeaderBytes: number): OperationAnswer {
  let status = 0;
  const message = readHttpMessage(bytes, bodyLine, maxHeaderBytes, 'response', (text, line) => {
    const match = text === undefined ? null : STATUS_LINE.exec(text);
    if (match === null) throw new BatchSyntaxError(`${quote(text ?? '')} is not an HTTP status line (HTTP/1.1 200 OK)`, line);
    status = Number(match[1]);
    return text as string;
  });
  const { headers, line: statusLineNumber } = message;
  let body: Buffer | undefined = message.body;
  const declared = headers.get('content-length');
  if (declared !== undefined) {
    const length = Number(declared);
    if (!/^\d{1,10}$/.test(declared) || length > body.length) throw new BatchSyntaxError(`Content-Length ${quote(declared)} does not fit the part's ${body.length} bytes of body`, statusLineNumber);
    body = body.subarray(0, length);
  }
  const record = Object.fromEntries(headers);
  // Written again by whoever writes the answer on, for the body it then has.
  delete record['content-length'];
  if (body.length === 0 && declared === undefined) body = undefined;
  const contentId = mimeHeaders.get('content-id');
  return { status, headers: record, ...(body === undefined ? {} : { body }), ...(contentId === undefined ? {} : { contentId }) };
}

/**
 * Reads a batch answer pushed in chunks: `push()` as bytes arrive, `end()` after the last; each
 * complete part goes to `onPart`. Malformations are BatchSyntaxErrors naming their line.
 */
export class BatchResponseReader {
  private readonly reader: MultipartReader;
  private chunks: Buffer[] = [];
  private part: { headers: MimeHeaders; bodyLine: number } | undefined;
  private changeset: { reader: MultipartReader; answers: OperationAnswer[]; boundary: string } | undefined;

  constructor(contentType: string | undefined, private readonly onPart: (part: BatchAnswerPart) => void, private readonly maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES) {
    this.reader = new MultipartReader(boundaryOf(contentType), this.answerHandler(), { maxHeaderBytes, name: 'the batch answer' });
  }

  push(chunk: Buffer): void {
    this.reader.push(chunk);
  }

  end(): void {
    this.reader.end();
  }

  private endResponse(): OperationAnswer {
    const { headers, bodyLine } = this.part as NonNullable<BatchResponseReader['part']>;
    const bytes = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    this.chunks = [];
    this.part = undefined;
    return readResponse(bytes, headers, bodyLine, this.maxHeaderBytes);
  }

  private answerHandler(): MultipartHandler {
    return {
      partStart: (headers, line, bodyLine) => {
        const contentType = headers.get('content-type');
        if (mediaTypeOf(contentType) === 'multipart/mixed') {
          const boundary = boundaryOf(contentType, line);
          const reader = new MultipartReader(boundary, this.changesetHandler(), { maxHeaderBytes: this.maxHeaderBytes, firstLine: bodyLine, name: `the changeset answer of line ${line}` });
          this.changeset = { reader, answers: [], boundary };
          return;
        }
        this.part = { headers, bodyLine };
      },
      partData: (bytes) => {
        if (this.changeset !== undefined) this.changeset.reader.push(bytes);
        else this.chunks.push(bytes);
      },
      partEnd: () => {
        const changeset = this.changeset;
        if (changeset === undefined) {
          this.onPart({ kind: 'operation', answer: this.endResponse() });
          return;
        }
        changeset.reader.end();
        this.changeset = undefined;
        this.onPart({ kind: 'changeset', answers: changeset.answers, boundary: changeset.boundary });
      },
    };
  }

  private changesetHandler(): MultipartHandler {
    return {
      partStart: (headers, _line, bodyLine) => {
        this.part = { headers, bodyLine };
      },
      partData: (bytes) => this.chunks.push(bytes),
      partEnd: () => (this.changeset as NonNullable<BatchResponseReader['changeset']>).answers.push(this.endResponse()),
    };
  }
}

/** The parts of a whole batch answer already in memory. */
export function readBatchAnswer(contentType: string | undefined, body: Buffer): BatchAnswerPart[] {
  const parts: BatchAnswerPart[] = [];
  const reader = new BatchResponseReader(contentType, (part) => parts.push(part));
  reader.push(body);
  reader.end();
  return parts;
}
