// A Redis link whose connections can stall: a TCP relay on loopback that passes every byte on,
// except while stalled, for one kind of connection: those that have sent SUBSCRIBE (a gateway's
// subscriber; Redis paused for that client: what Redis sends back is held), or the others (a
// gateway's main connections, those opened during the stall too; a half-open link: what they
// send is held as well). The other kind goes on as usual. The relay counts the commands it passes
// on, so a test can tell a hit answered from an instance's copies (no MGET) from one read on Redis.
import { startTcpRelay } from './tcp-relay.js';

export interface StallingLink {
  /** `127.0.0.1:<port>`: connect here instead of to Redis. */
  readonly host: string;
  /**
   * From now on, what Redis sends to a subscribed connection (`subscribed`, the default) is held,
   * or what passes either way on every other one (`main`), until resume().
   */
  stall(connections?: StalledConnections): void;
  /** What was held, and all that follows, flows again. */
  resume(): void;
  /** How many `name` commands (lower-case) the relay has passed on to Redis. */
  commandsSent(name: string): number;
  close(): Promise<void>;
}

export type StalledConnections = 'subscribed' | 'main';

/** How a command's name looks inside a RESP array: `$4\r\nmget\r\n`. */
const bulk = (name: string): string => `$${name.length}\r\n${name}\r\n`;

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

export async function startStallingLink(target: { host: string; port: number }): Promise<StallingLink> {
  const flushes = new Set<() => void>();
  let stalled: StalledConnections | undefined;
  // What every connection sent, lower-cased: the tests send a few thousand commands at most.
  const sent: string[] = [];
  const relay = await startTcpRelay(target, (client, upstream) => {
    let isSubscribed = false;
    const isHeld = (): boolean => stalled !== undefined && isSubscribed === (stalled === 'subscribed');
    const heldReplies: Buffer[] = [];
    const heldCommands: Buffer[] = [];
    const pass = (chunk: Buffer, text: string): void => {
      sent.push(text);
      upstream.write(chunk);
    };
    const flush = (): void => {
      for (const chunk of heldCommands.splice(0)) pass(chunk, chunk.toString('latin1').toLowerCase());
      for (const chunk of heldReplies.splice(0)) if (!client.destroyed) client.write(chunk);
    };
    flushes.add(flush);
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1').toLowerCase();
      if (text.includes(bulk('subscribe'))) isSubscribed = true;
      // A stalled main connection is a dead link both ways: its commands do not reach Redis
      // either (a write's invalidation among them). A subscribed one only hears nothing back.
      if (stalled === 'main' && isHeld()) heldCommands.push(chunk);
      else pass(chunk, text);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (isHeld()) heldReplies.push(chunk);
      else if (!client.destroyed) client.write(chunk);
    });
    upstream.on('close', () => client.destroy());
    client.on('close', () => {
      flushes.delete(flush);
      upstream.destroy();
    });
  });
  return {
    host: relay.host,
    stall: (connections = 'subscribed') => {
      stalled = connections;
    },
    resume: () => {
      stalled = undefined;
      for (const flush of flushes) flush();
    },
    commandsSent: (name) => sent.reduce((count, text) => count + occurrences(text, bulk(name)), 0),
    close: () => relay.close(),
  };
}
