// The gateway under test of the gateway-rest suite, as its own process: the real gateway with
// the edge features of gatewayFeatures(), the read cache off so every REST call is translated
// and sent upstream, speaking JSON or Atom to the upstream. `/healthz` tells the bench it is up.
//   node --import tsx bench/gateway-rest-server.ts <upstream root> <port> <json|atom>
import { gatewayConfig } from '../gateway/config.js';
import { loadGeneratedArtefacts } from '../gateway/model-artefacts.js';
import { buildGateway } from '../gateway/server.js';

const [upstreamRoot, port, format] = process.argv.slice(2);
if (upstreamRoot === undefined || port === undefined || (format !== 'json' && format !== 'atom')) {
  throw new Error('usage: gateway-rest-server.ts <upstream root> <port> <json|atom>');
}
const config = gatewayConfig({
  host: '127.0.0.1',
  port: Number(port),
  logLevel: 'silent',
  upstream: { url: upstreamRoot, format },
  cache: { enabled: false },
});
const artefacts = await loadGeneratedArtefacts(new URL('../generated', import.meta.url).pathname);
const app = buildGateway(config, artefacts, { logger: false });
await app.listen({ host: config.host, port: config.port });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
