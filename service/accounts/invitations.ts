// One-time invitation links: how a user gets into the web interface the first time, and again
// after `timegate admin reset-password`. The link carries a random token (stored only as its
// hash); it works once, until it expires, and only for an active user. A new invitation voids the
// user's older ones.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { withTransaction } from '../storage/transaction.js';
import { hashPassword, storePasswordHash } from './passwords.js';

export const INVITATION_TTL_MS = 7 * 86_400_000;
/** The path of the page that redeems a token (the web interface serves it). */
export const INVITATION_PATH = '/invitation/';

export interface Invitation {
  readonly token: string;
  readonly expiresAt: number;
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new invitation for the user; older unused ones stop working. */
export async function createInvitation(db: Kysely<Database>, userId: number, now = Date.now(), ttlMs = INVITATION_TTL_MS): Promise<Invitation> {
  const token = randomBytes(32).toString('base64url');
  return withTransaction(db, async (trx) => {
    const user = await trx.selectFrom('users').select(['id', 'account_id']).where('id', '=', userId).executeTakeFirstOrThrow();
    await trx.updateTable('invitations').set({ used_at: now }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
    await trx.insertInto('invitations').values({
      token_hash: tokenHash(token), account_id: user.account_id, user_id: user.id, created_at: now, expires_at: now + ttlMs,
    }).execute();
    return { token, expiresAt: now + ttlMs };
  });
}

export interface InvitedUser {
  readonly userId: number;
  readonly email: string;
  readonly name: string;
}

/** The active user an unused, unexpired invitation is for; undefined for any other token. */
export async function invitedUser(db: Kysely<Database>, token: string, now = Date.now()): Promise<InvitedUser | undefined> {
  if (token.length === 0 || token.length > 100) return undefined;
  const row = await db.selectFrom('invitations as i')
    .innerJoin('users as u', (join) => join.onRef('u.id', '=', 'i.user_id').onRef('u.account_id', '=', 'i.account_id'))
    .select(['u.id', 'u.email', 'u.first_name', 'u.last_name', 'u.active', 'i.expires_at', 'i.used_at'])
    .where('i.token_hash', '=', tokenHash(token))
    .executeTakeFirst();
  if (row === undefined || row.used_at !== null || row.expires_at <= now || row.active !== 1) return undefined;
  return { userId: row.id, email: row.email, name: `${row.first_name} ${row.last_name}` };
}

/**
 * Sets the password through the invitation and uses it up; undefined when the token is not (or
 * no longer) valid. Marking it used is conditional, so two redemptions racing cannot both win.
 */
export async function redeemInvitation(db: Kysely<Database>, token: string, password: string, now = Date.now()): Promise<InvitedUser | undefined> {
  const user = await invitedUser(db, token, now);
  if (user === undefined) return undefined;
  const hash = await hashPassword(password);
  return withTransaction(db, async (trx) => {
    const used = await trx.updateTable('invitations').set({ used_at: now })
      .where('token_hash', '=', tokenHash(token)).where('used_at', 'is', null).executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) return undefined;
    await storePasswordHash(trx, user.userId, hash);
    return user;
  });
}
