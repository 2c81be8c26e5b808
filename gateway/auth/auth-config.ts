// What the gateway accepts as a caller's key, and whether it checks keys itself.

export interface AuthConfig {
  /** Header names accepted for the key besides X-ServiceApiKey (any casing), for clients of the
   *  original service that use another name. */
  readonly keyHeaderAliases: readonly string[];
  /**
   * Keys the gateway lets through: each a key as is, or `sha256:<hex>` of it (so the file need
   * not hold the keys). Undefined: the gateway does not check, the upstream decides (default).
   */
  readonly allowedKeys: readonly string[] | undefined;
}

export const DEFAULT_AUTH_CONFIG: AuthConfig = {
  keyHeaderAliases: [],
  allowedKeys: undefined,
};
