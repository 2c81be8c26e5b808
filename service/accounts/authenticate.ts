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

export async function authenticate(db: Kysely<Database>, key: string): Promise<AuthenticationResult> {
  if (!isPlausibleApiKey(key)) return { ok: false, reason: 'unknown' };
  const hash = hashApiKey(key);
  const row = await db.selectFrom('api_keys as k')
    .innerJoin('users as u', (join) => join.onRef('u.id', '=', 'k.user_id').onRef('u.account_id', '=', 'k.account_id'))
    .select(['k.hash', 'k.revoked_at', 'u.account_id', 'u.id', 'u.access_rights', 'u.active'])
    .where('k.hash', '=', hash)
    .executeTakeFirst();
  // The index lookup compares digests, not keys, so its timing says nothing about the key; the
  // explicit constant-time check makes that independent of how the database compares text.
  if (row === undefined || !digestsEqual(row.hash, hash)) return { ok: false, reason: 'unknown' };
  if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
  if (row.active !== 1) return { ok: false, reason: 'inactive-user' };
  return { ok: true, accountId: row.account_id, userId: row.id, accessRights: row.access_rights };
}
