// The caller's credential as a partition name: a hash of the key, never the key itself (RFC 9111
// §3.5: a shared cache must not answer one credential with another's response). Used by the
// cache keys and the rate limiter's counters alike.
import { createHash } from 'node:crypto';
import { callerKeyOf } from '../auth/caller-key.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** Domain separation: these hashes are not interchangeable with any other hash of the key. */
const DOMAIN = 'timegate-partition\0';

export function hashCredential(key: string): string {
  return createHash('sha256').update(DOMAIN).update(key).digest('base64url').slice(0, 32);
}

/** The partition of a request: `k:<hash>` for a key in any form, undefined without one. */
export function credentialPartition(headers: Headers, query: unknown, keyHeaders?: readonly string[]): string | undefined {
  const caller = callerKeyOf(headers, (query ?? {}) as Readonly<Record<string, unknown>>, keyHeaders);
  return caller === undefined ? undefined : `k:${hashCredential(caller.key)}`;
}
