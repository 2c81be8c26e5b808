// `$batch` for the HTTP-level suites: a batch body written out plainly from a list of requests
// (retrieves and changesets), and the multipart answer read back into one Reply per part, so the
// odata-client checks (readEntry, expectError, ...) apply to a part as to a request sent alone.
import { expect } from 'vitest';
import type { ODataClient, Payload, Reply, RequestOptions } from './odata-client.js';

export interface PartRequest {
  readonly method: string;
  /** As written in the batch: relative to the service root, an absolute path or a URI. */
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly payload?: Payload;
  /** Written as the part's MIME header. */
  readonly contentId?: string;
}

export type BatchItem = PartRequest | { readonly changeset: readonly PartRequest[] };

export const BOUNDARY = 'batch_36522ad7-fc75-4b56-8c71-56071383e77b';
export const BATCH_CONTENT_TYPE = `multipart/mixed; boundary=${BOUNDARY}`;

function partText(request: PartRequest): string {
  const lines = ['Content-Type: application/http', 'Content-Transfer-Encoding: binary'];
  if (request.contentId !== undefined) lines.push(`Content-ID: ${request.contentId}`);
  lines.push('', `${request.method} ${request.url} HTTP/1.1`);
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`${name}: ${value}`);
  if (request.payload !== undefined) lines.push(`Content-Type: ${request.payload.contentType}`);
  lines.push('', request.payload?.body ?? '');
  return lines.join('\r\n');
}

/** The body of a batch of `items`, with CRLF line breaks as the V2 spec writes them. */
export function batchBody(items: readonly BatchItem[], boundary = BOUNDARY): string {
  const parts = items.map((item, i) => {
    if (!('changeset' in item)) return partText(item);
    const changeset = `changeset_${i}`;
    return [`Content-Type: multipart/mixed; boundary=${changeset}`, '', ...item.changeset.map((request) => `--${changeset}\r\n${partText(request)}`), `--${changeset}--`, ''].join('\r\n');
  });
  return `${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('')}--${boundary}--\r\n`;
}

export type AnswerPart = Reply | { readonly changeset: readonly Reply[] };

export interface BatchReply {
  readonly reply: Reply;
  readonly parts: readonly AnswerPart[];
}

function boundaryIn(contentType: string): string {
  const match = /boundary=("?)([^";]+)\1/.exec(contentType);
  if (match === null) throw new Error(`no boundary in ${contentType}`);
  return match[2] as string;
}

function headersOf(block: string): Headers {
  const headers = new Headers();
  for (const line of block.split('\r\n')) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** Parts between the delimiters of `boundary` (preamble and epilogue dropped). */
function split(text: string, boundary: string): string[] {
  const pieces = text.split(new RegExp(`(?:^|\\r\\n)--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(--)?[ \\t]*(?:\\r\\n|$)`));
  const parts: string[] = [];
  // split() with two groups: [preamble, closeMarker, part, closeMarker, part, ...]
  for (let i = 2; i < pieces.length; i += 2) {
    if (pieces[i - 1] === '--') break;
    parts.push(pieces[i] as string);
  }
  return parts;
}

function responseOf(part: string, url: string): Reply {
  const mimeEnd = part.indexOf('\r\n\r\n');
  const mime = headersOf(part.slice(0, mimeEnd));
  expect(mime.get('content-type')).toBe('application/http');
  expect(mime.get('content-transfer-encoding')).toBe('binary');
  const message = part.slice(mimeEnd + 4);
  const headEnd = message.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = message.slice(0, headEnd).split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
  if (status === null) throw new Error(`not a status line: ${statusLine}`);
  const headers = headersOf(headerLines.join('\r\n'));
  const contentId = mime.get('content-id');
  if (contentId !== null) headers.set('x-batch-content-id', contentId);
  const bytes = Buffer.from(message.slice(headEnd + 4), 'utf8');
  const length = headers.get('content-length');
  const text = length === null ? bytes.toString('utf8') : bytes.subarray(0, Number(length)).toString('utf8');
  if (length !== null) expect(bytes.length, 'a part body is followed by nothing but the delimiter').toBe(Number(length));
  return { status: Number(status[1]), headers, contentType: headers.get('content-type') ?? '', text, url };
}

/** The parts of a batch answer; `urls` name the requests for messages. */
export function readBatchAnswer(reply: Reply, urls: readonly string[] = []): AnswerPart[] {
  let n = 0;
  const urlOf = () => urls[n++] ?? `part ${n}`;
  return split(reply.text, boundaryIn(reply.contentType)).map((part) => {
    const mimeEnd = part.indexOf('\r\n\r\n');
    const contentType = headersOf(part.slice(0, mimeEnd)).get('content-type') ?? '';
    if (!contentType.startsWith('multipart/mixed')) return responseOf(part, urlOf());
    return { changeset: split(part.slice(mimeEnd + 4), boundaryIn(contentType)).map((inner) => responseOf(inner, urlOf())) };
  });
}

/** POSTs the batch of `items` with the client's key and reads the answer. */
export async function sendBatch(client: ODataClient, items: readonly BatchItem[], options: Omit<RequestOptions, 'method' | 'body'> = {}): Promise<BatchReply> {
  const reply = await client.request('/$batch', { contentType: BATCH_CONTENT_TYPE, ...options, method: 'POST', body: batchBody(items) });
  const urls = items.flatMap((item) => ('changeset' in item ? item.changeset.map((r) => r.url) : [item.url]));
  return { reply, parts: reply.status === 202 ? readBatchAnswer(reply, urls) : [] };
}

/** The one answer of a retrieve (or of a failed changeset) at `index`. */
export function single(answer: BatchReply, index: number): Reply {
  const part = answer.parts[index];
  if (part === undefined || 'changeset' in part) throw new Error(`part ${index} is not a single response`);
  return part;
}

/** The answers of a changeset that succeeded, at `index`. */
export function changesetAt(answer: BatchReply, index: number): readonly Reply[] {
  const part = answer.parts[index];
  if (part === undefined || !('changeset' in part)) throw new Error(`part ${index} is not a changeset`);
  return part.changeset;
}
