// The `$batch` request reader: OData V2 batch bodies ([MS-ODATA] §2.2.7.6) as clients write them,
// read the same however the bytes are split into chunks, and every malformation refused with a
// 400 that names the line, every limit with its 400 or 413.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BatchPart, BatchRequest } from '../../odata/batch-request-reader.js';
import { BatchRequestReader, readBatchRequest } from '../../odata/batch-request-reader.js';
import { BatchLimitError, BatchSyntaxError } from '../../odata/errors.js';
import { DEFAULT_BATCH_LIMITS } from '../../odata/limits.js';
import { FUZZ_CONTENT_TYPE, fuzzSeeds, hostileBatch } from '../helpers/batch-mutations.js';

const TYPE = 'multipart/mixed; boundary=batch_1';

const crlf = (...lines: string[]) => lines.join('\r\n');

/** A batch as the OData V2 spec shows it: a retrieve, a changeset of two writes, a retrieve. */
const SPEC_EXAMPLE = crlf(
  '--batch_1',
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  '',
  'GET Projects(1)?$select=Name HTTP/1.1',
  'Accept: application/json',
  '',
  '',
  '--batch_1',
  'Content-Type: multipart/mixed; boundary=changeset_a',
  '',
  '--changeset_a',
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  'Content-ID: 1',
  '',
  'POST Projects HTTP/1.1',
  'Content-Type: application/json',
  '',
  '{"Name":"Neu"}',
  '--changeset_a',
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  '',
  'MERGE $1 HTTP/1.1',
  'Content-Type: application/json',
  'Content-ID: 2',
  '',
  '{"Comment":"x"}',
  '--changeset_a--',
  '',
  '--batch_1',
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  '',
  'GET Projects/$count HTTP/1.1',
  '',
  '--batch_1--',
  '',
);

/** Parts as plain data, to compare two readings. */
function plain(request: BatchRequest): unknown {
  const op = (o: { method: string; url: string; headers: ReadonlyMap<string, string>; body: Buffer; contentId: string | undefined; line: number }) =>
    ({ method: o.method, url: o.url, headers: Object.fromEntries(o.headers), body: o.body.toString('utf8'), contentId: o.contentId, line: o.line });
  return request.parts.map((part: BatchPart) => (part.kind === 'retrieve'
    ? { retrieve: op(part.operation) }
    : { changeset: part.operations.map(op), line: part.line }));
}

function syntaxError(body: string, contentType: string | undefined): BatchSyntaxError {
  try {
    readBatchRequest(contentType, body);
  } catch (error) {
    if (error instanceof BatchSyntaxError) return error;
    throw error;
  }
  throw new Error('the batch was read without an error');
}

