// Real network trouble between a gateway and its upstream, for the resilience suites: a TCP
// relay on loopback in front of a real server that can drop the next connections or hold every
// connection for a while before passing it on, and keeps what came back (the wire as a client
// saw it); and a way to stop and restart the service itself on the same port and database.
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_SERVICE_CONFIG } from '../../service/config.js';
import { buildService } from '../../service/server.js';
import type { TestService } from './service.js';

export interface FlakyRelay {
  /** `http://127.0.0.1:<port>/V1/Api.svc`: the service root, reached through the relay. */
  readonly root: string;
  /** The next `count` connections are closed as soon as they open. */
  dropNext(count: number): void;
  /** Closes every connection open now (as a restarting upstream would); new ones are taken. */
  resetConnections(): Promise<void>;
  /** Every new connection waits this long before it is passed on (0: none). */
  delayConnections(ms: number): void;
  /** Connections taken and passed on so far. */
  readonly passed: () => number;
  /** Every byte the target sent back through the relay, as latin1 text (the wire as the client saw it). */
  readonly received: () => string;
  close(): Promise<void>;
}

export async function startFlakyRelay(targetOrigin: string): Promise<FlakyRelay> {
  const target = new URL(targetOrigin);
  let toDrop = 0;
  let delayMs = 0;
  let passed = 0;
  let isClosed = false;
  const downstream: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (toDrop > 0) {
      toDrop--;
      socket.destroy();
      return;
    }
    socket.pause();
    setTimeout(() => {
      if (isClosed) {
        socket.destroy();
        return;
      }
      passed++;
      const upstream = connect(Number(target.port), target.hostname);
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        socket.destroy();
      });
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
      upstream.on('data', (chunk: Buffer) => downstream.push(chunk));
      socket.pipe(upstream).pipe(socket);
      socket.resume();
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    root: `http://127.0.0.1:${address.port}/V1/Api.svc`,
    dropNext: (count) => {
      toDrop = count;
    },
    async resetConnections() {
      for (const socket of sockets) socket.destroy();
      // Let the client see the connections close before its next request.
      await new Promise((resolve) => setTimeout(resolve, 50));
    },
    delayConnections: (ms) => {
      delayMs = ms;
    },
    passed: () => passed,
    received: () => Buffer.concat(downstream).toString('latin1'),
    close: () =>
      new Promise<void>((resolve) => {
        isClosed = true;
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface RestartableService {
  /** The service stops listening (connections refused), as if its process died. */
  stop(): Promise<void>;
  /** The service answers again on the same port, over the same database. */
  start(): Promise<void>;
  /** Closes a restarted service (the first one is closed by the TestService). */
  close(): Promise<void>;
}

export function restartable(service: TestService): RestartableService {
  const port = Number(new URL(service.origin).port);
  let app: FastifyInstance = service.app;
  return {
    async stop() {
      app.server.closeAllConnections();
      await app.close();
    },
    async start() {
      app = buildService({ ...DEFAULT_SERVICE_CONFIG, authCacheTtlMs: 0, port }, service.database, { logger: false });
      await app.listen({ host: '127.0.0.1', port });
    },
    close: () => (app === service.app ? Promise.resolve() : app.close()),
  };
}
