// A body over the limit is refused with 413 while the client is still sending it. Fastify then
// closes the connection; closed at once, over bytes not yet read, the kernel answers the client's
// next segment with a reset, and a client still writing meets EPIPE or ECONNRESET instead of the
// 413 (RFC 9112 §9.6, "the TCP reset problem"; CI's edge fuzz met it once in 20,000 requests).
// The service sends its answer at once and closes only once it has read such a body to its end,
// within a bound (service/http/closing-answers.ts).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlite } from '../helpers/databases.js';
import { sendWholeThenRead } from '../helpers/whole-request.js';
import type { TestDatabasePlace } from '../helpers/databases.js';
import { startServiceProcess } from '../helpers/service-process.js';
import type { ServiceProcess } from '../helpers/service-process.js';

const BIG = Buffer.alloc(8 * 1024 * 1024, 0x61);

describe('a body over the limit, sent whole without waiting', () => {
  // A process of its own, as in production: in one process with its client the server reads
  // what the client writes in the same turns, and the reset was never seen.
  let place: TestDatabasePlace;
  let service: ServiceProcess;
  let origin: string;
  beforeAll(async () => {
    place = await sqlite.create();
    service = await startServiceProcess(['--db', place.url]);
    origin = new URL(service.root).origin;
  });
  afterAll(async () => {
    await service?.stop();
    await place?.dispose();
  });

  it('gets its 413 on every connection, OData write and web form alike, never a reset', async () => {
    const odata = 'PUT /V1/Api.svc/Projects(1) HTTP/1.1\r\nHost: x\r\nX-ServiceApiKey: tg_any\r\nContent-Type: application/json\r\n';
    const form = 'POST /sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n';
    const answers = await Promise.all([odata, form, odata, form].flatMap((head) => [
      sendWholeThenRead(origin, head, BIG),
      sendWholeThenRead(origin, head, BIG, 'chunked'),
    ]));
    // Before, every one of them met EPIPE: the answer was lost with the reset.
    expect(answers).toEqual(Array(8).fill('HTTP/1.1 413 Payload Too Large'));
  }, 30_000);

  it('is answered at once, and closed within the bound, when the client declares more than it ever sends', async () => {
    const { hostname, port } = new URL(origin);
    const started = performance.now();
    let answeredMs = Number.NaN;
    const answer = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      const socket = connect({ host: hostname, port: Number(port) }, () => {
        socket.write('PUT /V1/Api.svc/Projects(1) HTTP/1.1\r\nHost: x\r\nX-ServiceApiKey: tg_any\r\n'
          + `Content-Type: application/json\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n{"Name":`);
      });
      socket.on('data', (chunk: Buffer) => {
        if (chunks.length === 0) answeredMs = performance.now() - started;
        chunks.push(chunk);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answeredMs).toBeLessThan(1_500);
    expect(performance.now() - started).toBeLessThan(5_000);
  }, 20_000);
});
