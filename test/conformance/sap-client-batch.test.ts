// Conformance: the SAP Cloud SDK's batch() against the service: three reads and a changeset of 20
// time-entry creates and one update in one $batch, every answer mapped back by the SDK; then a
// changeset whose 20th create is invalid: one 409 for the changeset, none of its entries stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';
import { generateSapClient, runSapBatch } from './sap-client.js';
import type { GeneratedSapClient } from './sap-client.js';

describe.each(testDatabases)('the SAP Cloud SDK\'s batch against the service on $name', (kind) => {
  let service: TestService;
  let client: GeneratedSapClient;
  let projectId: number;

  beforeAll(async () => {
    service = await startTestService(kind);
    client = await generateSapClient(`${service.root}/$metadata`);
    projectId = (await service.database.db.selectFrom('projects').select('id').where('name', '=', 'Website-Relaunch').executeTakeFirstOrThrow()).id;
  }, 120_000);

  afterAll(async () => {
    await client?.dispose();
    await service?.close();
  });

  const stored = (comment: string) => service.database.db.selectFrom('time_entries').select(['id', 'start_time', 'end_time'])
    .where('comment', 'like', `${comment} #%`).orderBy('id').execute();

  it('sends three reads and a changeset of 20 creates and an update in one $batch, and reads every answer', async () => {
    const result = await runSapBatch(client, service.origin, service.admin.apiKey, projectId, { creates: 20, comment: 'SDK-Batch' });
    expect(result.kinds).toEqual(['read', 'read', 'read', 'write']);
    expect(result.projectName).toBe('Website-Relaunch');
    expect(result.filteredIds).toEqual([projectId]);
    expect(result.recentEntryCount).toBe(5);
    expect(result.writeStatuses).toEqual([...Array.from({ length: 20 }, () => 201), 204]);
    const rows = await stored('SDK-Batch');
    expect(rows.map((row) => row.id)).toEqual(result.createdIds);
    expect(rows.every((row) => Number(row.end_time) - Number(row.start_time) === 3_600_000)).toBe(true);
    const project = await service.database.db.selectFrom('projects').select('comment').where('id', '=', projectId).executeTakeFirstOrThrow();
    expect(project.comment).toBe('SDK-Batch');
    // One HTTP request carried it all (the SDK may first ask for a CSRF token with HEAD).
    const batches = service.answered().filter((r) => r.url.endsWith('/$batch') && r.method === 'POST');
    expect(batches.map((r) => r.status)).toEqual([202]);
  }, 60_000);

  it('gets one 409 for a changeset whose 20th create is invalid, and none of its entries is stored', async () => {
    const result = await runSapBatch(client, service.origin, service.admin.apiKey, projectId, { creates: 20, invalidAt: 20, comment: 'SDK-Batch-Fehler' });
    expect(result.kinds).toEqual(['read', 'read', 'read', 'error']);
    expect(result.error).toEqual({ status: 409, message: 'Der Zeiteintrag kann nicht gespeichert werden: Die Endzeit (EndTime) liegt vor der Startzeit (StartTime).' });
    expect(await stored('SDK-Batch-Fehler')).toEqual([]);
    const project = await service.database.db.selectFrom('projects').select('comment').where('id', '=', projectId).executeTakeFirstOrThrow();
    expect(project.comment).toBe('SDK-Batch');
  }, 60_000);
});