describe('reading a batch request', () => {
  it('reads retrieves and changesets in their order, with methods, URLs, headers, bodies, Content-IDs and lines', () => {
    expect(plain(readBatchRequest(TYPE, SPEC_EXAMPLE))).toEqual([
      { retrieve: { method: 'GET', url: 'Projects(1)?$select=Name', headers: { accept: 'application/json' }, body: '', contentId: undefined, line: 5 } },
      {
        line: 10,
        changeset: [
          { method: 'POST', url: 'Projects', headers: { 'content-type': 'application/json' }, body: '{"Name":"Neu"}', contentId: '1', line: 17 },
          // A Content-ID among the request's own headers counts too (SAPUI5 writes it there).
          { method: 'MERGE', url: '$1', headers: { 'content-type': 'application/json', 'content-id': '2' }, body: '{"Comment":"x"}', contentId: '2', line: 25 },
        ],
      },
      { retrieve: { method: 'GET', url: 'Projects/$count', headers: {}, body: '', contentId: undefined, line: 36 } },
    ]);
  });

  it('reads LF line breaks, a preamble and an epilogue, padding after delimiters, a quoted boundary and folded headers alike', () => {
    const variant = SPEC_EXAMPLE.replaceAll('\r\n', '\n')
      .replace('--batch_1\n', 'This is a preamble that readers ignore.\n--batch_1 \t\n')
      .replace('Accept: application/json', 'Accept: application/atom+xml,\n  application/json')
      .concat('an epilogue\n');
    const read = readBatchRequest('multipart/mixed;boundary="batch_1"', variant);
    const [first, changeset] = read.parts;
    expect(first).toMatchObject({ kind: 'retrieve', operation: { url: 'Projects(1)?$select=Name', headers: new Map([['accept', 'application/atom+xml, application/json']]) } });
    expect(changeset?.kind === 'changeset' && changeset.operations.map((o) => o.body.toString())).toEqual(['{"Name":"Neu"}', '{"Comment":"x"}']);
    expect(read.parts).toHaveLength(3);
  });

  it('reads the same parts however the body is split into chunks', () => {
    const whole = plain(readBatchRequest(TYPE, SPEC_EXAMPLE));
    const bytes = Buffer.from(SPEC_EXAMPLE);
    fc.assert(fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), (cuts) => {
      const reader = new BatchRequestReader(TYPE);
      let from = 0;
      for (const cut of [...cuts].sort((a, b) => a - b)) {
        reader.push(bytes.subarray(from, cut));
        from = cut;
      }
      reader.push(bytes.subarray(from));
      expect(plain(reader.end())).toEqual(whole);
    }), { seed: 28, numRuns: 300 });
  });

  it('keeps body lines that only begin like a delimiter, and bytes around CR and LF exactly', () => {
    const body = 'first line\r\n--batch_12 is not a delimiter\r\n--batch_1x neither\r\n\rlone CR\n\nLF lines\r\n';
    const batch = crlf('--batch_1', 'Content-Type: multipart/mixed; boundary=cs', '', '--cs', 'Content-Type: application/http', '',
      'POST Projects HTTP/1.1', 'Content-Type: text/plain', '', `${body}`, '--cs--', '--batch_1--');
    for (const size of [1, 2, 3, 7, 1000]) {
      const reader = new BatchRequestReader(TYPE);
      const bytes = Buffer.from(batch);
      for (let i = 0; i < bytes.length; i += size) reader.push(bytes.subarray(i, i + size));
      const [part] = reader.end().parts;
      // The line break before a delimiter belongs to the delimiter, not to the body.
      expect(part?.kind === 'changeset' && part.operations[0]?.body.toString()).toBe(`${body}`);
    }
  });

  it('takes the body a Content-Length names, and a body of many megabytes on one line', () => {
    const json = `{"Comment":"${'x'.repeat(3_000_000)}"}`;
    const batch = crlf('--batch_1', 'Content-Type: multipart/mixed; boundary=cs', '', '--cs', 'Content-Type: application/http', '',
      'POST Projects HTTP/1.1', `Content-Length: ${json.length}`, '', json, '', '--cs--', '--batch_1--');
    const reader = new BatchRequestReader(TYPE);
    const bytes = Buffer.from(batch);
    for (let i = 0; i < bytes.length; i += 65_536) reader.push(bytes.subarray(i, i + 65_536));
    const [part] = reader.end().parts;
    expect(part?.kind === 'changeset' && part.operations[0]?.body.toString()).toBe(json);
  });

  it('reads an empty batch and a batch of a thousand retrieves', () => {
    expect(readBatchRequest(TYPE, '--batch_1--\r\n').parts).toEqual([]);
    const many = Array.from({ length: 1000 }, (_, i) => crlf('--batch_1', 'Content-Type: application/http', '', `GET Projects(${i}) HTTP/1.1`, '', '')).join('\r\n');
    const read = readBatchRequest(TYPE, `${many}\r\n--batch_1--`);
    expect(read.parts).toHaveLength(1000);
    expect(read.parts[999]).toMatchObject({ kind: 'retrieve', operation: { url: 'Projects(999)' } });
  });
});

