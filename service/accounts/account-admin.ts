// Account administration, as the `timegate admin` commands and the demo seed use it: company
// accounts, their users, and the users' API keys. Every operation is one transaction (or part of
// the caller's, when `db` is a transaction).
import type { Kysely, Transaction } from 'kysely';
import { hostTimeZone, isTimeZone, wallClockZone } from '../../odata/wall-clock.js';
import type { Database } from '../storage/schema.js';
import { ACCESS_RIGHTS } from '../storage/schema.js';
import { withTransaction } from '../storage/transaction.js';
import * as rules from '../timetracking/account-settings-rules.js';
import { AccountAdminError } from './account-errors.js';
import * as input from './account-input.js';
import type { Role } from './account-input.js';
import { displayPrefix, generateApiKey, hashApiKey } from './api-keys.js';
import { updateUserRow } from './user-details.js';
import type { UserChange } from './user-details.js';

export type { Role } from './account-input.js';

export interface CreateAccountInput {
  readonly name: string;
  readonly adminEmail: string;
  readonly adminFirstName?: string;
  readonly adminLastName?: string;
  readonly language?: string;
  readonly timeZone?: string;
  readonly currency?: string;
}

export interface CreatedAccount {
  readonly accountId: number;
  readonly settingsId: number;
  readonly userId: number;
  /** Shown once; only its hash is stored. */
  readonly apiKey: string;
}

export interface CreateUserInput {
  readonly accountId: number;
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly role: Role;
  readonly title?: string;
  readonly language?: string;
  /** Who is recorded as LastChangeAuthor; defaults to the new user (made outside the API). */
  readonly authorUserId?: number;
}

export interface CreatedUser {
  readonly userId: number;
  readonly apiKey: string;
}

export async function createAccount(db: Kysely<Database>, account: CreateAccountInput): Promise<CreatedAccount> {
  const name = input.setting(() => rules.companyName(account.name));
  const settings = {
    company_name: name,
    time_zone: input.setting(() => rules.timeZone(account.timeZone ?? hostTimeZone())),
    currency: input.setting(() => rules.currency(account.currency ?? 'EUR')),
  };
  const admin = {
    email: account.adminEmail,
    firstName: account.adminFirstName ?? 'Admin',
    lastName: account.adminLastName ?? 'Administrator',
    role: 'admin' as const,
    ...(account.language === undefined ? {} : { language: account.language }),
  };
  return withTransaction(db, async (trx) => {
    const now = Date.now();
    const { id: accountId } = await trx.insertInto('accounts').values({ name, created_at: now })
      .returning('id').executeTakeFirstOrThrow();
    const { id: settingsId } = await trx.insertInto('account_settings')
      .values({ account_id: accountId, ...settings, hourly_rates_enabled: 1 })
      .returning('id').executeTakeFirstOrThrow();
    const userId = await insertUser(trx, { accountId, ...admin }, now);
    return { accountId, settingsId, userId, apiKey: await issueKey(trx, accountId, userId, now) };
  });
}

export async function createUser(db: Kysely<Database>, user: CreateUserInput): Promise<CreatedUser> {
  return withTransaction(db, async (trx) => {
    const now = Date.now();
    const userId = await insertUserOfAccount(trx, user, now);
    return { userId, apiKey: await issueKey(trx, user.accountId, userId, now) };
  });
}

/**
 * A user an administrator invites (the web interface): no API key yet, since nobody would be
 * shown it; they make their own once signed in.
 */
export async function inviteUser(db: Kysely<Database>, user: CreateUserInput): Promise<{ userId: number }> {
  return withTransaction(db, async (trx) => ({ userId: await insertUserOfAccount(trx, user, Date.now()) }));
}

async function insertUserOfAccount(trx: Transaction<Database>, user: CreateUserInput, now: number): Promise<number> {
  const account = await trx.selectFrom('accounts').select('id')
    .where('id', '=', input.positiveId('account', user.accountId)).executeTakeFirst();
  if (account === undefined) throw new AccountAdminError('account-not-found', `no account ${user.accountId}`);
  return insertUser(trx, user, now);
}

/** Issues one more key for the user; existing keys stay valid. */
export async function newKey(db: Kysely<Database>, userId: number): Promise<{ apiKey: string }> {
  return withTransaction(db, async (trx) => {
    const user = await findUser(trx, userId);
    return { apiKey: await issueKey(trx, user.account_id, user.id, Date.now()) };
  });
}

