// What the adversarial suites send that fetch() and undici will not: bytes after a request that
// declared no body, `Expect: 100-continue` with the wait for 100 Continue a curl does, and a
// stand-in upstream that takes its time. Plain node:http and node:net, so the requests reach the
// gateway exactly as written.
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** Whether the gateway said 100 Continue before its answer. */
  readonly continued: boolean;
}

/**
 * A request with `Expect: 100-continue`, sent the way curl sends a large body: the headers,
 * then the body once 100 Continue arrives (or after 1 s without an answer, as curl does).
 * With `declaredLength` the request claims that many bytes; it sends them only when asked to.
 */
export function expectContinue(origin: string, method: string, path: string, headers: Record<string, string>, body: Buffer, declaredLength = body.length): Promise<RawAnswer> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    let continued = false;
    let isBodySent = false;
    const req = request({ host: url.hostname, port: url.port, method, path, headers: { ...headers, expect: '100-continue', 'content-length': String(declaredLength) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, continued }));
    });
    const sendBody = () => {
      if (isBodySent) return;
      isBodySent = true;
      if (declaredLength === body.length) req.end(body);
      else req.destroy();
    };
    req.on('continue', () => {
      continued = true;
      sendBody();
    });
    req.on('error', (error) => (isBodySent && declaredLength !== body.length ? undefined : reject(error)));
    req.flushHeaders();
    setTimeout(sendBody, 1_000).unref();
  });
}

/**
 * A GET with node:http, whose headers are exactly `headers` (and Host, Connection), that gives
 * up after `ms`. With `trailing`, it declares no body and sends those bytes anyway, as Node's own
 * client does for `request({ method: 'GET' }).end('x')` (no length, no chunking for a GET): the
 * server reads them as the next request line and drops the connection while the GET is in
 * progress.
 */
export function plainGet(origin: string, path: string, headers: Record<string, string>, ms: number, trailing?: string): Promise<string> {
  const url = new URL(origin);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      resolve('hung');
      req.destroy();
    }, ms);
    const done = (answer: string) => {
      clearTimeout(timer);
      resolve(answer);
    };
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => done(String(res.statusCode)));
      res.on('error', () => done(String(res.statusCode)));
    });
    req.on('error', (error) => done(error.message));
    req.end(trailing);
  });
}

/** `fetch` that gives up after `ms`: a hang is a failure with a name, not a test timeout. */
export async function fetchWithin(ms: number, url: string, init: RequestInit = {}): Promise<Response | 'hung'> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    const response = await fetch(url, { ...init, signal: controller.signal });
    await response.clone().arrayBuffer();
    return response;
  } catch (error) {
    if (controller.signal.aborted) return 'hung';
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

export interface SlowUpstream {
  /** `http://127.0.0.1:<port>/V1/Api.svc` */
  readonly root: string;
  /** Requests received so far. */
  readonly received: () => number;
  close(): Promise<void>;
}

/** An OData upstream that holds every request for `delayMs`, then answers an empty JSON feed. */
export async function startSlowUpstream(delayMs: number): Promise<SlowUpstream> {
  let received = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    received++;
    req.resume();
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"d":{"results":[]}}');
    }, delayMs);
    timers.add(timer);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    root: `http://127.0.0.1:${port}/V1/Api.svc`,
    received: () => received,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

