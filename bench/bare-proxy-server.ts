// The floor of the passthrough suite: the least a proxy can do, node:http in front of an undici
// pool, the answer piped on as it arrives with the upstream's length; no routing, no auth, no
// rewrite, no metrics. Beside the gateway, in the same run, it shows what the extra hop alone costs on this
// machine (two more loopback trips and a second process to wake), which the gateway cannot undercut.
//   node --import tsx bench/bare-proxy-server.ts <upstream origin> <port>
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [upstream, port] = process.argv.slice(2);
if (upstream === undefined || port === undefined) throw new Error('usage: bare-proxy-server.ts <upstream origin> <port>');
const pool = new Pool(upstream, { connections: 16, pipelining: 1 });
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'host'];

const server = createServer((request, response) => {
  if (request.url === '/healthz') {
    response.end('ok');
    return;
  }
  const headers = { ...request.headers };
  for (const name of HOP_BY_HOP) delete headers[name];
  pool.request({ method: 'GET', path: request.url ?? '/', headers })
    .then((answer) => {
      const out: Record<string, string | string[] | undefined> = { ...answer.headers };
      for (const name of HOP_BY_HOP) delete out[name];
      response.writeHead(answer.statusCode, out);
      answer.body.pipe(response);
    })
    .catch((error: unknown) => response.writeHead(502).end(String(error)));
});
server.listen(Number(port), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
