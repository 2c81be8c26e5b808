// API keys: random, shown once, stored only as a hash.
//
// Why a fast hash (sha-256) and not bcrypt/scrypt: those slow hashes exist to make guessing
// low-entropy passwords expensive. A key here is 256 random bits; nobody can enumerate that space
// at any hash speed, so a slow hash would only cost every request a few milliseconds of CPU.
// A plain digest also lets the key be looked up by an index on its hash.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Makes a timegate key recognisable in logs, configs and secret scanners. */
export const API_KEY_PREFIX = 'tg_';

const KEY_BYTES = 32;
/** How many characters of the key are kept to show a person which key is which. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;
/** Longer input cannot be one of our keys; refuse it before hashing arbitrary amounts of data. */
const MAX_KEY_LENGTH = 256;

/** A new key: `tg_` + 43 url-safe characters carrying 256 random bits. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(KEY_BYTES).toString('base64url');
}

/** The stored form of a key: sha-256, lowercase hex. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The part of a key that may be stored and shown ("tg_AbC12x"), too short to be of use alone. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Whether the text can be a key at all (cheap pre-check before any database work). */
export function isPlausibleApiKey(text: string): boolean {
  return text.length > 0 && text.length <= MAX_KEY_LENGTH;
}

/** Compares two hex digests in time independent of where they differ. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
