// The `$batch` answer writer: the exact bytes of a multipart answer as OData V2 clients read it,
// retrieves, a changeset that succeeded, and the one error that stands for a failed changeset.
import { describe, expect, it } from 'vitest';
import { BatchResponseWriter, reasonPhrase } from '../../odata/batch-response-writer.js';

describe('writing a batch answer', () => {
  it('writes each answer as an application/http part with its status line, headers, Content-Length and body', () => {
    const writer = new BatchResponseWriter('batch_x');
    const answer = Buffer.concat([
      writer.operation({ status: 200, headers: { 'content-type': 'application/json;charset=utf-8', dataserviceversion: '2.0' }, body: '{"d":{"Name":"Ä"}}' }),
      writer.changeset([
        { status: 201, headers: { location: 'http://h/V1/Api.svc/Projects(7)', 'content-type': 'application/json;charset=utf-8' }, body: Buffer.from('{"d":{}}'), contentId: '1' },
        { status: 204, headers: { dataserviceversion: '2.0', 'content-length': '99' }, contentId: 'id-2' },
      ], 'changeset_y'),
      writer.operation({ status: 409, headers: { 'content-type': 'application/xml;charset=utf-8', etag: 'W/"1"' }, body: '<error/>' }),
      writer.end(),
    ]).toString('utf8');
    expect(writer.contentType).toBe('multipart/mixed; boundary=batch_x');
    expect(answer).toBe([
      '--batch_x',
      'Content-Type: application/http',
      'Content-Transfer-Encoding: binary',
      '',
      'HTTP/1.1 200 OK',
      'Content-Type: application/json;charset=utf-8',
      'DataServiceVersion: 2.0',
      'Content-Length: 19',
      '',
      '{"d":{"Name":"Ä"}}',
      '--batch_x',
      'Content-Type: multipart/mixed; boundary=changeset_y',
      '',
      '--changeset_y',
      'Content-Type: application/http',
      'Content-Transfer-Encoding: binary',
      'Content-ID: 1',
      '',
      'HTTP/1.1 201 Created',
      'Location: http://h/V1/Api.svc/Projects(7)',
      'Content-Type: application/json;charset=utf-8',
      'Content-Length: 8',
      '',
      '{"d":{}}',
      '--changeset_y',
      'Content-Type: application/http',
      'Content-Transfer-Encoding: binary',
      'Content-ID: id-2',
      '',
      'HTTP/1.1 204 No Content',
      'DataServiceVersion: 2.0',
      '',
      '',
      '--changeset_y--',
      '',
      '--batch_x',
      'Content-Type: application/http',
      'Content-Transfer-Encoding: binary',
      '',
      'HTTP/1.1 409 Conflict',
      'Content-Type: application/xml;charset=utf-8',
      'ETag: W/"1"',
      'Content-Length: 8',
      '',
      '<error/>',
      '--batch_x--',
      '',
    ].join('\r\n'));
  });

  it('names every status with a reason phrase', () => {
    expect([200, 201, 204, 304, 404, 412, 428, 299, 418, 599].map(reasonPhrase))
      .toEqual(['OK', 'Created', 'No Content', 'Not Modified', 'Not Found', 'Precondition Failed', 'Precondition Required', 'OK', 'Client Error', 'Server Error']);
  });
});
