// A Redis link whose subscribed connections can stall (Redis paused for that client, a half-open
// TCP connection): a TCP relay on loopback that passes every byte on, except that, while stalled,
// what Redis sends back to a connection that has sent SUBSCRIBE is held. Other connections (a
// gateway's main one) go on as usual. The relay counts the commands it passes on, so a test can
// tell a hit answered from an instance's copies (no MGET) from one read on Redis.
import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';

export interface StallingLink {
  /** `127.0.0.1:<port>`: connect here instead of to Redis. */
  readonly host: string;
  /** From now on, what Redis sends to a subscribed connection is held, until resume(). */
  stall(): void;
  /** What was held, and all that follows, flows again. */
  resume(): void;
  /** How many `name` commands (lower-case) the relay has passed on to Redis. */
  commandsSent(name: string): number;
  close(): Promise<void>;
}

/** How a command's name looks inside a RESP array: `$4\r\nmget\r\n`. */
const bulk = (name: string): string => `$${name.length}\r\n${name}\r\n`;

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

export async function startStallingLink(target: { host: string; port: number }): Promise<StallingLink> {
  const sockets = new Set<Socket>();
  const flushes = new Set<() => void>();
  let isStalled = false;
  // What every connection sent, lower-cased: the tests send a few thousand commands at most.
  const sent: string[] = [];
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    track(client);
    track(upstream);
    let isSubscribed = false;
    const held: Buffer[] = [];
    const flush = (): void => {
      for (const chunk of held.splice(0)) if (!client.destroyed) client.write(chunk);
    };
    flushes.add(flush);
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1').toLowerCase();
      if (text.includes(bulk('subscribe'))) isSubscribed = true;
      sent.push(text);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (isStalled && isSubscribed) held.push(chunk);
      else if (!client.destroyed) client.write(chunk);
    });
    upstream.on('close', () => client.destroy());
    client.on('close', () => {
      flushes.delete(flush);
      upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    host: `127.0.0.1:${address.port}`,
    stall: () => {
      isStalled = true;
    },
    resume: () => {
      isStalled = false;
      for (const flush of flushes) flush();
    },
    commandsSent: (name) => sent.reduce((count, text) => count + occurrences(text, bulk(name)), 0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
