// Accounts, users and API keys: what an operator running `timegate admin ...` and a client
// presenting a key can observe.
import { hostTimeZone } from '../../odata/wall-clock.js';
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createUser, newKey, revokeKeys } from '../../service/accounts/account-admin.js';
import { AccountAdminError } from '../../service/accounts/account-errors.js';
import { digestsEqual, generateApiKey, hashApiKey } from '../../service/accounts/api-keys.js';
import { authenticate } from '../../service/accounts/authenticate.js';
import type { Database } from '../../service/storage/schema.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';

describe('API keys', () => {
  it('are tg_ plus 43 url-safe characters carrying 256 random bits, never repeating', () => {
    const keys = Array.from({ length: 2000 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^tg_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(key.slice(3), 'base64url')).toHaveLength(32);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('look random: every base64url character occurs, none dominates', () => {
    const histogram = new Map<string, number>();
    for (let i = 0; i < 2000; i++) for (const ch of generateApiKey().slice(3, 45)) histogram.set(ch, (histogram.get(ch) ?? 0) + 1);
    expect(histogram.size).toBe(64);
    // 84,000 characters over 64 symbols: about 1312 each; a broken generator is far outside this.
    for (const n of histogram.values()) expect(n).toBeGreaterThan(1000);
  });

  it('are hashed with sha-256 to lowercase hex', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(digestsEqual(hashApiKey('tg_a'), hashApiKey('tg_a'))).toBe(true);
    expect(digestsEqual(hashApiKey('tg_a'), hashApiKey('tg_b'))).toBe(false);
    expect(digestsEqual('ab', 'abc')).toBe(false);
  });
});

describe.each(testDatabases)('accounts on $name', (kind) => {
  let place: TestDatabasePlace;
  let db: Kysely<Database>;

  beforeAll(async () => {
    place = await kind.create();
    db = (await place.open()).db;
  });
  afterAll(() => place.dispose());

  it('creates an account with its settings, an administrator and a working key', async () => {
    const created = await createAccount(db, { name: 'Muster GmbH', adminEmail: 'chefin@muster.example' });
    expect(await authenticate(db, created.apiKey)).toEqual({ ok: true, accountId: created.accountId, userId: created.userId, accessRights: 20 });
    const settings = await db.selectFrom('account_settings').selectAll().where('account_id', '=', created.accountId).execute();
    expect(settings).toHaveLength(1);
    expect(settings[0]).toMatchObject({ id: created.settingsId, company_name: 'Muster GmbH', time_zone: hostTimeZone(), currency: 'EUR', hourly_rates_enabled: 1 });
    const admin = await db.selectFrom('users').selectAll().where('id', '=', created.userId).executeTakeFirstOrThrow();
    expect(admin).toMatchObject({ account_id: created.accountId, email: 'chefin@muster.example', access_rights: 20, active: 1,
      language: 'DE', last_change_author: created.userId });
  });

  it('keeps the time zone given, and refuses one the runtime does not know', async () => {
    const created = await createAccount(db, { name: 'Ostküste Inc', adminEmail: 'boss@east.example', timeZone: 'America/New_York' });
    const settings = await db.selectFrom('account_settings').select('time_zone').where('account_id', '=', created.accountId).executeTakeFirstOrThrow();
    expect(settings.time_zone).toBe('America/New_York');
    await expect(createAccount(db, { name: 'Nirgendwo', adminEmail: 'x@nowhere.example', timeZone: 'Europe/Nowhere' }))
      // The settings' rule and German message, shared with the web pages (account-settings-rules.ts).
      .rejects.toThrow('TimeZone "Europe/Nowhere" ist keine bekannte IANA-Zeitzone');
  });

  it('stores only hashes of keys, never a key', async () => {
    const created = await createAccount(db, { name: 'Geheim AG', adminEmail: 'a@geheim.example' });
    const second = await newKey(db, created.userId);
    const rows = await db.selectFrom('api_keys').selectAll().where('user_id', '=', created.userId).execute();
    expect(rows).toHaveLength(2);
    const everything = JSON.stringify(rows);
    for (const key of [created.apiKey, second.apiKey]) {
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(key.slice(3, 20));
      expect(rows.map((row) => row.hash)).toContain(createHash('sha256').update(key).digest('hex'));
    }
    expect(rows.every((row) => row.prefix.length <= 9 && row.prefix.startsWith('tg_'))).toBe(true);
  });

  it('creates users with their role, unique e-mail per account (ignoring case)', async () => {
    const { accountId } = await createAccount(db, { name: 'Team KG', adminEmail: 'boss@team.example' });
    const user = await createUser(db, { accountId, email: 'Eva@Team.example', firstName: 'Eva', lastName: 'Klein', role: 'user' });
    expect(await authenticate(db, user.apiKey)).toEqual({ ok: true, accountId, userId: user.userId, accessRights: 10 });
    await expect(createUser(db, { accountId, email: 'eva@team.EXAMPLE', firstName: 'E', lastName: 'K', role: 'admin' }))
      .rejects.toMatchObject({ code: 'email-taken' });
    const other = await createAccount(db, { name: 'Anders', adminEmail: 'boss@anders.example' });
    await expect(createUser(db, { accountId: other.accountId, email: 'eva@team.example', firstName: 'Eva', lastName: 'Klein', role: 'user' }))
      .resolves.toMatchObject({ apiKey: expect.stringMatching(/^tg_/) });
  });

  it('refuses bad input with a typed error and leaves nothing half-created', async () => {
    const before = await db.selectFrom('accounts').select('id').execute();
    await expect(createAccount(db, { name: 'Kaputt', adminEmail: 'not-an-address' })).rejects.toMatchObject({ code: 'invalid-input' });
    await expect(createAccount(db, { name: 'Kaputt', adminEmail: 'x@y.example', timeZone: 'Mars/Olympus' })).rejects.toBeInstanceOf(AccountAdminError);
    await expect(createAccount(db, { name: ' ', adminEmail: 'x@y.example' })).rejects.toMatchObject({ code: 'invalid-input' });
    expect(await db.selectFrom('accounts').select('id').execute()).toEqual(before);
    expect(await db.selectFrom('users').select('id').where('email', '=', 'x@y.example').execute()).toEqual([]);
    await expect(createUser(db, { accountId: 999_999, email: 'a@b.example', firstName: 'A', lastName: 'B', role: 'user' }))
      .rejects.toMatchObject({ code: 'account-not-found' });
    const { accountId } = await createAccount(db, { name: 'Rollen', adminEmail: 'r@rollen.example' });
    await expect(createUser(db, { accountId, email: 'a@b.example', firstName: 'A', lastName: 'B', role: 'boss' as 'user' }))
      .rejects.toMatchObject({ code: 'invalid-input' });
    await expect(newKey(db, 999_999)).rejects.toMatchObject({ code: 'user-not-found' });
    await expect(revokeKeys(db, 999_999)).rejects.toMatchObject({ code: 'user-not-found' });
  });

  it('adds keys without revoking, and revokes all of a user at once', async () => {
    const created = await createAccount(db, { name: 'Schlüssel', adminEmail: 'k@schluessel.example' });
    const colleague = await createUser(db, { accountId: created.accountId, email: 'c@schluessel.example', firstName: 'C', lastName: 'D', role: 'user' });
    const second = await newKey(db, created.userId);
    expect((await authenticate(db, created.apiKey)).ok).toBe(true);
    expect((await authenticate(db, second.apiKey)).ok).toBe(true);

    expect(await revokeKeys(db, created.userId)).toEqual({ revoked: 2 });
    expect(await authenticate(db, created.apiKey)).toEqual({ ok: false, reason: 'revoked' });
    expect(await authenticate(db, second.apiKey)).toEqual({ ok: false, reason: 'revoked' });
    expect((await authenticate(db, colleague.apiKey)).ok).toBe(true);
    expect(await revokeKeys(db, created.userId)).toEqual({ revoked: 0 });

    const third = await newKey(db, created.userId);
    expect(await authenticate(db, third.apiKey)).toMatchObject({ ok: true, userId: created.userId });
  });

  it('refuses unknown keys and keys of inactive users', async () => {
    const created = await createAccount(db, { name: 'Ruhend', adminEmail: 'r@ruhend.example' });
    const user = await createUser(db, { accountId: created.accountId, email: 'weg@ruhend.example', firstName: 'W', lastName: 'E', role: 'user' });
    await db.updateTable('users').set({ active: 0 }).where('id', '=', user.userId).execute();
    expect(await authenticate(db, user.apiKey)).toEqual({ ok: false, reason: 'inactive-user' });
    for (const key of [generateApiKey(), '', created.apiKey.slice(0, -1), created.apiKey.toUpperCase(), 'x'.repeat(10_000)]) {
      expect(await authenticate(db, key)).toEqual({ ok: false, reason: 'unknown' });
    }
  });
});
