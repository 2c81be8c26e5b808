// Request hygiene, before anything else looks at a request (the cache, the limits, the upstream):
// what HTTP allows a client to send but neither face can serve is refused here, as typed errors
// that the face the router chose writes in its own format, and none of it reaches the breaker.
//
//   Expect        the gateway meets `Expect: 100-continue` itself: Node's server would answer
//                 100 Continue at once; instead it is sent when the body is about to be read,
//                 after the hooks that may refuse the request (a refusal then goes out without
//                 it, and closes the connection, as the body was never read). Any other
//                 expectation is a 417. Expect is never forwarded (undici refuses to send it).
//   body limit    a declared Content-Length above `--body-limit` is a 413 before the body is
//                 read; a chunked body is cut off at the limit by the faces' body parsers (413).
//   bodies        a GET, HEAD or DELETE that carries a body is a 400: no operation reads one, and
//                 a body the gateway does not read would be taken for the next request.
//   closing       an answer that closes the connection before the body was read waits for the
//                 body before it closes (closing-answers.ts), so the client can read it.
//   URL           a path that does not decode (`%ZZ`, `%ED%A0%80`) is routed as if its `%` were
//                 escaped, so its face refuses it with a 400 in its own format.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { registerClosingAnswers } from './closing-answers.js';
import { BodyNotAllowedError, ExpectationFailedError, MalformedUrlError, PayloadTooLargeError } from './errors.js';
import type { GatewayFeature } from './features.js';

const AWAITS_CONTINUE = Symbol('timegate.awaitsContinue');
const BAD_EXPECTATION = Symbol('timegate.badExpectation');
const MALFORMED_URL = Symbol('timegate.malformedUrl');

type Marked = IncomingMessage & { [AWAITS_CONTINUE]?: boolean; [BAD_EXPECTATION]?: boolean; [MALFORMED_URL]?: boolean };

const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE']);

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Fastify's `rewriteUrl`: a path the router could not decode (a broken escape, or bytes that are
 * no UTF-8) gets every `%` escaped, and the request is marked for the hygiene hook to refuse.
 */
export function repairUrl(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const queryStart = url.indexOf('?');
  const path = queryStart < 0 ? url : url.slice(0, queryStart);
  if (!path.includes('%')) return url;
  try {
    decodeURIComponent(path);
    return url;
  } catch {
    (request as Marked)[MALFORMED_URL] = true;
    return path.replaceAll('%', '%25') + (queryStart < 0 ? '' : url.slice(queryStart));
  }
}

/** What hygiene refuses `raw` for, if anything. */
function refusalOf(raw: Marked, method: string, bodyLimitBytes: number): Error | undefined {
  if (raw[MALFORMED_URL]) return new MalformedUrlError();
  if (raw[BAD_EXPECTATION]) return new ExpectationFailedError();
  if (BODYLESS_METHODS.has(method) && hasBody(raw)) return new BodyNotAllowedError(method);
  if (Number(raw.headers['content-length']) > bodyLimitBytes) return new PayloadTooLargeError(`the request body is larger than the gateway accepts (${bodyLimitBytes} bytes)`);
  return undefined;
}

function registerRequestHygiene(app: FastifyInstance, bodyLimitBytes: number): void {
  // Node answers these itself unless someone listens; the request then goes on as any other.
  app.server.on('checkContinue', (request: Marked, response: ServerResponse) => {
    request[AWAITS_CONTINUE] = true;
    app.server.emit('request', request, response);
  });
  app.server.on('checkExpectation', (request: Marked, response: ServerResponse) => {
    request[BAD_EXPECTATION] = true;
    app.server.emit('request', request, response);
  });

  // Callback hooks, as nothing here waits: an async hook costs a promise on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    done(refusalOf(request.raw as Marked, request.method, bodyLimitBytes));
  });

  // Every hook that may refuse has passed: the client may send its body.
  app.addHook('preParsing', (request, reply, payload, done) => {
    const raw = request.raw as Marked;
    if (raw[AWAITS_CONTINUE]) {
      raw[AWAITS_CONTINUE] = false;
      reply.raw.writeContinue();
    }
    done(null, payload);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    // Refused before its body was asked for: the client may send it now or never, so the
    // connection cannot carry another request.
    if ((request.raw as Marked)[AWAITS_CONTINUE] || (request.raw as Marked)[BAD_EXPECTATION]) reply.header('connection', 'close');
    done(null, payload);
  });
  registerClosingAnswers(app);
}

export function hygieneFeature(): GatewayFeature {
  return {
    name: 'hygiene',
    register(app, parts) {
      registerRequestHygiene(app, parts.config.bodyLimitBytes);
    },
  };
}
