// Limits against abusive URIs and batches. Every parser of odata/ takes them; the defaults suit
// the time-tracking service, and service/ or gateway/ may override any of them from configuration.

export interface QueryLimits {
  /** Characters of a `$filter` (after percent-decoding). */
  readonly maxFilterLength: number;
  /** Nodes of a parsed `$filter` expression (operators, literals, property paths, calls). */
  readonly maxFilterNodes: number;
  /** Nesting of parentheses, unary operators and function calls in `$filter`. */
  readonly maxFilterDepth: number;
  /** Navigation steps of one `$expand` path (`A/B/C` is 3). */
  readonly maxExpandDepth: number;
  /** Paths in one `$expand` (`A,B/C` is 2). */
  readonly maxExpandPaths: number;
  /** Items in one `$orderby`. */
  readonly maxOrderByItems: number;
  /** Largest `$top` accepted. */
  readonly maxTop: number;
  /** Characters of one literal (`'...'`, `X'...'`, a number), a key value or a `$skiptoken`. */
  readonly maxLiteralLength: number;
}

export const DEFAULT_LIMITS: QueryLimits = Object.freeze({
  maxFilterLength: 4096,
  maxFilterNodes: 200,
  maxFilterDepth: 50,
  maxExpandDepth: 3,
  maxExpandPaths: 20,
  maxOrderByItems: 10,
  maxTop: 1000,
  maxLiteralLength: 2048,
});

/** The defaults with the given overrides; a missing or undefined entry keeps its default. */
export function resolveLimits(overrides?: Partial<QueryLimits>): QueryLimits {
  if (!overrides) return DEFAULT_LIMITS;
  const merged: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined || !(name in DEFAULT_LIMITS)) continue;
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`limit ${name} must be a non-negative integer`);
    merged[name] = value;
  }
  return Object.freeze(merged) as unknown as QueryLimits;
}

export interface BatchLimits {
  /** Bytes of a whole `$batch` body (413 beyond). */
  readonly maxBytes: number;
  /** Operations in one batch: retrieves plus the requests inside changesets. */
  readonly maxOperations: number;
  /** Bytes of one header block: a part's MIME headers, or the request line and headers inside it. */
  readonly maxHeaderBytes: number;
}

export const DEFAULT_BATCH_LIMITS: BatchLimits = Object.freeze({
  maxBytes: 16 * 1024 * 1024,
  maxOperations: 1000,
  // Node's own limit for the request line and headers of a whole HTTP request.
  maxHeaderBytes: 16 * 1024,
});
