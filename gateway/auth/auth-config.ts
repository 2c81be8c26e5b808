// What the gateway accepts as a caller's key, whether it checks keys itself, and how long an
// acceptance by the upstream lets cached answers be served to a key.
import { API_KEY_HEADER } from '../../odata/api-key.js';

export interface AuthConfig {
  /** Header names accepted for the key besides X-ServiceApiKey (any casing), for clients of the
   *  original service that use another name. */
  readonly keyHeaderAliases: readonly string[];
  /**
   * Keys the gateway lets through: each a key as is, or `sha256:<hex>` of it (so the file need
   * not hold the keys). Undefined: the gateway does not check, the upstream decides (default).
   */
  readonly allowedKeys: readonly string[] | undefined;
  /**
   * How long after the upstream last accepted a key cached answers may be served to it
   * (`--auth-ttl`); past it, the request goes upstream first. The service's own key cache keeps a
   * key for 5 s, so a revoked key is refused within about twice this.
   */
  readonly ttlSeconds: number;
}

export const DEFAULT_AUTH_CONFIG: AuthConfig = {
  keyHeaderAliases: [],
  allowedKeys: undefined,
  ttlSeconds: 5,
};

/** Lower-case names of the headers a caller may send its key in. */
export function keyHeadersOf(auth: AuthConfig): readonly string[] {
  return [...new Set([API_KEY_HEADER, ...auth.keyHeaderAliases.map((name) => name.toLowerCase())])];
}
