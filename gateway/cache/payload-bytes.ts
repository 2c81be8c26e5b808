// A reply payload as bytes, whatever Fastify's onSend hands over: a string, a Buffer, or a stream
// (the passthrough streams the upstream's body). Only responses the cache stores are gathered.
import type { Readable } from 'node:stream';

function isReadable(payload: unknown): payload is Readable {
  return typeof payload === 'object' && payload !== null && typeof (payload as Readable).pipe === 'function';
}

export async function bodyBytes(payload: unknown): Promise<Buffer> {
  if (payload === null || payload === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(payload)) return payload;
  if (typeof payload === 'string') return Buffer.from(payload);
  if (isReadable(payload)) {
    const chunks: Buffer[] = [];
    for await (const chunk of payload) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks);
  }
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  throw new TypeError(`cannot store a ${typeof payload} payload`);
}

/** Drops a payload that will not be sent (a stream is closed so its upstream socket is freed). */
export function discardPayload(payload: unknown): void {
  if (isReadable(payload)) payload.destroy();
}
