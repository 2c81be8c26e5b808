// `POST $batch` (OData V2, [MS-ODATA] §2.2.7.6): the body is read and checked whole as it streams
// in (a malformed batch is a 400 before anything runs), then each part runs through handleRequest,
// exactly as it would alone, and its answer is sent as soon as it is ready. A retrieve that fails
// answers its own error and the batch goes on; a changeset runs in one transaction of the data
// source, and the first request of it that fails rolls it all back and is its only answer.
// `$<Content-ID>` at the start of a request URL in a changeset names what an earlier request of
// that changeset created (or addressed).
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BatchOperation, BatchRequest } from '../../odata/batch-request-reader.js';
import { BatchRequestReader } from '../../odata/batch-request-reader.js';
import type { OperationAnswer } from '../../odata/batch-response-writer.js';
import { BatchResponseWriter } from '../../odata/batch-response-writer.js';
import { BatchLimitError, ResourceNotFoundError, UriSyntaxError } from '../../odata/errors.js';
import type { BatchLimits, QueryLimits } from '../../odata/limits.js';
import { errorReply } from './error-handler.js';
import { NotImplementedError } from './errors.js';
import type { Intent } from './handle-request.js';
import { effectiveMethod, handleRequest } from './handle-request.js';
import type { ServerParts } from './operation.js';
import { parseRequestTarget } from './request-target.js';
import { DATE_TIME_OFFSETS_HEADER } from '../../odata/wall-clock.js';

export interface BatchSettings<C> {
  readonly parts: ServerParts<C>;
  /** The service root's path (`/V1/Api.svc`). */
  readonly rootPath: string;
  readonly queryLimits: Partial<QueryLimits>;
  readonly batchLimits: BatchLimits;
  readonly authRealm: string;
}

interface BatchRun<C> extends BatchSettings<C> {
  readonly protocol: string;
  readonly host: string;
  readonly authenticate: (intent: Intent) => Promise<C>;
  readonly logFailure: (error: unknown) => void;
  /** The batch request's own Accept-Language, for parts that send none. */
  readonly acceptLanguage: string | undefined;
}

/** The batch answered on `reply`: 202 and a multipart answer streamed part by part. */
export async function serveBatch<C>(
  settings: BatchSettings<C>,
  request: FastifyRequest,
  reply: FastifyReply,
  authenticate: (intent: Intent) => Promise<C>,
): Promise<FastifyReply> {
  const once = authenticateOnce(authenticate);
  let batch: BatchRequest;
  try {
    // The batch's own credential must be good before its body is read at all.
    await once('read');
    batch = await readBody(settings.batchLimits, request);
  } catch (error) {
    // Refused before its end: the rest of the body is not worth reading, the connection closes.
    if (!request.raw.complete) reply.header('connection', 'close');
    throw error;
  }
  const run: BatchRun<C> = {
    ...settings,
    protocol: request.protocol,
    host: request.host,
    authenticate: once,
    logFailure: (error) => request.log.error({ err: error }, 'batch operation failed'),
    acceptLanguage: request.headers['accept-language'],
  };
  const writer = new BatchResponseWriter(`batch_${randomUUID()}`);
  return reply.code(202).header('content-type', writer.contentType).header('dataserviceversion', '2.0')
    .send(Readable.from(answers(run, batch, writer), { objectMode: false }));
}

/** The batch body read and checked whole, as it streams in. */
async function readBody(limits: BatchLimits, request: FastifyRequest): Promise<BatchRequest> {
  const declared = Number(request.headers['content-length']);
  if (declared > limits.maxBytes) throw new BatchLimitError(413, `the batch is larger than ${limits.maxBytes} bytes`);
  const reader = new BatchRequestReader(request.headers['content-type'], limits);
  const body = request.body;
  if (Buffer.isBuffer(body)) reader.push(body);
  else if (body instanceof Readable) await pushAll(body, reader);
  return reader.end();
}

/**
 * Every chunk of the stream into the reader. Not `for await`: leaving that loop early destroys
 * the request, and with it the socket the 400 or 413 is to be sent on.
 */
function pushAll(body: Readable, reader: BatchRequestReader): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch (error) {
        body.off('data', onData).pause();
        reject(error);
      }
    };
    body.on('data', onData).once('end', resolve).once('error', reject);
  });
}

async function* answers<C>(run: BatchRun<C>, batch: BatchRequest, writer: BatchResponseWriter): AsyncGenerator<Buffer> {
  for (const part of batch.parts) {
    if (part.kind === 'retrieve') {
      yield writer.operation(await answerOf(run, run.parts, part.operation, undefined).catch((error: unknown) => failure(run, part.operation, error)));
      continue;
    }
    const outcome = await runChangeset(run, part.operations);
    yield 'failed' in outcome ? writer.operation(outcome.failed) : writer.changeset(outcome.answers, `changeset_${randomUUID()}`);
  }
  yield writer.end();
}

