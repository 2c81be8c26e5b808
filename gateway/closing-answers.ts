// An answer that closes the connection while the request's body is still coming (a chunked body
// cut off at the limit by a face's parser, an expectation refused before the body was asked for)
// is sent at once, but the connection is closed only once that body has been read to its end, or
// after LINGER_MS. Closed at once over bytes not yet read, the connection is reset by the kernel,
// and a client still writing its body meets EPIPE or ECONNRESET instead of the answer (RFC 9112
// §9.6; Node's server has no lingering close, nodejs/node#12339): a chunked 8 MiB body written
// whole before the client reads lost its 413 every time (test/gateway/adversarial-findings.test.ts).
// The service has the same rule in service/http/closing-answers.ts; the two programs never import
// each other.
//
// How, with Fastify's own means: the answer's bytes become a stream payload with its
// Content-Length, so the client has the whole answer at once, and the stream ends (and Node then
// closes the connection) only once the body is drained. The bound keeps a client that declares
// more than it sends from holding the connection: after LINGER_MS it closes as before.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';

const LINGER_MS = 2_000;

/** Resolves once `request` has been read to its end, has gone, or `ms` have passed; what it still sends is discarded. */
function drained(request: IncomingMessage, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      request.off('data', discard).off('end', finish).off('close', finish).off('error', finish);
      resolve();
    };
    const discard = () => undefined;
    const timer = setTimeout(finish, ms);
    request.on('data', discard).once('end', finish).once('close', finish).once('error', finish);
    request.resume();
  });
}

async function* heldOpen(answer: Buffer, until: Promise<void>): AsyncGenerator<Buffer> {
  yield answer;
  await until;
}

export function registerClosingAnswers(app: FastifyInstance): void {
  // A callback hook: an async one costs a promise on every answer, and this one acts on few.
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    const answer = typeof payload === 'string' ? Buffer.from(payload) : payload == null ? Buffer.alloc(0) : payload;
    if (raw.complete || raw.destroyed || reply.getHeader('connection') !== 'close' || !Buffer.isBuffer(answer)) {
      done(null, payload);
      return;
    }
    reply.header('content-length', String(answer.length));
    done(null, Readable.from(heldOpen(answer, drained(raw, LINGER_MS)), { objectMode: false }));
  });
}
