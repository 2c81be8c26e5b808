// A TCP relay on loopback in front of a server, for the links that stand between a client and its
// server in tests (slow-link.ts, stalling-link.ts): each client connection gets its own upstream
// connection, and `wire` decides what passes between the two; the relay keeps track of both, so
// close() ends every connection it made.
import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';

export interface TcpRelay {
  /** `127.0.0.1:<port>`: connect here instead of to the server. */
  readonly host: string;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }, wire: (client: Socket, upstream: Socket) => void): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    track(client);
    track(upstream);
    wire(client, upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    host: `127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