async function runChangeset<C>(run: BatchRun<C>, operations: readonly BatchOperation[]): Promise<{ answers: OperationAnswer[] } | { failed: OperationAnswer }> {
  const { dataSource } = run.parts;
  let current = operations[0] as BatchOperation;
  try {
    if (dataSource.atomically === undefined) throw new NotImplementedError('this data source cannot run changesets atomically; send each write on its own');
    // Settled before the transaction opens: on SQLite the transaction holds the one connection,
    // so a key lookup inside it would wait for itself.
    await run.authenticate('write').catch(() => undefined);
    const answers = await dataSource.atomically(async (source) => {
      const parts = { ...run.parts, dataSource: source };
      const references = new Map<string, string>();
      const done: OperationAnswer[] = [];
      for (const operation of operations) {
        current = operation;
        done.push(await answerOf(run, parts, operation, references));
      }
      return done;
    });
    return { answers };
  } catch (error) {
    return { failed: failure(run, current, error) };
  }
}

/** Runs one operation; `references` (in a changeset) maps Content-IDs to paths below the root. */
async function answerOf<C>(run: BatchRun<C>, parts: ServerParts<C>, operation: BatchOperation, references: Map<string, string> | undefined): Promise<OperationAnswer> {
  const url = absolutePath(run.rootPath, operation.url, references);
  const target = parseRequestTarget({ url, protocol: run.protocol, host: run.host, accept: operation.headers.get('accept'), dateTimeOffsets: operation.headers.get(DATE_TIME_OFFSETS_HEADER) }, run.rootPath, parts.index, run.queryLimits);
  const method = effectiveMethod(operation.method, operation.headers.get('x-http-method'));
  const body = { contentType: operation.headers.get('content-type'), bytes: operation.body.length === 0 ? undefined : operation.body };
  const preconditions = { ifMatch: operation.headers.get('if-match'), ifNoneMatch: operation.headers.get('if-none-match') };
  const result = await handleRequest(parts, target, method, body, preconditions, run.authenticate);
  if (references !== undefined && operation.contentId !== undefined) {
    const location = result.headers?.location;
    const root = target.response.serviceRoot;
    references.set(operation.contentId, location?.startsWith(root) ? location.slice(root.length) : target.rawPath);
  }
  const headers: Record<string, string> = { dataserviceversion: '2.0', ...result.headers };
  if (result.representation !== undefined) headers['content-type'] = result.representation.contentType;
  return { status: result.status, headers, body: result.representation?.body, contentId: operation.contentId };
}

function failure<C>(run: BatchRun<C>, operation: BatchOperation, error: unknown): OperationAnswer {
  const reply = errorReply(error, operation.headers.get('accept'), operation.url, run.authRealm, operation.headers.get('accept-language') ?? run.acceptLanguage);
  if (reply.status >= 500) run.logFailure(error);
  return { status: reply.status, headers: reply.headers, body: reply.body, contentId: operation.contentId };
}

/**
 * The path and query of an operation's URL below the host: relative to the service root (the V2
 * form), an absolute path, an absolute http(s) URI, or `$<Content-ID>` followed by more.
 */
function absolutePath(rootPath: string, url: string, references: Map<string, string> | undefined): string {
  if (url.startsWith('$') && references !== undefined) {
    const end = url.search(/[/?]/);
    const id = url.slice(1, end < 0 ? url.length : end);
    const referenced = references.get(id);
    if (referenced !== undefined) return `${rootPath}/${referenced}${end < 0 ? '' : url.slice(end)}`;
    if (id !== 'metadata' && id !== 'batch') {
      throw new ResourceNotFoundError(`no request before this one in its changeset has Content-ID ${id.slice(0, 40)}`, url.slice(0, end < 0 ? url.length : end));
    }
  }
  if (url.startsWith('/')) return url;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UriSyntaxError(`the request URL ${url.slice(0, 80)} is not a valid URI`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UriSyntaxError(`the request URL ${url.slice(0, 80)} is not an http(s) URI`);
    return `${parsed.pathname}${parsed.search}`;
  }
  return `${rootPath}/${url}`;
}

/** Each intent's authentication asked once per batch, however many parts ask. */
function authenticateOnce<C>(authenticate: (intent: Intent) => Promise<C>): (intent: Intent) => Promise<C> {
  const callers = new Map<Intent, Promise<C>>();
  return (intent) => {
    let caller = callers.get(intent);
    if (caller === undefined) {
      caller = authenticate(intent);
      caller.catch(() => undefined);
      callers.set(intent, caller);
    }
    return caller;
  };
}
