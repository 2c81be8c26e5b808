// The floor of the passthrough suite: the least a proxy can do, node:http in front of an undici
// pool, the answer piped on as it arrives with the upstream's length; no routing, no auth, no
// rewrite, no metrics. Beside the gateway, in the same run, it shows what the extra hop alone
// costs on this machine (two more loopback trips and a second process to wake), which the
// gateway cannot undercut.
//   node --import tsx bench/bare-proxy-server.ts <upstream origin> <port>
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { stripHopByHop } from '../gateway/passthrough/hop-by-hop.js';

const [upstream, port] = process.argv.slice(2);
if (upstream === undefined || port === undefined) throw new Error('usage: bare-proxy-server.ts <upstream origin> <port>');
const pool = new Pool(upstream, { connections: 16, pipelining: 1 });

const server = createServer((request, response) => {
  if (request.url === '/healthz') {
    response.end('ok');
    return;
  }
  const headers = stripHopByHop({ ...request.headers });
  delete headers.host;
  pool.request({ method: 'GET', path: request.url ?? '/', headers })
    .then((answer) => {
      response.writeHead(answer.statusCode, stripHopByHop({ ...answer.headers }));
      answer.body.pipe(response);
    })
    .catch((error: unknown) => response.writeHead(502).end(String(error)));
});
server.listen(Number(port), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
