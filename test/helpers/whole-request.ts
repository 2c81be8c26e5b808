// A client that writes its whole request (head and body) before it reads anything, as a client
// busy sending a large body does: a server that answers early and closes over bytes it has not
// read resets the connection, and this client then loses the answer (RFC 9112 §9.6).
import { connect } from 'node:net';

/**
 * The status line of the answer to `head` (request line and header fields, each ending in CRLF,
 * without the blank line) followed by `body`, framed by its length or chunked; else what the
 * client met instead (`EPIPE`, `ECONNRESET`, `no answer`).
 */
export function sendWholeThenRead(origin: string, head: string, body: Buffer, framing: 'length' | 'chunked' = 'length'): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let failure = 'no answer';
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      if (framing === 'length') {
        socket.write(`${head}Content-Length: ${body.length}\r\n\r\n`);
        socket.write(body);
      } else {
        socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n`);
        socket.write(body);
        socket.write('\r\n0\r\n\r\n');
      }
      socket.pause();
      setTimeout(() => socket.resume(), 300);
    });
    const statusLine = () => /^HTTP\/1\.1 \d{3} [^\r]*\r\n/.exec(Buffer.concat(chunks).toString('latin1'))?.[0].trimEnd();
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // Read is read: a server that keeps the connection open after its answer is not waited for.
      const line = statusLine();
      if (line !== undefined) {
        resolve(line);
        socket.destroy();
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (failure = error.code ?? error.message));
    socket.on('close', () => resolve(statusLine() ?? failure));
  });
}
