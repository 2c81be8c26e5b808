// The read cache's settings (the `cache` object of the gateway configuration).

export interface CacheConfig {
  readonly enabled: boolean;
  /** Freshness of an entry of a set without its own TTL. */
  readonly defaultTtlSeconds: number;
  /** Freshness per entity set name (`TimeEntries: 10`), overriding the default. */
  readonly ttlSecondsBySet: Readonly<Record<string, number>>;
  /** Freshness of `$metadata` and the service document, which change only with a deployment. */
  readonly metadataTtlSeconds: number;
  /** How long past its freshness an entry may still be served when the upstream fails (RFC 5861). */
  readonly staleIfErrorSeconds: number;
  /** Larger responses are passed on, not stored. */
  readonly maxEntryBytes: number;
  /** Bound of the in-process store. */
  readonly maxMemoryBytes: number;
  /** With Redis: how long one instance may fill a key while the others wait for it. */
  readonly fillClaimMs: number;
}

export const DEFAULT_CACHE_CONFIG: CacheConfig = {
  enabled: true,
  defaultTtlSeconds: 10,
  ttlSecondsBySet: {},
  metadataTtlSeconds: 3_600,
  staleIfErrorSeconds: 300,
  maxEntryBytes: 1024 * 1024,
  maxMemoryBytes: 64 * 1024 * 1024,
  fillClaimMs: 2_000,
};
