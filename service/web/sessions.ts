// Web sessions, kept in the database: the cookie holds a random token, the table its sha-256 hash
// with the session's CSRF token. Every request looks the session up joined with its user, so a
// deactivated user (or a password change, which deletes the rows) ends it at once, on every
// replica. Sessions expire after SESSION_TTL_MS whatever their use.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { callerOf } from '../http/authenticator.js';
import type { Database } from '../storage/schema.js';
import type { Caller } from '../timetracking/caller.js';

export const SESSION_TTL_MS = 12 * 3_600_000;

export interface WebSession {
  readonly caller: Caller;
  readonly csrfToken: string;
  readonly user: { readonly name: string; readonly email: string; readonly language: string };
  /** The account's IANA time zone: the wall clock of the pages. */
  readonly timeZone: string;
}

function hashOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Starts a session for the user; the token to set as the cookie. */
export async function startSession(db: Kysely<Database>, accountId: number, userId: number, now = Date.now()): Promise<string> {
  const token = newToken();
  await db.insertInto('web_sessions').values({
    token_hash: hashOf(token), account_id: accountId, user_id: userId, csrf_token: newToken(), created_at: now, expires_at: now + SESSION_TTL_MS,
  }).execute();
  return token;
}

/** The live session of a cookie's token: unexpired, its user active; else undefined. */
export async function sessionOf(db: Kysely<Database>, token: string | undefined, now = Date.now()): Promise<WebSession | undefined> {
  if (token === undefined || token.length === 0 || token.length > 100) return undefined;
  const row = await db.selectFrom('web_sessions as s')
    .innerJoin('users as u', (join) => join.onRef('u.id', '=', 's.user_id').onRef('u.account_id', '=', 's.account_id'))
    .innerJoin('account_settings as a', 'a.account_id', 's.account_id')
    .select(['s.csrf_token', 's.expires_at', 'u.id', 'u.account_id', 'u.access_rights', 'u.active', 'u.first_name', 'u.last_name', 'u.email', 'u.language', 'a.time_zone'])
    .where('s.token_hash', '=', hashOf(token))
    .executeTakeFirst();
  if (row === undefined || row.expires_at <= now || row.active !== 1) return undefined;
  const caller = await callerOf(db, { accountId: row.account_id, userId: row.id, accessRights: row.access_rights });
  return {
    caller,
    csrfToken: row.csrf_token,
    user: { name: `${row.first_name} ${row.last_name}`, email: row.email, language: row.language },
    timeZone: row.time_zone,
  };
}

export async function endSession(db: Kysely<Database>, token: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('token_hash', '=', hashOf(token)).execute();
}

/** Ends every session of the user but the one of `keepToken`. */
export async function endOtherSessions(db: Kysely<Database>, userId: number, keepToken: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('user_id', '=', userId).where('token_hash', '!=', hashOf(keepToken)).execute();
}
