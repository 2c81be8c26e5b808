// Web interface passwords: scrypt (node:crypto), memory-hard, with a random salt per password.
// The stored form names its parameters (`scrypt$N$r$p$salt$hash`), so they can be raised later
// without invalidating what is stored. Setting a password ends every session of the user.
//
// Why these parameters: N=2^15, r=8 needs 32 MiB and about 60-120 ms of one core here; enough to
// make guessing expensive, little enough that the sign-in rate limit, not the CPU, bounds attempts.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { withTransaction } from '../storage/transaction.js';

const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** scrypt needs 128 * N * r bytes; Node refuses at its 32 MiB default limit itself. */
const MAX_MEMORY = 64 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

export type PasswordProblem = 'too-short' | 'too-long';

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { N: n, r, p, maxmem: MAX_MEMORY }, (error, key) => {
      if (error === null) resolve(key);
      else reject(error);
    });
  });
}

/** Why a new password is not acceptable, or undefined. */
export function passwordProblem(password: string): PasswordProblem | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return 'too-short';
  if (length > PASSWORD_MAX_LENGTH) return 'too-long';
  return undefined;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, N, R, P);
  return ['scrypt', N, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/** A hash of nothing anybody knows, checked when there is no user, so both cost the same time. */
let decoy: Promise<string> | undefined;

/**
 * Whether `password` matches `stored`. With no stored hash (unknown user, no password yet) it
 * still derives a key against a decoy, so the answer takes as long as a wrong password.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  const parts = (stored ?? await decoy).split('$');
  const [scheme, n, r, p, salt, key] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64');
  const given = await derive(password.slice(0, PASSWORD_MAX_LENGTH * 4), Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return stored != null && expected.length === given.length && timingSafeEqual(expected, given);
}

/** Stores a new password for the user and ends all of their sessions (in one transaction). */
export async function setPassword(db: Kysely<Database>, userId: number, password: string): Promise<void> {
  // Derived before the transaction: SQLite's write lock is not held through 100 ms of scrypt.
  await storePasswordHash(db, userId, await hashPassword(password));
}

/** Stores (or with null removes) the user's password hash and ends all of their sessions. */
export async function storePasswordHash(db: Kysely<Database>, userId: number, hash: string | null): Promise<void> {
  await withTransaction(db, async (trx) => {
    await trx.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).execute();
    await trx.deleteFrom('web_sessions').where('user_id', '=', userId).execute();
  });
}
