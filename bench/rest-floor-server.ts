// The floor of the gateway-rest suite: the least a REST face in JavaScript can do, node:http in
// front of an undici pool. Each REST path is sent upstream as the exact request the gateway
// sent for it; a JSON answer is read with one JSON.parse and written with one JSON.stringify (no
// names, dates or decimals changed, nothing validated, no cursor), an Atom answer is relayed
// unread (no XML parser could be cheaper than none). Beside the gateway, in the same run, it
// shows what the extra hop and the two native JSON passes alone cost on this machine.
//   node --import tsx bench/rest-floor-server.ts <upstream origin> <port> <json|atom> [<REST path> <upstream path>]...
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [upstream, port, format, ...pairs] = process.argv.slice(2);
if (upstream === undefined || port === undefined || (format !== 'json' && format !== 'atom') || pairs.length % 2 !== 0) {
  throw new Error('usage: rest-floor-server.ts <upstream origin> <port> <json|atom> [<REST path> <upstream path>]...');
}
const routes = new Map<string, string>();
for (let i = 0; i < pairs.length; i += 2) routes.set(pairs[i] as string, pairs[i + 1] as string);
const pool = new Pool(upstream, { connections: 1 });
const accept = format === 'json' ? 'application/json' : 'application/atom+xml';

/** The REST shape at its least: a feed's entries as `items`, an entry as itself. */
function restText(odata: string): string {
  const d = (JSON.parse(odata) as { d: { results?: unknown[] } }).d;
  return JSON.stringify(Array.isArray(d.results) ? { items: d.results.slice(0, 100), next: null } : d);
}

const server = createServer((request, response) => {
  const path = routes.get(request.url ?? '');
  if (path === undefined) {
    response.writeHead(request.url === '/healthz' ? 200 : 404).end();
    return;
  }
  const key = request.headers['x-serviceapikey'] ?? '';
  pool.request({ method: 'GET', path, headers: { 'x-serviceapikey': key, accept } })
    .then(async (answer) => {
      const body = format === 'json' ? restText(await answer.body.text()) : Buffer.from(await answer.body.arrayBuffer());
      response.writeHead(answer.statusCode, {
        'content-type': format === 'json' ? 'application/json; charset=utf-8' : String(answer.headers['content-type']),
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    })
    .catch((error: unknown) => response.writeHead(502).end(String(error)));
});
server.listen(Number(port), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
