// Who is calling: the API key of a request -> the user it belongs to, or why nobody.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { digestsEqual, hashApiKey, isPlausibleApiKey } from './api-keys.js';

export interface Principal {
  readonly accountId: number;
  readonly userId: number;
  /** 10 = standard user, 20 = administrator. */
  readonly accessRights: number;
}

export type AuthenticationFailure = 'unknown' | 'revoked' | 'inactive-user';

export type AuthenticationResult =
  | ({ readonly ok: true } & Principal)
  | { readonly ok: false; readonly reason: AuthenticationFailure };

/** A key's last use is recorded to the minute: one write a minute per key at most, not one a request. */
const LAST_USE_STEP_MS = 60_000;

async function noteUse(db: Kysely<Database>, keyId: number, lastUsedAt: number | null, now: number): Promise<void> {
  if (lastUsedAt !== null && now - lastUsedAt < LAST_USE_STEP_MS) return;
  try {
    await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', keyId).execute();
  } catch {
    // The profile's "last used" is a convenience: a busy database must not refuse the request.
  }
}

export async function authenticate(db: Kysely<Database>, key: string, now = Date.now()): Promise<AuthenticationResult> {
  if (!isPlausibleApiKey(key)) return { ok: false, reason: 'unknown' };
  const hash = hashApiKey(key);
  const row = await db.selectFrom('api_keys as k')
    .innerJoin('users as u', (join) => join.onRef('u.id', '=', 'k.user_id').onRef('u.account_id', '=', 'k.account_id'))
    .select(['k.id as key_id', 'k.hash', 'k.revoked_at', 'k.last_used_at', 'u.account_id', 'u.id', 'u.access_rights', 'u.active'])
    .where('k.hash', '=', hash)
    .executeTakeFirst();
  // The index lookup compares digests, not keys, so its timing says nothing about the key; the
  // explicit constant-time check makes that independent of how the database compares text.
  if (row === undefined || !digestsEqual(row.hash, hash)) return { ok: false, reason: 'unknown' };
  if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
  if (row.active !== 1) return { ok: false, reason: 'inactive-user' };
  await noteUse(db, row.key_id, row.last_used_at, now);
  return { ok: true, accountId: row.account_id, userId: row.id, accessRights: row.access_rights };
}
