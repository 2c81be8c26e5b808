// A client farther from its server than the others are (a replica in another zone than Redis, a
// link under load): a TCP relay on loopback that passes every byte on, in order, but what the
// server sends back only `ms` later. What the client sends goes through at once.
import type { TcpRelay } from './tcp-relay.js';
import { startTcpRelay } from './tcp-relay.js';

export type SlowLink = TcpRelay;

export function startSlowLink(target: { host: string; port: number }, ms: number): Promise<SlowLink> {
  return startTcpRelay(target, (client, upstream) => {
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
}
