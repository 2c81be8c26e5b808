// An OData V2 `$batch` request body ([MS-ODATA] §2.2.7.6) written from a list of requests: one
// changeset holding them all, so the server runs them all or none. Lines end in CRLF; each
// request carries its Content-Length and a Content-ID (its index unless one is given), by which
// the server's answer to a failed changeset names the request at fault.

export interface ChangesetRequest {
  readonly method: 'POST' | 'PUT' | 'MERGE' | 'PATCH' | 'DELETE';
  /** Relative to the service root (`TimeEntries`), as V2 writes it. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly contentId?: string;
}

export interface BatchBody {
  readonly contentType: string;
  readonly body: string;
}

const CRLF = '\r\n';

/** A batch of one changeset of `requests`; the boundaries must not occur in any body (random ones). */
export function writeChangesetBatch(requests: readonly ChangesetRequest[], batchBoundary: string, changesetBoundary: string): BatchBody {
  let body = `--${batchBoundary}${CRLF}Content-Type: multipart/mixed; boundary=${changesetBoundary}${CRLF}${CRLF}`;
  requests.forEach((request, index) => {
    body += `--${changesetBoundary}${CRLF}Content-Type: application/http${CRLF}Content-Transfer-Encoding: binary${CRLF}`;
    body += `Content-ID: ${request.contentId ?? String(index)}${CRLF}${CRLF}`;
    body += `${request.method} ${request.url} HTTP/1.1${CRLF}`;
    for (const [name, value] of Object.entries(request.headers)) body += `${name}: ${value}${CRLF}`;
    if (request.body !== undefined) body += `Content-Length: ${Buffer.byteLength(request.body, 'utf8')}${CRLF}`;
    body += `${CRLF}${request.body ?? ''}${CRLF}`;
  });
  body += `--${changesetBoundary}--${CRLF}${CRLF}--${batchBoundary}--${CRLF}`;
  return { contentType: `multipart/mixed; boundary=${batchBoundary}`, body };
}
