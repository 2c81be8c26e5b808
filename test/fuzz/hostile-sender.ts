// Sends the requests of hostile-traffic.ts and says how each was answered: status and time until
// the answer's last byte. HTTP requests go over a keep-alive node:http agent (which sends what it
// is given: Expect, a body on a GET, any method token); raw ones are written to a fresh TCP
// connection byte for byte (which asks to be closed after the answer; the sender never half-closes
// it, as Node's server takes a half-close for an abandoned request), and their status read from
// the first final status line.
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import type { HostileRequest } from './hostile-traffic.js';

export interface Answer {
  /** The final status, or what went wrong: `hung` (no answer within the limit), `closed` (none at all), an error code. */
  readonly status: number | string;
  readonly ms: number;
}

const STATUS_LINE = /HTTP\/1\.[01] (\d{3})/g;

export class HostileSender {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });

  constructor(
    /** Where each target listens (the service's root and the gateway's OData face share a path). */
    private readonly places: Readonly<Record<HostileRequest['target'], { readonly host: string; readonly port: number }>>,
    /** How long an answer may take before it counts as hung. */
    private readonly limitMs: number,
  ) {}

  send(hostile: HostileRequest): Promise<Answer> {
    return hostile.kind === 'http' ? this.http(hostile) : this.raw(hostile);
  }

  close(): void {
    this.agent.destroy();
  }

  private http(hostile: Extract<HostileRequest, { kind: 'http' }>): Promise<Answer> {
    const place = this.places[hostile.target];
    const started = performance.now();
    return new Promise((resolve) => {
      let isDone = false;
      const done = (status: number | string) => {
        if (isDone) return;
        isDone = true;
        clearTimeout(timer);
        resolve({ status, ms: performance.now() - started });
      };
      const headers: Record<string, string> = { ...hostile.headers };
      if (hostile.body !== undefined) headers['content-length'] = String(hostile.body.length);
      const req = request({ host: place.host, port: place.port, method: hostile.method, path: hostile.path, headers, agent: this.agent }, (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 'no status'));
        res.on('error', () => done(res.statusCode ?? 'aborted'));
        res.on('aborted', () => done(res.statusCode ?? 'aborted'));
      });
      const timer = setTimeout(() => {
        done('hung');
        req.destroy();
      }, this.limitMs);
      // A refusal before the body is read closes the connection: the write may fail, the answer stands.
      req.on('error', (error: NodeJS.ErrnoException) => setTimeout(() => done(error.code ?? error.message), 50));
      req.end(hostile.body);
    });
  }

  private raw(hostile: Extract<HostileRequest, { kind: 'raw' }>): Promise<Answer> {
    const place = this.places[hostile.target];
    const started = performance.now();
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let isDone = false;
      const done = (status: number | string) => {
        if (isDone) return;
        isDone = true;
        clearTimeout(timer);
        socket.destroy();
        resolve({ status, ms: performance.now() - started });
      };
      const socket = connect({ host: place.host, port: place.port }, () => socket.write(hostile.bytes));
      const timer = setTimeout(() => done('hung'), this.limitMs);
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('latin1');
        const statuses = [...text.matchAll(STATUS_LINE)].map((match) => Number(match[1])).filter((status) => status >= 200);
        done(statuses[0] ?? 'closed');
      });
    });
  }
}
