// `timegate admin` for the operator's overview and settings: list-accounts, list-users, set-role,
// deactivate-user / activate-user, set-settings. Each prints one JSON line; every refusal is one
// line on stderr with a non-zero exit (2 for a wrong command line, 1 for a refused change).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallClockZone } from '../../odata/wall-clock.js';
import { adminJson, expectOneLineError, timegate } from '../helpers/cli.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';

interface UserLine {
  userId: number;
  email: string;
  role: string;
  active: boolean;
}

describe.each(testDatabases)('timegate admin accounts and settings on $name', (kind) => {
  let place: TestDatabasePlace;
  let acme: { accountId: number; userId: number };
  let other: { accountId: number; userId: number };
  let employee: number;

  const admin = (...args: string[]) => adminJson(place.url, ...args);
  const refused = async (code: number, ...args: string[]) => expectOneLineError(await timegate(['admin', ...args, '--db', place.url]), code, 'admin');
  const usersOf = async (accountId: number) => (await admin('list-users', '--account', String(accountId))).users as UserLine[];

  beforeAll(async () => {
    place = await kind.create();
    acme = await admin('create-account', '--name', 'Acme GmbH', '--admin-email', 'chefin@acme.example', '--time-zone', 'Europe/Berlin') as typeof acme;
    other = await admin('create-account', '--name', 'Andere AG', '--admin-email', 'boss@andere.example', '--time-zone', 'UTC') as typeof other;
    employee = (await admin('create-user', '--account', String(acme.accountId), '--email', 'max@acme.example', '--first-name', 'Max',
      '--last-name', 'Muster', '--role', 'user')).userId as number;
  }, 120_000);
  afterAll(() => place?.dispose());

  it('lists every account with its settings and users, and each account\'s users only', async () => {
    const { accounts } = await admin('list-accounts') as { accounts: Array<Record<string, unknown>> };
    expect(accounts).toEqual([
      { accountId: acme.accountId, name: 'Acme GmbH', createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), timeZone: 'Europe/Berlin', currency: 'EUR',
        hourlyRates: true, bookingCloseDate: null, users: 2, activeUsers: 2 },
      { accountId: other.accountId, name: 'Andere AG', createdAt: expect.any(String), timeZone: 'UTC', currency: 'EUR',
        hourlyRates: true, bookingCloseDate: null, users: 1, activeUsers: 1 },
    ]);
    expect(await usersOf(acme.accountId)).toEqual([
      { userId: acme.userId, email: 'chefin@acme.example', firstName: 'Admin', lastName: 'Administrator', role: 'admin', active: true, hasPassword: false },
      { userId: employee, email: 'max@acme.example', firstName: 'Max', lastName: 'Muster', role: 'user', active: true, hasPassword: false },
    ]);
    expect((await usersOf(other.accountId)).map((user) => user.email)).toEqual(['boss@andere.example']);
  }, 120_000);

  it('changes roles, but never demotes the last active administrator', async () => {
    expect(await admin('set-role', '--user', String(employee), '--role', 'admin')).toEqual({ userId: employee, role: 'admin' });
    expect(await admin('set-role', '--user', String(acme.userId), '--role', 'user')).toEqual({ userId: acme.userId, role: 'user' });
    expect(await refused(1, 'set-role', '--user', String(employee), '--role', 'user'))
      .toContain(`user ${employee} is the last active administrator of account ${acme.accountId}`);
    // An inactive administrator does not count: the account would have nobody to manage it.
    expect(await admin('set-role', '--user', String(acme.userId), '--role', 'admin')).toEqual({ userId: acme.userId, role: 'admin' });
    expect(await admin('deactivate-user', '--user', String(acme.userId))).toEqual({ userId: acme.userId, active: false });
    expect(await refused(1, 'set-role', '--user', String(employee), '--role', 'user')).toContain('last active administrator');
    expect((await usersOf(acme.accountId)).map((user) => [user.userId, user.role, user.active]))
      .toEqual([[acme.userId, 'admin', false], [employee, 'admin', true]]);
    expect(await admin('activate-user', '--user', String(acme.userId))).toEqual({ userId: acme.userId, active: true });
    expect(await admin('set-role', '--user', String(employee), '--role', 'user')).toEqual({ userId: employee, role: 'user' });
    expect((await admin('list-accounts') as { accounts: Array<{ activeUsers: number }> }).accounts[0]?.activeUsers).toBe(2);

    expect(await refused(2, 'set-role', '--user', String(employee), '--role', 'boss')).toContain('--role must be admin or user');
    expect(await refused(2, 'set-role', '--user', String(employee))).toContain('missing --role');
    expect(await refused(1, 'set-role', '--user', '999999', '--role', 'user')).toContain('no user 999999');
    expect(await refused(1, 'deactivate-user', '--user', '999999')).toContain('no user 999999');
    expect(await refused(2, 'activate-user', '--user', '0')).toContain('--user must be a whole number from 1');
  }, 120_000);

  it('sets the booking close date, the zone, hourly rates and custom-field labels', async () => {
    const account = String(acme.accountId);
    expect(await admin('set-settings', '--account', account, '--booking-close-date', '2026-03-01', '--hourly-rates', 'off',
      '--custom-label', 'time-entry.1=Ticket', '--custom-label', 'project.2=Kostenstelle')).toEqual({
      accountId: acme.accountId, timeZone: 'Europe/Berlin', hourlyRates: false, bookingCloseDate: '2026-03-01',
      customLabels: { 'project.2': 'Kostenstelle', 'time-entry.1': 'Ticket' },
    });
    const handle = await place.open();
    const stored = async () => handle.db.selectFrom('account_settings').selectAll().where('account_id', '=', acme.accountId).executeTakeFirstOrThrow();
    // Midnight of that day on the account's wall clock: entries from 00:00 in Berlin are open.
    expect((await stored()).booking_close_date).toBe(wallClockZone('Europe/Berlin').toInstant(Date.UTC(2026, 2, 1)));
    expect((await stored()).time_entry_custom1_label).toBe('Ticket');

    // A new zone keeps the close date's day, now on the new zone's wall clock.
    const moved = await admin('set-settings', '--account', account, '--time-zone', 'America/New_York');
    expect(moved).toMatchObject({ timeZone: 'America/New_York', bookingCloseDate: '2026-03-01' });
    expect((await stored()).booking_close_date).toBe(wallClockZone('America/New_York').toInstant(Date.UTC(2026, 2, 1)));

    expect(await admin('set-settings', '--account', account, '--booking-close-date', 'none', '--hourly-rates', 'on',
      '--custom-label', 'time-entry.1=')).toEqual({
      accountId: acme.accountId, timeZone: 'America/New_York', hourlyRates: true, bookingCloseDate: null, customLabels: { 'project.2': 'Kostenstelle' },
    });
    // The other account is untouched.
    expect((await admin('list-accounts') as { accounts: Array<Record<string, unknown>> }).accounts[1])
      .toMatchObject({ accountId: other.accountId, timeZone: 'UTC', hourlyRates: true, bookingCloseDate: null });
  }, 120_000);

  it('refuses unknown accounts, bad dates, bad zones and empty changes in one line', async () => {
    const account = String(acme.accountId);
    const before = await admin('list-accounts');
    const cases: Array<[number, string[], string]> = [
      [1, ['set-settings', '--account', '999999', '--hourly-rates', 'on'], 'no account 999999'],
      [1, ['list-users', '--account', '999999'], 'no account 999999'],
      // The settings' rules are the web pages' and the API's (account-settings-rules.ts), so the
      // refusals are their German messages; before, the CLI had English ones of its own.
      [1, ['set-settings', '--account', account, '--booking-close-date', '2026-02-30'],
        'Die Kontoeinstellung kann nicht gespeichert werden: BookingCloseDate muss ein Tag im Format JJJJ-MM-TT zwischen 1900 und 9999 sein, den es gibt: "2026-02-30".'],
      [1, ['set-settings', '--account', account, '--booking-close-date', '01.03.2026'], 'BookingCloseDate muss ein Tag im Format JJJJ-MM-TT'],
      // The web pages always refused a year before 1900; the CLI accepted one until it shared their rule.
      [1, ['set-settings', '--account', account, '--booking-close-date', '1850-01-01'], 'BookingCloseDate muss ein Tag im Format JJJJ-MM-TT'],
      [1, ['set-settings', '--account', account, '--time-zone', 'Mars/Olympus'], 'TimeZone "Mars/Olympus" ist keine bekannte IANA-Zeitzone'],
      [1, ['set-settings', '--account', account], 'nothing to change'],
      [1, ['set-settings', '--account', account, '--custom-label', `task.3=${'x'.repeat(51)}`], 'TaskCustom3Label darf höchstens 50 Zeichen lang sein.'],
      [2, ['set-settings', '--account', account, '--hourly-rates', 'ja'], "--hourly-rates must be on or off, not 'ja'"],
      [2, ['set-settings', '--account', account, '--custom-label', 'invoice.1=X'], '--custom-label must look like time-entry.1=Ticket'],
      [2, ['set-settings', '--account', account, '--custom-label', 'task.6=X'], '--custom-label must look like'],
      [2, ['set-settings', '--hourly-rates', 'on'], 'missing --account'],
      [2, ['list-users'], 'missing --account'],
      [2, ['list-accounts', 'extra'], "unexpected argument 'extra'"],
    ];
    // Each is a process; side by side they take seconds, not a minute.
    const messages = await Promise.all(cases.map(([code, args]) => refused(code, ...args)));
    cases.forEach(([, args, message], i) => expect(messages[i], args.join(' ')).toContain(message));
    // Nothing of the refused changes was stored.
    expect(await admin('list-accounts')).toEqual(before);
  }, 120_000);
});
