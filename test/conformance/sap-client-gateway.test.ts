// Conformance through the gateway: the SAP Cloud SDK client generated from the gateway's
// `$metadata` runs the same cycle as against the service (sap-client.test.ts), now through the
// OData passthrough face. The bytes the client received are captured on the wire (a relay in
// front of the gateway): every absolute URI in them, __metadata/__deferred/__next and Location
// alike, names the address the client used, never the service behind the gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../gateway/start.js';
import { testDatabases } from '../helpers/databases.js';
import { startFlakyRelay } from '../helpers/flaky-relay.js';
import type { FlakyRelay } from '../helpers/flaky-relay.js';
import { startGatewayInFront } from '../helpers/gateway.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';
import { expectSapCycle, generateSapClient, runSapCycle } from './sap-client.js';
import type { GeneratedSapClient } from './sap-client.js';

const VOCABULARY_ROOTS = ['http://www.w3.org', 'http://schemas.microsoft.com', 'http://docs.oasis-open.org', 'http://www.sap.com'];

describe.each(testDatabases)('a SAP Cloud SDK client through the gateway passthrough on $name', (kind) => {
  let service: TestService;
  let gateway: RunningGateway;
  let wire: FlakyRelay;
  let client: GeneratedSapClient;

  beforeAll(async () => {
    service = await startTestService(kind);
    gateway = await startGatewayInFront(service.root);
    wire = await startFlakyRelay(gateway.origin);
    client = await generateSapClient(`${wire.root}/$metadata`, { 'x-serviceapikey': service.admin.apiKey });
  }, 120_000);

  afterAll(async () => {
    await client?.dispose();
    await wire?.close();
    await gateway?.close();
    await service?.close();
  });

  it('runs the whole cycle, sees its own writes, and only ever sees gateway URIs', async () => {
    const clientOrigin = new URL(wire.root).origin;
    const result = await runSapCycle(client, clientOrigin, service.admin.apiKey, 'SDK-Projekt via Gateway');
    expectSapCycle(result, 'SDK-Projekt via Gateway');

    // Every request reached the service through the gateway (the SDK's HEAD for a CSRF token and
    // its PATCH included), each with the one canonical credential.
    const seen = service.answered().filter((request) => request.headers['x-forwarded-host'] !== undefined);
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.some((r) => r.method === 'HEAD' && r.status === 200)).toBe(true);
    expect(seen.some((r) => r.method === 'PATCH' && r.status === 204)).toBe(true);
    expect(seen.every((r) => r.headers['x-serviceapikey'] === service.admin.apiKey && r.headers.authorization === undefined)).toBe(true);

    const received = wire.received();
    expect(received).not.toContain(service.origin);
    const uris = [...received.replaceAll('\\/', '/').matchAll(/https?:\/\/[^"'<>\s)]+/g)].map((m) => m[0]).filter((uri) => !VOCABULARY_ROOTS.some((root) => uri.startsWith(root)));
    expect(uris.length).toBeGreaterThan(5);
    expect(uris.filter((uri) => !uri.startsWith(`${wire.root}`))).toEqual([]);
    const locations = [...received.matchAll(/^location: (.+)$/gim)].map((m) => (m[1] as string).trim());
    expect(locations.length).toBeGreaterThanOrEqual(2);
    expect(locations.every((location) => location.startsWith(`${wire.root}/`))).toBe(true);
    expect(received).toMatch(/"uri":"http:\/\/127\.0\.0\.1:\d+\/V1\/Api\.svc\/Projects\(\d+\)"/);

    const rows = await service.database.db.selectFrom('projects').select('id').where('id', '=', result.created.id).execute();
    expect(rows).toEqual([]);
  }, 60_000);
});
