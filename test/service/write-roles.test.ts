// Who may write what (data-model.md, "Roles and visibility"): standard users write their own time
// entries only (not locked, not before the booking close date, on projects they may book on);
// administrators write everything in the account; Users and AccountSettings are read-only
// through the API. A write on something the caller may read is a 403; on something the caller
// may not read, a 404 exactly like a missing entity. A refused write changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { Format, Reply } from '../helpers/odata-client.js';
import { FORMATS, ODataClient, expectStatus, payload } from '../helpers/odata-client.js';
import type { DemoCatalogue } from '../helpers/odata-payloads.js';
import { booking, create, demoCatalogue, expectError, expectUnchanged, expectValidationError, readBack, snapshot } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

describe.each(testDatabases)('write permissions on $name', (kind) => {
  let service: TestService;
  let alex: ODataClient;
  let jana: ODataClient;
  let tom: ODataClient;
  let demo: DemoCatalogue;
  /** One of Tom's finished, unlocked bookings. */
  let tomsEntry: number;
  /** One of Jana's locked bookings (the demo locks the older ones). */
  let janasLockedEntry: number;

  beforeAll(async () => {
    service = await startTestService(kind);
    alex = new ODataClient(service.root, service.admin.apiKey);
    jana = alex.as(service.jana.apiKey);
    tom = alex.as(service.tom.apiKey);
    demo = await demoCatalogue(service);
    const { db } = service.database;
    tomsEntry = (await db.selectFrom('time_entries').select('id').where('user_id', '=', service.tom.userId)
      .where('locked', '=', 0).where('end_time', 'is not', null).orderBy('id').executeTakeFirstOrThrow()).id;
    janasLockedEntry = (await db.selectFrom('time_entries').select('id').where('user_id', '=', service.jana.userId)
      .where('locked', '=', 1).orderBy('id').executeTakeFirstOrThrow()).id;
  });

  afterAll(() => service?.close());

  /** Asserts the refusal and that nothing stored changed. */
  async function refused(write: () => Promise<Reply>, status: number, format: Format): Promise<string> {
    const before = await snapshot(service);
    const error = expectError(await write(), status, format);
    await expectUnchanged(service, before);
    return error.message;
  }

  describe.each(FORMATS)('answered in %s', (format: Format) => {
    describe('a standard user and master data', () => {
      it.each(['Projects', 'Clients', 'Tasks'])('creating %s is a 403 in German', async (set) => {
        const properties: Record<string, string> = set === 'Tasks' ? { Description: 'Verboten' } : { Name: 'Verboten' };
        const message = await refused(() => jana.send('POST', `/${set}`, payload(format, properties), { format }), 403, format);
        expect(message).toMatch(/^Nur Administratoren dürfen \S+ anlegen, ändern oder löschen\.$/);
      });

      it('changing or deleting a client, a task or a project they can read is a 403', async () => {
        await refused(() => jana.send('MERGE', `/Clients(${demo.clients.nordwind})`, payload(format, { Comment: 'x' }), { format }), 403, format);
        await refused(() => jana.send('PUT', `/Tasks(${demo.tasks.support})`, payload(format, { Description: 'x' }), { format }), 403, format);
        await refused(() => jana.delete(`/Tasks(${demo.tasks.support})`, { format }), 403, format);
        await refused(() => jana.send('PATCH', `/Projects(${demo.projects.mobileApp})`, payload(format, { Comment: 'x' }), { format }), 403, format);
        // The admin-only check comes before the dependants check: still a 403, not a 409.
        await refused(() => jana.delete(`/Clients(${demo.clients.nordwind})`, { format }), 403, format);
      });

      it('a project not assigned to them does not exist for them: 404 for any write', async () => {
        await refused(() => tom.send('MERGE', `/Projects(${demo.projects.mobileApp})`, payload(format, { Comment: 'x' }), { format }), 404, format);
        await refused(() => tom.delete(`/Projects(${demo.projects.mobileApp})`, { format }), 404, format);
        await refused(() => tom.send('POST', `/Projects(${demo.projects.mobileApp})/TimeEntries`, payload(format, booking(demo.projects.mobileApp, '2026-11-02')), { format }), 404, format);
      });
    });

    describe('a standard user and time entries', () => {
      it('another user\'s entry does not exist for them: MERGE, PUT and DELETE are 404s', async () => {
        await refused(() => jana.send('MERGE', `/TimeEntries(${tomsEntry})`, payload(format, { Comment: 'fremd' }), { format }), 404, format);
        await refused(() => jana.send('PUT', `/TimeEntries(${tomsEntry})`, payload(format, booking(demo.projects.websiteRelaunch, '2026-11-02')), { format }), 404, format);
        await refused(() => jana.delete(`/TimeEntries(${tomsEntry})`, { format }), 404, format);
      });

      it('booking for someone else, or handing an own entry to someone else, is a 403', async () => {
        let message = await refused(() => jana.send('POST', '/TimeEntries', payload(format, booking(demo.projects.websiteRelaunch, '2026-11-02', { UserID: service.tom.userId })), { format }), 403, format);
        expect(message).toBe('Nur Administratoren dürfen Zeiteinträge anderer Benutzer anlegen oder ändern.');
        const own = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-02'));
        message = await refused(() => jana.send('MERGE', `/TimeEntries(${own.ID as number})`, payload(format, { UserID: service.tom.userId }), { format }), 403, format);
        expect(message).toMatch(/anderer Benutzer/);
      });

      it('a locked entry cannot be changed or deleted, and they cannot lock or unlock', async () => {
        const path = `/TimeEntries(${janasLockedEntry})`;
        expect((await readBack(jana, path, 'TimeEntries')).IsEditable).toBe(false);
        const message = await refused(() => jana.send('MERGE', path, payload(format, { Comment: 'x' }), { format }), 403, format);
        expect(message).toMatch(/gesperrt/);
        await refused(() => jana.delete(path, { format }), 403, format);
        await refused(() => jana.send('MERGE', path, payload(format, { Locked: false }), { format }), 403, format);
        await refused(() => jana.send('POST', '/TimeEntries', payload(format, booking(demo.projects.websiteRelaunch, '2026-11-02', { Locked: true })), { format }), 403, format);
        const own = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-03'));
        const lock = await refused(() => jana.send('MERGE', `/TimeEntries(${own.ID as number})`, payload(format, { Locked: true }), { format }), 403, format);
        expect(lock).toBe('Nur Administratoren dürfen Zeiteinträge sperren oder entsperren.');
      });

      it('a project they may not book on is a validation error (409), not a booking', async () => {
        const before = await snapshot(service);
        const reply = await tom.send('POST', '/TimeEntries', payload(format, booking(demo.projects.mobileApp, '2026-11-02')), { format });
        expectValidationError(reply, format, 'TimeEntry', /Projekt \d+ darf nicht gebucht werden/);
        await expectUnchanged(service, before);
      });
    });

    describe('an administrator', () => {
      it('books for other users, locks, and changes and deletes locked entries', async () => {
        const entry = await create(alex, 'TimeEntries', booking(demo.projects.mobileApp, '2026-11-04', { UserID: service.jana.userId, Locked: true }), format);
        const path = `/TimeEntries(${entry.ID as number})`;
        expect(await readBack(jana, path, 'TimeEntries')).toMatchObject({ UserID: service.jana.userId, Locked: true, IsEditable: false });
        expectStatus(await alex.send('MERGE', path, payload(format, { Comment: 'vom Admin' }), { format }), 204);
        expectStatus(await alex.send('MERGE', path, payload(format, { Locked: false }), { format }), 204);
        expect((await readBack(jana, path, 'TimeEntries')).IsEditable).toBe(true);
        expectStatus(await alex.send('MERGE', path, payload(format, { Locked: true }), { format }), 204);
        expectStatus(await alex.delete(path), 204);
      });

      it('moves an entry to another user of the account, but not to an unknown user (409)', async () => {
        const entry = await create(alex, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-05', { UserID: service.jana.userId }));
        const path = `/TimeEntries(${entry.ID as number})`;
        expectStatus(await alex.send('MERGE', path, payload(format, { UserID: service.tom.userId }), { format }), 204);
        expect((await readBack(tom, path, 'TimeEntries')).UserID).toBe(service.tom.userId);
        expectStatus(await jana.get(path), 404);
        const before = await snapshot(service);
        expectValidationError(await alex.send('MERGE', path, payload(format, { UserID: 999_999 }), { format }), format, 'TimeEntry', /UserID 999999/);
        await expectUnchanged(service, before);
      });
    });

    describe('Users and AccountSettings are read-only through the API', () => {
      it.each([
        ['POST', '/Users'], ['MERGE', '/Users(ME)'], ['PATCH', '/Users(ME)'], ['PUT', '/Users(ME)'], ['DELETE', '/Users(ME)'],
        ['POST', '/AccountSettings'], ['MERGE', '/AccountSettings(SETTINGS)'], ['PUT', '/AccountSettings(SETTINGS)'], ['DELETE', '/AccountSettings(SETTINGS)'],
      ])('%s %s is a 405 with Allow: GET, HEAD, for administrators too', async (method, pathPattern) => {
        const settings = await service.database.db.selectFrom('account_settings').select('id').where('account_id', '=', service.accountId).executeTakeFirstOrThrow();
        const path = pathPattern.replace('ME', String(service.admin.userId)).replace('SETTINGS', String(settings.id));
        for (const client of [alex, jana]) {
          const before = await snapshot(service);
          const reply = method === 'DELETE'
            ? await client.delete(path, { format })
            : await client.send(method, path, payload(format, { FirstName: 'Neu', CompanyName: 'Neu GmbH' }), { format });
          expectError(reply, 405, format);
          expect(reply.headers.get('allow')).toBe('GET, HEAD');
          await expectUnchanged(service, before);
        }
      });
    });
  });

  describe('the booking close date of the account', () => {
    const CLOSED_BEFORE = Date.UTC(2026, 10, 1);
    let janasOldEntry: number;

    beforeAll(async () => {
      // Only an administrator of the web interface sets it; the API cannot, so the test does.
      await service.database.db.updateTable('account_settings').set({ booking_close_date: CLOSED_BEFORE }).where('account_id', '=', service.accountId).execute();
      const old = await create(alex, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-10-20', { UserID: service.jana.userId }));
      janasOldEntry = old.ID as number;
    });

    afterAll(async () => {
      await service.database.db.updateTable('account_settings').set({ booking_close_date: null }).where('account_id', '=', service.accountId).execute();
    });

    it.each(FORMATS)('standard users cannot book, change or delete before it (403 in %s)', async (format) => {
      const path = `/TimeEntries(${janasOldEntry})`;
      expect((await readBack(jana, path, 'TimeEntries')).IsEditable).toBe(false);
      const message = await refused(() => jana.send('POST', '/TimeEntries', payload(format, booking(demo.projects.websiteRelaunch, '2026-10-30')), { format }), 403, format);
      expect(message).toBe('Der Buchungszeitraum vor dem 2026-11-01 ist abgeschlossen.');
      await refused(() => jana.send('MERGE', path, payload(format, { Comment: 'x' }), { format }), 403, format);
      await refused(() => jana.delete(path, { format }), 403, format);
      // Nor move an open entry into the closed period.
      const open = await create(jana, 'TimeEntries', booking(demo.projects.websiteRelaunch, '2026-11-10'));
      await refused(() => jana.send('MERGE', `/TimeEntries(${open.ID as number})`, payload(format, { StartTime: new Date('2026-10-30T09:00:00Z') }), { format }), 403, format);
    });

    it('administrators still may', async () => {
      const path = `/TimeEntries(${janasOldEntry})`;
      expect((await readBack(alex, path, 'TimeEntries')).IsEditable).toBe(true);
      expectStatus(await alex.send('MERGE', path, payload('json', { Comment: 'nachgetragen' })), 204);
      expect((await readBack(jana, path, 'TimeEntries')).Comment).toBe('nachgetragen');
    });
  });
});
