// The caller's credential as the gateway reads it once per request, at the edge (auth-feature.ts),
// for everything after: the key (the credential interceptor writes it upstream in the upstream's
// form), the form it came in (the query key grants reads only), and its partition, a hash of the
// key (never the key itself) that the read cache, the rate limiter and credential freshness keep
// their state under (RFC 9111 §3.5: a shared cache must not answer one credential with another's
// response).
import { createHash } from 'node:crypto';
import type { ApiKeyForm } from '../../odata/api-key.js';

export interface RequestCredential {
  /** The key as it came; undefined for a request without one. */
  readonly key: string | undefined;
  readonly form: ApiKeyForm | undefined;
  /** `k:<hash of the key>`, or `anonymous`. */
  readonly partition: string;
}

export const ANONYMOUS: RequestCredential = { key: undefined, form: undefined, partition: 'anonymous' };

/** Domain separation: these hashes are not interchangeable with any other hash of the key. */
const DOMAIN = 'timegate-partition\0';

/**
 * The partitions of the keys seen lately, so a key is hashed once, not on every request: a
 * SHA-256 (a Hash object, two updates, a digest) was the largest item of our own in the profile of
 * an uncached relay (issue 30). Bounded: emptied when full, as a key is cheap to hash again.
 */
const partitions = new Map<string, string>();
const MAX_REMEMBERED_KEYS = 10_000;

export function partitionOf(key: string): string {
  let partition = partitions.get(key);
  if (partition === undefined) {
    partition = `k:${createHash('sha256').update(DOMAIN).update(key).digest('base64url').slice(0, 32)}`;
    if (partitions.size >= MAX_REMEMBERED_KEYS) partitions.clear();
    partitions.set(key, partition);
  }
  return partition;
}

export function requestCredential(key: string, form: ApiKeyForm): RequestCredential {
  return { key, form, partition: partitionOf(key) };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Read by the auth hook before anything else looks at the request. */
    credential: RequestCredential;
  }
}
