// Deleting while others book (issue 4: "nothing half-deleted"): a DELETE of a project racing with
// bookings on it, and of a client racing with new projects for it, ends in one consistent state:
// either the parent is gone and nothing refers to it, or it stays with every child that was
// answered 201. Every request gets 201, 204 or a clear 409, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { ODataClient, payload } from '../helpers/odata-client.js';
import { booking, create } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

const BOOKINGS = 20;

describe.each(testDatabases)('DELETE racing with writes that refer to it on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;
  let jana: ODataClient;

  beforeAll(async () => {
    service = await startTestService(kind);
    alex = new ODataClient(service.root, service.admin.apiKey);
    jana = alex.as(service.jana.apiKey);
  });

  afterAll(() => service?.close());

  it.each([0, 5, 10, 19])(`a project deleted while ${BOOKINGS} bookings arrive (DELETE sent after %s of them)`, async (deleteAt) => {
    const project = (await create(alex, 'Projects', { Name: `Rennen ${deleteAt}`, Active: true })).ID as number;
    const requests = Array.from({ length: BOOKINGS + 1 }, (_, i) => {
      if (i === deleteAt) return alex.delete(`/Projects(${project})`, { format: 'json' }).then((reply) => ({ kind: 'delete', reply }));
      return jana.send('POST', '/TimeEntries', payload('json', booking(project, `2026-11-${String(1 + (i % 28)).padStart(2, '0')}`)), { format: 'json' })
        .then((reply) => ({ kind: 'booking', reply }));
    });
    const results = await Promise.all(requests);
    for (const { kind: what, reply } of results) {
      expect([201, 204, 409], `${what}: ${reply.status} ${reply.text.slice(0, 200)}`).toContain(reply.status);
    }
    const deleted = results.find((r) => r.kind === 'delete')?.reply.status === 204;
    const booked = results.filter((r) => r.kind === 'booking' && r.reply.status === 201).length;
    const { db } = service.database;
    const projectRows = await db.selectFrom('projects').select('id').where('id', '=', project).execute();
    const entryRows = await db.selectFrom('time_entries').select('id').where('project_id', '=', project).execute();
    if (deleted) {
      expect(projectRows).toEqual([]);
      expect(entryRows).toEqual([]);
      expect(booked).toBe(0);
    } else {
      expect(projectRows).toHaveLength(1);
      expect(entryRows).toHaveLength(booked);
      expect(booked).toBeGreaterThan(0);
    }
  });

  it('a client deleted while projects for it are created', async () => {
    const client = (await create(alex, 'Clients', { Name: 'Rennkunde' })).ID as number;
    const results = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => alex.send('POST', '/Projects', payload('json', { Name: `Projekt ${i}`, ClientID: client }), { format: 'json' })),
      alex.delete(`/Clients(${client})`, { format: 'json' }),
    ]);
    for (const reply of results) expect([201, 204, 409], reply.text.slice(0, 200)).toContain(reply.status);
    const deleted = results[results.length - 1]?.status === 204;
    const created = results.filter((r) => r.status === 201).length;
    const { db } = service.database;
    const projects = await db.selectFrom('projects').select('id').where('client_id', '=', client).execute();
    expect(projects).toHaveLength(deleted ? 0 : created);
    expect(await db.selectFrom('clients').select('id').where('id', '=', client).execute()).toHaveLength(deleted ? 0 : 1);
  });
});
