// The gateway under test of the gateway-cache suite, as its own process: the real gateway (REST
// face, read cache, rate limiter) in front of an upstream, with the OData face as a plain
// forwarder (cache hits never reach it). `/healthz` tells the bench it is up.
//   node --import tsx bench/gateway-cache-server.ts <upstream root> <port> <rate limit n/time | none>
import { cacheFeature } from '../gateway/cache/cache-feature.js';
import { gatewayConfig } from '../gateway/config.js';
import { rateLimitFeature } from '../gateway/limits/rate-limit-feature.js';
import { parseRateLimit } from '../gateway/limits/rate-limit-config.js';
import { loadGeneratedArtefacts } from '../gateway/model-artefacts.js';
import { buildGateway } from '../gateway/server.js';
import { plainPassthrough } from '../test/gateway/cache-fixture.js';

const [upstreamRoot, port, limitText] = process.argv.slice(2);
if (upstreamRoot === undefined || port === undefined || limitText === undefined) {
  throw new Error('usage: gateway-cache-server.ts <upstream root> <port> <rate limit n/time | none>');
}
const limit = limitText === 'none' ? undefined : parseRateLimit(limitText);
const config = gatewayConfig({
  host: '127.0.0.1',
  port: Number(port),
  logLevel: 'silent',
  upstream: { url: upstreamRoot },
  cache: { defaultTtlSeconds: 3_600 },
  rateLimit: { default: limit },
});
const artefacts = await loadGeneratedArtefacts(new URL('../generated', import.meta.url).pathname);
const app = buildGateway(config, artefacts, { logger: false, features: [rateLimitFeature(), cacheFeature(), plainPassthrough] });
app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
await app.listen({ host: config.host, port: config.port });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
