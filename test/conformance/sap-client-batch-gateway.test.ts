// Conformance: the SAP Cloud SDK's batch() through the gateway's passthrough, as against the
// service (sap-client-batch.test.ts): three reads and a changeset of 20 time-entry creates and one
// update in one $batch; then a changeset whose 20th create is invalid: one 409 for the changeset,
// none of its entries stored. The bytes the SDK received are captured on the wire (a relay in
// front of the gateway): every URI and Location in the multipart answer names the gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../gateway/start.js';
import { testDatabases } from '../helpers/databases.js';
import { startFlakyRelay } from '../helpers/flaky-relay.js';
import type { FlakyRelay } from '../helpers/flaky-relay.js';
import { startGatewayInFront } from '../helpers/gateway.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';
import { generateSapClient, runSapBatch } from './sap-client.js';
import type { GeneratedSapClient } from './sap-client.js';

describe.each(testDatabases)('the SAP Cloud SDK\'s batch through the gateway passthrough on $name', (kind) => {
  let service: TestService;
  let gateway: RunningGateway;
  let wire: FlakyRelay;
  let client: GeneratedSapClient;
  let projectId: number;

  beforeAll(async () => {
    service = await startTestService(kind);
    gateway = await startGatewayInFront(service.root);
    wire = await startFlakyRelay(gateway.origin);
    client = await generateSapClient(`${wire.root}/$metadata`, { 'x-serviceapikey': service.admin.apiKey });
    projectId = (await service.database.db.selectFrom('projects').select('id').where('name', '=', 'Website-Relaunch').executeTakeFirstOrThrow()).id;
  }, 120_000);

  afterAll(async () => {
    await client?.dispose();
    await wire?.close();
    await gateway?.close();
    await service?.close();
  });

  const stored = (comment: string) => service.database.db.selectFrom('time_entries').select('id')
    .where('comment', 'like', `${comment} #%`).orderBy('id').execute();

  it('sends three reads and a changeset of 20 creates and an update in one $batch, reads every answer, and sees only gateway URIs', async () => {
    const origin = new URL(wire.root).origin;
    const result = await runSapBatch(client, origin, service.admin.apiKey, projectId, { creates: 20, comment: 'SDK-Batch-GW' });
    expect(result.kinds).toEqual(['read', 'read', 'read', 'write']);
    expect(result.projectName).toBe('Website-Relaunch');
    expect(result.filteredIds).toEqual([projectId]);
    expect(result.recentEntryCount).toBe(5);
    expect(result.writeStatuses).toEqual([...Array.from({ length: 20 }, () => 201), 204]);
    expect((await stored('SDK-Batch-GW')).map((row) => row.id)).toEqual(result.createdIds);
    const batches = service.answered().filter((r) => r.url.endsWith('/$batch') && r.method === 'POST');
    expect(batches.map((r) => [r.status, r.headers['x-forwarded-host']])).toEqual([[202, new URL(wire.root).host]]);

    const received = wire.received();
    expect(received).not.toContain(service.origin);
    const locations = [...received.matchAll(/^location: (.+)$/gim)].map((m) => (m[1] as string).trim());
    expect(locations).toHaveLength(20);
    expect(locations.every((location) => location.startsWith(`${wire.root}/TimeEntries(`))).toBe(true);
  }, 60_000);

  it('gets one 409 for a changeset whose 20th create is invalid, and none of its entries is stored', async () => {
    const origin = new URL(wire.root).origin;
    const result = await runSapBatch(client, origin, service.admin.apiKey, projectId, { creates: 20, invalidAt: 20, comment: 'SDK-Batch-GW-Fehler' });
    expect(result.kinds).toEqual(['read', 'read', 'read', 'error']);
    expect(result.error).toEqual({ status: 409, message: 'Der Zeiteintrag kann nicht gespeichert werden: Die Endzeit (EndTime) liegt vor der Startzeit (StartTime).' });
    expect(await stored('SDK-Batch-GW-Fehler')).toEqual([]);
  }, 60_000);
});