describe('a malformed batch is a 400 naming what and where', () => {
  const part = (request: string, ...headers: string[]) => crlf('--batch_1', 'Content-Type: application/http', ...headers, '', request, '', '');
  const changeset = (...requests: string[]) => crlf('--batch_1', 'Content-Type: multipart/mixed; boundary=cs', '',
    ...requests.map((request) => crlf('--cs', 'Content-Type: application/http', '', request)), '--cs--');

  it.each([
    ['a Content-Type that is not multipart/mixed', 'application/json', SPEC_EXAMPLE, /multipart\/mixed, not "application\/json"/],
    ['no Content-Type', undefined, SPEC_EXAMPLE, /multipart\/mixed, not without a Content-Type/],
    ['no boundary parameter', 'multipart/mixed', SPEC_EXAMPLE, /has no boundary parameter/],
    ['a boundary no multipart may have', 'multipart/mixed; boundary=a<b>', SPEC_EXAMPLE, /"a<b>" is not a valid multipart boundary/],
  ])('%s', (_what, contentType, body, message) => {
    const error = syntaxError(body, contentType);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(message);
  });

  it.each([
    ['an empty body', '', /holds no delimiter line --batch_1/],
    ['a body without the boundary', crlf('--other', 'Content-Type: application/http', '', 'GET Projects HTTP/1.1', '--other--'), /holds no delimiter line --batch_1/],
    ['a part that is never terminated', part('GET Projects HTTP/1.1'), /^the batch ends inside the part of line 2: it is not terminated by the close delimiter --batch_1--$/],
    ['headers that never end', crlf('--batch_1', 'Content-Type: application/http'), /ends inside the headers of the part of line 2/],
    ['a part without an empty line after its headers', crlf('--batch_1', 'Content-Type: application/http', '--batch_1--'), /^line 3 of the batch: the part of line 2 of the batch has no empty line after its headers/],
    ['a changeset that is never terminated', crlf('--batch_1', 'Content-Type: multipart/mixed; boundary=cs', '', '--cs', 'Content-Type: application/http', '', 'POST Projects HTTP/1.1', '', '{}', '--batch_1--'), /the changeset of line 2 ends inside the part of line 5: it is not terminated by the close delimiter --cs--/],
    ['a changeset inside a changeset', crlf('--batch_1', 'Content-Type: multipart/mixed; boundary=cs', '', '--cs', 'Content-Type: multipart/mixed; boundary=inner', '', '--inner--', '--cs--', '--batch_1--'), /^line 5 of the batch: a changeset cannot hold another changeset/],
    ['a GET inside a changeset', `${changeset('POST Projects HTTP/1.1', 'GET Projects HTTP/1.1')}\r\n--batch_1--`, /^line 11 of the batch: a changeset holds writes only .* send this GET as a retrieve operation/],
    ['a write outside a changeset', `${part('DELETE Projects(1) HTTP/1.1')}--batch_1--`, /^line 4 of the batch: a DELETE outside a changeset: only GET may stand alone/],
    ['a method OData does not know', `${changeset('BREW Projects HTTP/1.1')}\r\n--batch_1--`, /BREW is not an OData method/],
    ['a part that is neither an operation nor a changeset', crlf('--batch_1', 'Content-Type: text/plain', '', 'hello', '--batch_1--'), /^line 2 of the batch: the part's Content-Type is "text\/plain"; it must be application\/http \(an operation\) or multipart\/mixed \(a changeset\)/],
    ['a part without a Content-Type', crlf('--batch_1', 'Content-ID: 1', '', 'GET Projects HTTP/1.1', '--batch_1--'), /the part's Content-Type is missing/],
    ['an encoding other than binary', `${part('GET Projects HTTP/1.1', 'Content-Transfer-Encoding: base64')}--batch_1--`, /Content-Transfer-Encoding "base64": the requests of a batch are sent binary/],
    ['a part holding no request', crlf('--batch_1', 'Content-Type: application/http', '', '', '--batch_1--'), /the part holds no HTTP request/],
    ['a request line that is none', `${part('GET Projects')}--batch_1--`, /^line 4 of the batch: "GET Projects" is not an HTTP request line/],
    ['an unencoded space in a URL', `${part("GET Projects?$filter=Name eq 'x' HTTP/1.1")}--batch_1--`, /is not an HTTP request line/],
    ['a header line without a colon', `${part('GET Projects HTTP/1.1\r\nAccept application/json')}--batch_1--`, /^line 5 of the batch: "Accept application\/json" is not a header line/],
    ['a MIME header line without a colon', crlf('--batch_1', 'Content-Type application/http', '', 'GET Projects HTTP/1.1', '--batch_1--'), /^line 2 of the batch: "Content-Type application\/http" is not a header line/],
    ['a control character in a header', `${part('GET Projects HTTP/1.1', 'Content-ID: a\rb')}--batch_1--`, /holds a control character/],
    ['a GET with a body', `${part('GET Projects HTTP/1.1\r\n\r\n{"x":1}')}--batch_1--`, /a GET request carries no body/],
    ['a Content-Length beyond the body', `${changeset('POST Projects HTTP/1.1\r\nContent-Length: 100\r\n\r\n{}')}\r\n--batch_1--`, /says Content-Length 100, but its body has 2 bytes/],
    ['a Content-Length short of the body', `${changeset('POST Projects HTTP/1.1\r\nContent-Length: 1\r\n\r\n{}')}\r\n--batch_1--`, /says Content-Length 1, but more than that follows/],
    ['a Content-Length that is no number', `${changeset('POST Projects HTTP/1.1\r\nContent-Length: -1\r\n\r\n{}')}\r\n--batch_1--`, /Content-Length "-1" is not a number of bytes/],
    ['an empty changeset', crlf('--batch_1', 'Content-Type: multipart/mixed; boundary=cs', '', '--cs--', '--batch_1--'), /^line 2 of the batch: the changeset holds no request/],
    ['a Content-ID twice in a changeset', `${changeset('POST Projects HTTP/1.1\r\nContent-ID: 1', 'POST Clients HTTP/1.1\r\nContent-ID: 1')}\r\n--batch_1--`, /Content-ID "1" is given twice in the changeset of line 2/],
  ])('%s', (_what, body, message) => {
    const error = syntaxError(body, TYPE);
    expect(error.status).toBe(400);
    expect(error.code).toBe('ODATA_BATCH_SYNTAX');
    expect(error.message).toMatch(message);
  });
});

describe('batch limits', () => {
  const limits = { maxBytes: 10_000, maxOperations: 3, maxHeaderBytes: 200 };
  const retrieve = crlf('--batch_1', 'Content-Type: application/http', '', 'GET Projects HTTP/1.1', '', '');

  function limitError(body: string | Buffer[]): BatchLimitError {
    const reader = new BatchRequestReader(TYPE, limits);
    try {
      for (const chunk of typeof body === 'string' ? [Buffer.from(body)] : body) reader.push(chunk);
      reader.end();
    } catch (error) {
      if (error instanceof BatchLimitError) return error;
      throw error;
    }
    throw new Error('no limit was hit');
  }

  it('refuses more operations than allowed with 400, counting the requests inside changesets', () => {
    expect(readBatchRequest(TYPE, `${retrieve.repeat(3)}--batch_1--`, limits).parts).toHaveLength(3);
    const error = limitError(`${retrieve.repeat(4)}--batch_1--`);
    expect([error.status, error.message]).toEqual([400, 'the batch holds more than 3 operations; send it in several batches']);
    const writes = crlf('--batch_1', 'Content-Type: multipart/mixed; boundary=cs', '', ...Array.from({ length: 3 }, () => crlf('--cs', 'Content-Type: application/http', '', 'DELETE Projects(1) HTTP/1.1', '')), '--cs--', '');
    expect(limitError(`${retrieve}${writes}--batch_1--`).status).toBe(400);
  });

  it('refuses a body larger than allowed with 413 as soon as the bytes arrive, not at the end', () => {
    const chunks = Array.from({ length: 100 }, () => Buffer.from(retrieve.slice(0, 200).padEnd(200, ' ')));
    const error = limitError(chunks);
    expect([error.status, error.message]).toEqual([413, 'the batch is larger than 10000 bytes']);
  });

  it('refuses header blocks larger than allowed, also when they never end', () => {
    const big = `X-Filler: ${'y'.repeat(300)}`;
    expect(limitError(crlf('--batch_1', 'Content-Type: application/http', big, '', 'GET Projects HTTP/1.1', '--batch_1--')).message)
      .toBe('the headers of the part of line 2 of the batch are longer than 200 bytes');
    expect(limitError(crlf('--batch_1', 'Content-Type: application/http', '', 'GET Projects HTTP/1.1', big, '', '--batch_1--')).message)
      .toBe('the request of line 4 has headers longer than 200 bytes');
    // One endless header line, pushed in small chunks: refused long before the batch limit.
    const endless = [Buffer.from('--batch_1\r\nX-Filler: '), ...Array.from({ length: 50 }, () => Buffer.alloc(100, 'z'))];
    expect(limitError(endless).message).toBe('the headers of the part of line 2 of the batch are longer than 200 bytes');
  });

  it('has defaults that take a thousand operations and 16 MiB', () => {
    expect(DEFAULT_BATCH_LIMITS).toEqual({ maxBytes: 16 * 1024 * 1024, maxOperations: 1000, maxHeaderBytes: 16 * 1024 });
  });
});

describe('hostile batch bodies', () => {
  /** The reading of `body` pushed in the given chunks: the parts, or the error's class and message. */
  function outcome(body: Buffer, cuts: readonly number[]): unknown {
    const reader = new BatchRequestReader(FUZZ_CONTENT_TYPE);
    try {
      let from = 0;
      for (const cut of cuts) {
        reader.push(body.subarray(from, Math.max(from, cut)));
        from = Math.max(from, cut);
      }
      reader.push(body.subarray(from));
      return plain(reader.end());
    } catch (error) {
      if (error instanceof BatchSyntaxError || error instanceof BatchLimitError) return { error: error.name, status: error.status, message: error.message };
      throw error;
    }
  }

  it('reads 10,000 mangled batches to parts or a BatchSyntaxError / BatchLimitError, the same however they are split', () => {
    const cuts = fc.uniqueArray(fc.nat({ max: 4000 }), { maxLength: 12 }).map((c) => [...c].sort((a, b) => a - b));
    fc.assert(fc.property(hostileBatch(fuzzSeeds(7)), cuts, (body, at) => {
      expect(outcome(body, at)).toEqual(outcome(body, []));
    }), { seed: 20261128, numRuns: 10_000 });
  });
});
