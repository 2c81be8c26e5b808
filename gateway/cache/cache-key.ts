// The key of a cached response: the credential's partition, the path and query (without an
// ApiKey parameter: the key is in the partition, hashed), and every request header that chooses
// the representation. Hashed, so neither keys nor URLs are readable in the store.
import { createHash } from 'node:crypto';
import { withoutQueryKey } from '../../odata/api-key.js';
import type { Face } from '../ops/metrics.js';
import { ODATA_KEY_HEADERS, REST_KEY_HEADERS } from './http-caching.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/**
 * The keys of the requests seen lately, by what they are made of, so a client asking for the same
 * thing again costs a string and a lookup, not a SHA-256 (a Hash object, updates, a digest: the
 * largest item of our own in the profile of a cache hit). Bounded: emptied when full.
 */
const keys = new Map<string, string>();
const MAX_REMEMBERED_KEYS = 10_000;

const valueOf = (value: string | string[] | undefined): string => (value === undefined ? '' : Array.isArray(value) ? value.join(',') : value);

/** `partition` is the request credential's (`k:<hash>` or `anonymous`). GET and HEAD share their entries. */
export function cacheKeyOf(face: Face, partition: string, url: string, headers: Headers): string {
  const names = face === 'rest' ? REST_KEY_HEADERS : ODATA_KEY_HEADERS;
  let parts = `${face}\0${partition}\0${url}`;
  for (const name of names) parts += `\0${valueOf(headers[name])}`;
  let key = keys.get(parts);
  if (key === undefined) {
    const hash = createHash('sha256').update(partition).update('\0').update(withoutQueryKey(url));
    for (const name of names) hash.update('\0').update(valueOf(headers[name]));
    key = hash.digest('base64url');
    if (keys.size >= MAX_REMEMBERED_KEYS) keys.clear();
    keys.set(parts, key);
  }
  return key;
}
