// Account administration, as the `timegate admin` commands and the demo seed use it: company
// accounts, their users, and the users' API keys. Every operation is one transaction (or part of
// the caller's, when `db` is a transaction).
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../storage/schema.js';
import { withTransaction } from '../storage/transaction.js';
import { AccountAdminError } from './account-errors.js';
import * as input from './account-input.js';
import type { Role } from './account-input.js';
import { displayPrefix, generateApiKey, hashApiKey } from './api-keys.js';

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
  const name = input.requiredText('name', account.name, 100);
  const settings = {
    company_name: name,
    time_zone: input.timeZone(account.timeZone),
    currency: input.currency(account.currency),
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
    const { userId, apiKey } = await insertUser(trx, { accountId, ...admin }, now);
    return { accountId, settingsId, userId, apiKey };
  });
}

export async function createUser(db: Kysely<Database>, user: CreateUserInput): Promise<CreatedUser> {
  return withTransaction(db, async (trx) => {
    const account = await trx.selectFrom('accounts').select('id')
      .where('id', '=', input.positiveId('account', user.accountId)).executeTakeFirst();
    if (account === undefined) throw new AccountAdminError('account-not-found', `no account ${user.accountId}`);
    return insertUser(trx, user, Date.now());
  });
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

/**
 * Activates or deactivates a user. A deactivated user can neither sign in nor use the API
 * (authenticate.ts, sessions.ts check it on every request); their sessions are ended as well.
 */
export async function setActive(db: Kysely<Database>, userId: number, active: boolean): Promise<number> {
  return withTransaction(db, async (trx) => {
    const user = await findUser(trx, userId);
    await trx.updateTable('users').set({ active: active ? 1 : 0 }).where('id', '=', user.id).execute();
    if (!active) await trx.deleteFrom('web_sessions').where('user_id', '=', user.id).execute();
    return user.id;
  });
}

/** Gives a user the role (AccessRights 10 or 20); their sessions and keys carry it from the next request. */
export async function setRole(db: Kysely<Database>, userId: number, role: Role): Promise<number> {
  const accessRights = input.accessRights(role);
  return withTransaction(db, async (trx) => {
    const user = await findUser(trx, userId);
    await trx.updateTable('users').set({ access_rights: accessRights, last_change_time: Date.now() }).where('id', '=', user.id).execute();
    return user.id;
  });
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

async function insertUser(trx: Transaction<Database>, user: CreateUserInput, now: number): Promise<CreatedUser> {
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
  return { userId, apiKey: await issueKey(trx, user.accountId, userId, now) };
}

async function findUser(trx: Transaction<Database>, userId: number): Promise<{ id: number; account_id: number }> {
  const user = await trx.selectFrom('users').select(['id', 'account_id'])
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
