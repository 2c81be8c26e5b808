// The key of a cached response: the credential's partition, the path and query (without an
// ApiKey parameter: the key is in the partition, hashed), and every request header that chooses
// the representation. Hashed, so neither keys nor URLs are readable in the store.
import { createHash } from 'node:crypto';
import { withoutQueryKey } from '../../odata/api-key.js';
import type { Face } from '../ops/metrics.js';
import { ODATA_KEY_HEADERS, REST_KEY_HEADERS } from './http-caching.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** `partition` is the request credential's (`k:<hash>` or `anonymous`). GET and HEAD share their entries. */
export function cacheKeyOf(face: Face, partition: string, url: string, headers: Headers): string {
  const hash = createHash('sha256').update(partition).update('\0').update(withoutQueryKey(url));
  for (const name of face === 'rest' ? REST_KEY_HEADERS : ODATA_KEY_HEADERS) {
    const value = headers[name];
    hash.update('\0');
    if (value !== undefined) hash.update(Array.isArray(value) ? value.join(',') : value);
  }
  return hash.digest('base64url');
}
