// The upstream's answer to a `$batch` of one changeset (odata-upstream.ts, createAll), read back
// into one answer per request in order, or into the one refusal of the changeset: the upstream's
// error, naming the index of the request at fault by the Content-ID the gateway gave it.
import type { OperationAnswer } from '../../odata/batch-response-writer.js';
import { readBatchAnswer } from '../../odata/batch-response-reader.js';
import { ODataError } from '../../odata/errors.js';
import { BadGatewayError, UpstreamError } from '../errors.js';
import type { UpstreamResponse } from './upstream-client.js';
import { headerOf } from './upstream-client.js';
import { upstreamError } from './upstream-errors.js';

/** One answer of a changeset as an upstream response of its own. */
export function responseOf(answer: OperationAnswer): UpstreamResponse {
  const body = answer.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body, 'utf8');
  return { status: answer.status, headers: answer.headers, body };
}

function refusalOf(answer: OperationAnswer, count: number): UpstreamError {
  const error = upstreamError(responseOf(answer));
  const index = Number(answer.contentId);
  if (answer.contentId === undefined || !Number.isInteger(index) || index < 0 || index >= count) {
    return new UpstreamError(error.status, error.title, `one of the items was refused, so none was created: ${error.message}`, error.upstreamCode);
  }
  return new UpstreamError(error.status, error.title, `the item at index ${index} was refused, so none was created: ${error.message}`, error.upstreamCode, [
    { pointer: `/${index}`, detail: error.message },
  ]);
}

/** The `count` answers of the changeset, each a success; else the changeset's refusal. */
export function changesetAnswers(response: UpstreamResponse, count: number): UpstreamResponse[] {
  let parts;
  try {
    parts = readBatchAnswer(headerOf(response, 'content-type'), response.body);
  } catch (error) {
    if (error instanceof ODataError) throw new BadGatewayError(`the upstream's batch answer cannot be read: ${error.message}`);
    throw error;
  }
  const [part] = parts;
  if (parts.length !== 1 || part === undefined) throw new BadGatewayError(`the upstream answered a batch of one changeset with ${parts.length} parts`);
  if (part.kind === 'operation') {
    if (part.answer.status >= 400) throw refusalOf(part.answer, count);
    throw new BadGatewayError(`the upstream answered a changeset of ${count} requests with one ${part.answer.status}`);
  }
  if (part.answers.length !== count) throw new BadGatewayError(`the upstream answered a changeset of ${count} requests with ${part.answers.length} answers`);
  // A server may answer a failed changeset inside it (the failing request's error among them).
  const failed = part.answers.find((answer) => answer.status >= 400);
  if (failed !== undefined) throw refusalOf(failed, count);
  return part.answers.map(responseOf);
}
