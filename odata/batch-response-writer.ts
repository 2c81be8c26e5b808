// The answer to an OData V2 `$batch` ([MS-ODATA] §2.2.7.6.6), written part by part so a server
// can send each as soon as it has it: one `application/http` part per retrieve, one nested
// multipart/mixed per changeset that succeeded, and one `application/http` part (its error) in
// place of a changeset that failed. Lines end in CRLF; every response carries Content-Length
// (clients such as the SAP Cloud SDK split the answer by its boundaries and read the last line
// of a part as its body, so a body is never followed by anything but the next delimiter).

/** One HTTP response inside the batch answer. */
export interface OperationAnswer {
  readonly status: number;
  /** Response headers (names in any case; written in their usual spelling). Content-Length is added. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** The Content-ID of the request, echoed on the part. */
  readonly contentId?: string;
}

const CRLF = '\r\n';

const REASONS: Readonly<Record<number, string>> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 304: 'Not Modified',
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 409: 'Conflict', 412: 'Precondition Failed', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 428: 'Precondition Required', 429: 'Too Many Requests',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

const SPELLINGS: Readonly<Record<string, string>> = { dataserviceversion: 'DataServiceVersion', etag: 'ETag', 'www-authenticate': 'WWW-Authenticate' };

/** `content-type` -> `Content-Type`, `dataserviceversion` -> `DataServiceVersion`. */
function headerSpelling(name: string): string {
  const lower = name.toLowerCase();
  return SPELLINGS[lower] ?? lower.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
}

/** The reason phrase of a status (the SAP Cloud SDK recognises `204 No Content` by it). */
export function reasonPhrase(status: number): string {
  return REASONS[status] ?? (status < 300 ? 'OK' : status < 500 ? 'Client Error' : 'Server Error');
}

export class BatchResponseWriter {
  /** The Content-Type of the whole answer. */
  readonly contentType: string;

  /** `boundary`: unique per answer (a random one, so no body can hold its delimiter). */
  constructor(private readonly boundary: string) {
    this.contentType = `multipart/mixed; boundary=${boundary}`;
  }

  /** A retrieve's answer, or the one answer of a changeset that failed. */
  operation(answer: OperationAnswer): Buffer {
    return Buffer.concat([Buffer.from(`--${this.boundary}${CRLF}`, 'latin1'), ...responsePart(answer), CRLF_BYTES]);
  }

  /** The answers of a changeset that succeeded, in the order of its requests. */
  changeset(answers: readonly OperationAnswer[], changesetBoundary: string): Buffer {
    const pieces: Buffer[] = [Buffer.from(`--${this.boundary}${CRLF}Content-Type: multipart/mixed; boundary=${changesetBoundary}${CRLF}${CRLF}`, 'latin1')];
    for (const answer of answers) pieces.push(Buffer.from(`--${changesetBoundary}${CRLF}`, 'latin1'), ...responsePart(answer), CRLF_BYTES);
    pieces.push(Buffer.from(`--${changesetBoundary}--${CRLF}${CRLF}`, 'latin1'));
    return Buffer.concat(pieces);
  }

  /** The close delimiter, after the last part. */
  end(): Buffer {
    return Buffer.from(`--${this.boundary}--${CRLF}`, 'latin1');
  }
}

const CRLF_BYTES = Buffer.from(CRLF, 'latin1');

function responsePart(answer: OperationAnswer): Buffer[] {
  const body = answer.body === undefined ? undefined : typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
  let head = `Content-Type: application/http${CRLF}Content-Transfer-Encoding: binary${CRLF}`;
  if (answer.contentId !== undefined) head += `Content-ID: ${answer.contentId}${CRLF}`;
  head += `${CRLF}HTTP/1.1 ${answer.status} ${reasonPhrase(answer.status)}${CRLF}`;
  for (const [name, value] of Object.entries(answer.headers)) {
    if (name.toLowerCase() !== 'content-length') head += `${headerSpelling(name)}: ${value}${CRLF}`;
  }
  if (body !== undefined) head += `Content-Length: ${body.length}${CRLF}`;
  head += CRLF;
  return body === undefined ? [Buffer.from(head, 'utf8')] : [Buffer.from(head, 'utf8'), body];
}
