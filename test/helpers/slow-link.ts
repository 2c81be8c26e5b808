// A client farther from its server than the others are (a replica in another zone than Redis, a
// link under load): a TCP relay on loopback that passes every byte on, in order, but what the
// server sends back only `ms` later. What the client sends goes through at once.
import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';

export interface SlowLink {
  /** `127.0.0.1:<port>`: connect here instead of to the server. */
  readonly host: string;
  close(): Promise<void>;
}

export async function startSlowLink(target: { host: string; port: number }, ms: number): Promise<SlowLink> {
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
    client.pipe(upstream);
    // Each chunk is held for the same time, so the order of what comes back is kept.
    upstream.on('data', (chunk: Buffer) => {
      setTimeout(() => {
        if (!client.destroyed) client.write(chunk);
      }, ms);
    });
    upstream.on('close', () => setTimeout(() => client.destroy(), ms));
    client.on('close', () => upstream.destroy());
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
