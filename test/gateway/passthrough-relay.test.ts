// Issue 30: a relay that only relays. An upstream that writes the gateway's root into its answers
// itself (it believes X-Forwarded-Host/-Proto, as our service does with --trust-proxy and
// `timegate start` runs it) can be named so (`--upstream-writes-gateway-root`); its bodies then
// pass through exactly as sent, with their length, unscanned. Without the setting, or where the
// upstream's root path is not the gateway's (it writes the gateway's host with its own path), the
// gateway rewrites every root in the body, as before.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../gateway/start.js';
import { startGatewayInFront } from '../helpers/gateway.js';

/** An upstream that answers every request with a JSON page naming `root` (its own root). */
async function startNamingUpstream(rootPath: string): Promise<{ root: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}${rootPath}`;
    const body = Buffer.from(JSON.stringify({ d: { results: [{ __metadata: { uri: `${root}/Projects(1)` }, Name: 'A' }], __next: `${root}/Projects?$skiptoken=1` } }));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    root: `http://127.0.0.1:${(server.address() as AddressInfo).port}${rootPath}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('the OData relay of an upstream that writes the gateway root itself', () => {
  const gateways: RunningGateway[] = [];
  let same: Awaited<ReturnType<typeof startNamingUpstream>>;
  let other: Awaited<ReturnType<typeof startNamingUpstream>>;
  beforeAll(async () => {
    same = await startNamingUpstream('/V1/Api.svc');
    other = await startNamingUpstream('/sap/TIME_SRV');
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await same?.close();
    await other?.close();
  });

  const read = async (upstreamRoot: string, writesGatewayRoot: boolean) => {
    const config = { cache: { enabled: false }, upstream: { writesGatewayRoot } };
    const gateway = await startGatewayInFront(upstreamRoot, { config });
    gateways.push(gateway);
    const answer = await fetch(`${gateway.origin}/V1/Api.svc/Projects?$format=json`, { headers: { 'x-serviceapikey': 'k' } });
    return { status: answer.status, length: answer.headers.get('content-length'), text: await answer.text(), gatewayRoot: `${gateway.origin}/V1/Api.svc` };
  };

  it('passes the body through as the upstream sent it, with its length, when told so', async () => {
    const answer = await read(same.root, true);
    expect(answer.status).toBe(200);
    // Proof that nothing looked at the bytes: this upstream names its own host, and it stays.
    expect(answer.text).toContain(`"uri":"${same.root}/Projects(1)"`);
    expect(answer.length).toBe(String(Buffer.byteLength(answer.text)));
  });

  it('rewrites every root when not told so', async () => {
    const answer = await read(same.root, false);
    expect(answer.text).toContain(`"uri":"${answer.gatewayRoot}/Projects(1)"`);
    expect(answer.text).toContain(`"__next":"${answer.gatewayRoot}/Projects?$skiptoken=1"`);
    expect(answer.text).not.toContain(same.root);
  });

  it('rewrites every root when the upstream\'s root path is not the gateway\'s, told so or not', async () => {
    const answer = await read(other.root, true);
    expect(answer.text).toContain(`"uri":"${answer.gatewayRoot}/Projects(1)"`);
    expect(answer.text).not.toContain(other.root);
  });
});
