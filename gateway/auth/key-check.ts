// The optional gateway-level key check: a set of allowed keys (plain or as SHA-256 hashes). The
// hashes are compared, never the plain keys, so the check takes the same time whatever key comes.
import { createHash } from 'node:crypto';

export type KeyCheck = (key: string | undefined) => boolean;

const SHA256_PREFIX = 'sha256:';

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Accepts every request (the upstream decides); a list makes it accept only those keys. */
export function createKeyCheck(allowedKeys: readonly string[] | undefined): KeyCheck {
  if (allowedKeys === undefined) return () => true;
  const hashes = new Set(
    allowedKeys.map((entry) => (entry.toLowerCase().startsWith(SHA256_PREFIX) ? entry.slice(SHA256_PREFIX.length).toLowerCase() : sha256(entry))),
  );
  return (key) => key !== undefined && hashes.has(sha256(key));
}

/** `sha256:<hex>` of a key, for a configuration file. */
export function hashedKeyEntry(key: string): string {
  return SHA256_PREFIX + sha256(key);
}