/** Revokes every key of the user that is not revoked yet; returns how many. */
export async function revokeKeys(db: Kysely<Database>, userId: number): Promise<{ revoked: number }> {
  return withTransaction(db, async (trx) => {
    const user = await findUser(trx, userId);
    const result = await trx.updateTable('api_keys').set({ revoked_at: Date.now() })
      .where('account_id', '=', user.account_id).where('user_id', '=', user.id).where('revoked_at', 'is', null)
      .executeTakeFirst();
    return { revoked: Number(result.numUpdatedRows) };
  });
}

/** The id of an existing user; an AccountAdminError naming it otherwise. */
export async function findUserId(db: Kysely<Database>, userId: number): Promise<number> {
  return withTransaction(db, async (trx) => (await findUser(trx, userId)).id);
}

/** Who changes a user (LastChangeAuthor) from which version of the row (a form's); the CLI names neither. */
export type ChangedBy = Pick<UserChange, 'authorUserId' | 'expectedVersion'>;

/**
 * Activates or deactivates a user. A deactivated user can neither sign in nor use the API
 * (authenticate.ts, sessions.ts check it on every request); their sessions are ended as well.
 */
export async function setActive(db: Kysely<Database>, userId: number, active: boolean, by: ChangedBy = {}): Promise<number> {
  return withTransaction(db, async (trx) => {
    const user = await findUser(trx, userId);
    await updateUserRow(trx, { accountId: user.account_id, userId: user.id, ...by }, { active: active ? 1 : 0 });
    if (!active) await trx.deleteFrom('web_sessions').where('user_id', '=', user.id).execute();
    return user.id;
  });
}

/**
 * Gives a user the role (AccessRights 10 or 20); their sessions and keys carry it from the next
 * request. The account's last active administrator cannot be made a standard user (nobody could
 * then manage projects or lock entries through the API or the web interface).
 */
export async function setRole(db: Kysely<Database>, userId: number, role: Role, by: ChangedBy = {}): Promise<number> {
  const accessRights = input.accessRights(role);
  return withTransaction(db, async (trx) => {
    const user = await findUser(trx, userId);
    if (user.access_rights === ACCESS_RIGHTS.administrator && accessRights !== ACCESS_RIGHTS.administrator) {
      const otherAdmin = await trx.selectFrom('users').select('id').where('account_id', '=', user.account_id)
        .where('access_rights', '=', ACCESS_RIGHTS.administrator).where('active', '=', 1).where('id', '<>', user.id)
        .limit(1).executeTakeFirst();
      if (otherAdmin === undefined) {
        throw new AccountAdminError('last-admin', `user ${user.id} is the last active administrator of account ${user.account_id}`);
      }
    }
    await updateUserRow(trx, { accountId: user.account_id, userId: user.id, ...by }, { access_rights: accessRights });
    return user.id;
  });
}

export interface AccountListing {
  readonly accountId: number;
  readonly name: string;
  readonly createdAt: string;
  readonly timeZone: string;
  readonly currency: string;
  readonly hourlyRates: boolean;
  /** `YYYY-MM-DD` on the account's wall clock; null when no period is closed. */
  readonly bookingCloseDate: string | null;
  readonly users: number;
  readonly activeUsers: number;
}

/** Every account with its settings and user counts, by ID. */
export async function listAccounts(db: Kysely<Database>): Promise<readonly AccountListing[]> {
  const rows = await db.selectFrom('accounts as a').innerJoin('account_settings as s', 's.account_id', 'a.id')
    .select((eb) => ['a.id', 'a.name', 'a.created_at', 's.time_zone', 's.currency', 's.hourly_rates_enabled', 's.booking_close_date',
      eb.selectFrom('users as u').select((u) => u.fn.countAll().as('n')).whereRef('u.account_id', '=', 'a.id').as('users'),
      eb.selectFrom('users as u').select((u) => u.fn.countAll().as('n')).whereRef('u.account_id', '=', 'a.id').where('u.active', '=', 1).as('active_users')])
    .orderBy('a.id').execute();
  return rows.map((row) => ({
    accountId: row.id, name: row.name, createdAt: new Date(row.created_at).toISOString(), timeZone: row.time_zone, currency: row.currency,
    hourlyRates: row.hourly_rates_enabled === 1, bookingCloseDate: closeDateText(row.booking_close_date, row.time_zone),
    users: Number(row.users), activeUsers: Number(row.active_users),
  }));
}

