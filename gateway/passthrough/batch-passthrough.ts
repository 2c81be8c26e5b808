// `POST /V1/Api.svc/$batch` through the passthrough face. The body is read as it arrives by
// odata/'s batch reader, which checks all of it (a malformed batch is the client's 400 and never
// reaches the upstream, nor its breaker) and tallies its operations for the rate limiter and the
// cache (cache/batch-resources.ts); only the body's own bytes are kept, once, to be forwarded as
// they came once the limiter has counted the operations. The batch cannot go upstream before its
// end has arrived: its operations must all be counted before any of them runs.
//
// The answer streams part by part: each part (a changeset with all its answers) is read by
// odata/'s batch answer reader, the upstream's root rewritten in its body and its Location and
// Content-Location headers, and written again by odata/'s batch writer, which gives each
// response the Content-Length of its rewritten body (a root of another length would otherwise
// leave every client that trusts Content-Length reading the wrong bytes).
import { Readable, Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BatchAnswerPart } from '../../odata/batch-response-reader.js';
import { BatchResponseReader } from '../../odata/batch-response-reader.js';
import { BatchRequestReader } from '../../odata/batch-request-reader.js';
import type { OperationAnswer } from '../../odata/batch-response-writer.js';
import { BatchResponseWriter } from '../../odata/batch-response-writer.js';
import { BatchLimitError, ODataError } from '../../odata/errors.js';
import { DEFAULT_BATCH_LIMITS } from '../../odata/limits.js';
import { boundaryOf } from '../../odata/multipart-reader.js';
import { BatchTally, recordBatch } from '../cache/batch-resources.js';
import type { ResourceClassifier } from '../cache/request-resources.js';
import { BadGatewayError, GatewayError, PayloadTooLargeError } from '../errors.js';
import type { RootPair } from './root-rewriter.js';
import { bodyMayEscapeSlashes, isRewritable, rewriteRoot, rewriteRootBytes } from './root-rewriter.js';

/** A batch the gateway refuses to forward: malformed, or beyond a limit of its operations. */
export class MalformedBatchError extends GatewayError {
  override readonly name = 'MalformedBatchError';
  constructor(detail: string) {
    super(400, 'malformed-batch', 'Malformed batch', detail);
  }
}

export interface BatchBodyOptions {
  readonly classify: ResourceClassifier;
  /** Where the face is mounted (`/V1/Api.svc`), to place the operations' relative URLs. */
  readonly odataBasePath: string;
  readonly maxBytes: number;
}

function refusalOf(error: unknown): unknown {
  if (error instanceof BatchLimitError && error.status === 413) return new PayloadTooLargeError(error.message);
  if (error instanceof ODataError) return new MalformedBatchError(error.message);
  return error;
}

/**
 * The content-type parser of the `$batch` route: reads and checks the whole body as it arrives,
 * records its tally on the request, and hands on its bytes as a stream for the relay.
 */
export function registerBatchBody(app: FastifyInstance, options: BatchBodyOptions): void {
  const limits = { ...DEFAULT_BATCH_LIMITS, maxBytes: options.maxBytes };
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request: FastifyRequest, payload, done) => {
    const chunks: Buffer[] = [];
    const tally = new BatchTally(options.classify, options.odataBasePath);
    let reader: BatchRequestReader;
    try {
      reader = new BatchRequestReader(request.headers['content-type'], limits, (part) => tally.add(part));
    } catch (error) {
      done(refusalOf(error) as Error, undefined);
      return;
    }
    let isDone = false;
    const fail = (error: unknown): void => {
      if (isDone) return;
      isDone = true;
      payload.off('data', onData);
      payload.pause();
      done(refusalOf(error) as Error, undefined);
    };
    const onData = (chunk: Buffer): void => {
      try {
        reader.push(chunk);
        chunks.push(chunk);
      } catch (error) {
        fail(error);
      }
    };
    payload.on('data', onData);
    payload.once('error', fail);
    payload.once('end', () => {
      if (isDone) return;
      try {
        reader.end();
      } catch (error) {
        fail(error);
        return;
      }
      isDone = true;
      recordBatch(request, tally.result());
      done(null, Readable.from(chunks, { objectMode: false }));
    });
  });
}

function rewrittenAnswer(answer: OperationAnswer, pair: RootPair): OperationAnswer {
  const headers: Record<string, string> = { ...answer.headers };
  for (const name of ['location', 'content-location']) {
    const value = headers[name];
    if (value !== undefined) headers[name] = rewriteRoot(value, pair);
  }
  const contentType = headers['content-type'];
  const body = answer.body !== undefined && isRewritable(contentType)
    ? rewriteRootBytes(Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body, 'utf8'), pair, bodyMayEscapeSlashes(contentType))
    : answer.body;
  return { ...answer, headers, ...(body === undefined ? {} : { body }) };
}

/** Whether an upstream answer is a batch's multipart answer (not a refusal of the whole batch). */
export function isBatchAnswer(statusCode: number, contentType: string | undefined): boolean {
  return statusCode === 202 && contentType !== undefined && /^\s*multipart\/mixed\s*;/i.test(contentType);
}

/** The upstream's fault, not the client's: a 502 while nothing has been sent, else a cut-off answer. */
function unreadable(error: unknown): Error {
  return error instanceof ODataError ? new BadGatewayError(`the upstream's batch answer cannot be read: ${error.message}`) : (error as Error);
}

/** Rewrites a batch answer part by part as it streams; `contentType` is the upstream's. */
export class BatchAnswerRewriter extends Transform {
  private readonly reader: BatchResponseReader;
  private readonly writer: BatchResponseWriter;

  constructor(contentType: string, private readonly pair: RootPair) {
    super();
    // The upstream's boundary is kept, so its Content-Type header goes on as it is.
    this.writer = new BatchResponseWriter(boundaryOf(contentType));
    this.reader = new BatchResponseReader(contentType, (part) => this.push(this.written(part)));
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.reader.push(chunk);
      callback();
    } catch (error) {
      callback(unreadable(error));
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      this.reader.end();
      callback(null, this.writer.end());
    } catch (error) {
      callback(unreadable(error));
    }
  }

  private written(part: BatchAnswerPart): Buffer {
    if (part.kind === 'operation') return this.writer.operation(rewrittenAnswer(part.answer, this.pair));
    return this.writer.changeset(part.answers.map((answer) => rewrittenAnswer(answer, this.pair)), part.boundary);
  }
}
