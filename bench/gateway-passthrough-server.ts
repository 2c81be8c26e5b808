// The gateway under test of the gateway-passthrough suite, as its own process: the real gateway
// with every edge feature of gatewayFeatures() (ops, resilience, auth, limits, passthrough), the
// read cache off so every request goes to the upstream. `/healthz` tells the bench it is up.
//   node --import tsx bench/gateway-passthrough-server.ts <upstream root> <port>
import { gatewayConfig } from '../gateway/config.js';
import { loadGeneratedArtefacts } from '../gateway/model-artefacts.js';
import { buildGateway } from '../gateway/server.js';

const [upstreamRoot, port] = process.argv.slice(2);
if (upstreamRoot === undefined || port === undefined) throw new Error('usage: gateway-passthrough-server.ts <upstream root> <port>');
const config = gatewayConfig({
  host: '127.0.0.1',
  port: Number(port),
  logLevel: 'silent',
  upstream: { url: upstreamRoot },
  cache: { enabled: false },
});
const artefacts = await loadGeneratedArtefacts(new URL('../generated', import.meta.url).pathname);
const app = buildGateway(config, artefacts, { logger: false });
await app.listen({ host: config.host, port: config.port });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