/** The day whose midnight (on the account's wall clock) a booking close date is. */
export function closeDateText(epochMs: number | null, timeZone: string): string | null {
  if (epochMs === null) return null;
  const zone = isTimeZone(timeZone) ? wallClockZone(timeZone) : wallClockZone('UTC');
  return new Date(zone.toWallClock(epochMs)).toISOString().slice(0, 10);
}

export interface UserListing {
  readonly userId: number;
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly role: Role;
  readonly active: boolean;
  /** Whether the user has set a password for the web interface. */
  readonly hasPassword: boolean;
}

/** The users of an account, by ID; an AccountAdminError when there is no such account. */
export async function listUsers(db: Kysely<Database>, accountId: number): Promise<readonly UserListing[]> {
  const account = await db.selectFrom('accounts').select('id').where('id', '=', input.positiveId('account', accountId)).executeTakeFirst();
  if (account === undefined) throw new AccountAdminError('account-not-found', `no account ${accountId}`);
  const rows = await db.selectFrom('users').select(['id', 'email', 'first_name', 'last_name', 'access_rights', 'active', 'password_hash'])
    .where('account_id', '=', accountId).orderBy('id').execute();
  return rows.map((row) => ({
    userId: row.id, email: row.email, firstName: row.first_name, lastName: row.last_name,
    role: row.access_rights === ACCESS_RIGHTS.administrator ? 'admin' : 'user', active: row.active === 1, hasPassword: row.password_hash !== null,
  }));
}

export interface KeyListing {
  readonly id: number;
  readonly prefix: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

/** The user's keys that are not revoked, newest first (prefixes only: keys are never stored). */
export async function listKeys(db: Kysely<Database>, userId: number): Promise<readonly KeyListing[]> {
  const rows = await db.selectFrom('api_keys').select(['id', 'prefix', 'created_at', 'last_used_at'])
    .where('user_id', '=', userId).where('revoked_at', 'is', null).orderBy('id', 'desc').execute();
  return rows.map((row) => ({ id: row.id, prefix: row.prefix, createdAt: row.created_at, lastUsedAt: row.last_used_at }));
}

/** Revokes one key of the user; false when the user has no such key that is not revoked yet. */
export async function revokeKey(db: Kysely<Database>, userId: number, keyId: number): Promise<boolean> {
  const result = await db.updateTable('api_keys').set({ revoked_at: Date.now() })
    .where('user_id', '=', userId).where('id', '=', keyId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function insertUser(trx: Transaction<Database>, user: CreateUserInput, now: number): Promise<number> {
  const email = input.email(user.email);
  const row = {
    account_id: user.accountId,
    title: user.title === undefined ? null : input.requiredText('title', user.title, 50),
    first_name: input.requiredText('first name', user.firstName, 80),
    last_name: input.requiredText('last name', user.lastName, 80),
    email,
    language: input.language(user.language),
    access_rights: input.accessRights(user.role),
    active: 1 as const,
    last_change_time: now,
    last_change_author: user.authorUserId ?? 0,
  };
  // Checked here for a clear message; the unique index (account_id, lower(email)) is the guarantee.
  const taken = await trx.selectFrom('users').select('id')
    .where('account_id', '=', user.accountId).where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  if (taken !== undefined) throw new AccountAdminError('email-taken', `${email} already has a user in account ${user.accountId}`);
  const { id: userId } = await trx.insertInto('users').values(row).returning('id').executeTakeFirstOrThrow();
  if (user.authorUserId === undefined) {
    await trx.updateTable('users').set({ last_change_author: userId }).where('id', '=', userId).execute();
  }
  return userId;
}

async function findUser(trx: Transaction<Database>, userId: number): Promise<{ id: number; account_id: number; access_rights: number }> {
  const user = await trx.selectFrom('users').select(['id', 'account_id', 'access_rights'])
    .where('id', '=', input.positiveId('user', userId)).executeTakeFirst();
  if (user === undefined) throw new AccountAdminError('user-not-found', `no user ${userId}`);
  return user;
}

async function issueKey(trx: Transaction<Database>, accountId: number, userId: number, now: number): Promise<string> {
  const apiKey = generateApiKey();
  await trx.insertInto('api_keys').values({
    account_id: accountId, user_id: userId, hash: hashApiKey(apiKey), prefix: displayPrefix(apiKey), created_at: now,
  }).execute();
  return apiKey;
}
