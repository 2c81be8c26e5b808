// The baseline every server suite measures beside itself: a bare Fastify route answering every
// GET with fixed bytes (a file the suite wrote), on the same core as the server under test and
// loaded the same way. What the server under test does beyond this is the cost of its own work.
//   node --import tsx bench/baseline-server.ts <body file> <content type> <port>
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [bodyFile, contentType, port] = process.argv.slice(2);
if (bodyFile === undefined || contentType === undefined || port === undefined) {
  throw new Error('usage: baseline-server.ts <body file> <content type> <port>');
}
// A string, as the service sends its documents: both pay for encoding the text on send.
const body = readFileSync(bodyFile, 'utf8');
const app = Fastify({ logger: false });
app.get('/*', (_request, reply) => reply.header('content-type', contentType).send(body));
app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
