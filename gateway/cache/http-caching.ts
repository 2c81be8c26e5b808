// The HTTP caching rules the read cache applies (RFC 9111, RFC 5861, RFC 9110 §13, RFC 9211), as
// pure functions of headers: what the client allows, whether a response may be stored and for how
// long, which headers are kept with it, conditional requests against a stored entry, and what an
// answer tells the caches after the gateway (Cache-Control, Vary, Cache-Status).

type Headers = Readonly<Record<string, string | string[] | number | undefined>>;

export interface RequestDirectives {
  /** `no-cache`, `max-age=0` or `Pragma: no-cache`: go to the upstream, store the answer. */
  readonly mustRevalidate: boolean;
  /** `no-store`: neither answer from nor store into the cache. */
  readonly noStore: boolean;
}

function text(value: string | string[] | number | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(',') : String(value);
}

function directives(header: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (name !== '') found.set(name, eq < 0 ? '' : part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  return found;
}

const NONE: RequestDirectives = { mustRevalidate: false, noStore: false };

export function requestDirectives(headers: Headers): RequestDirectives {
  const cacheControl = text(headers['cache-control']);
  const pragma = text(headers.pragma);
  if (cacheControl === '' && pragma === '') return NONE;
  const found = directives(cacheControl);
  return {
    mustRevalidate: found.has('no-cache') || found.get('max-age') === '0' || (cacheControl === '' && /no-cache/i.test(pragma)),
    noStore: found.has('no-store'),
  };
}

/**
 * How many seconds a response may be stored fresh: `ttlSeconds` from configuration, shortened by
 * the upstream's own `s-maxage`/`max-age`; undefined when it must not be stored at all (not a 200,
 * `no-store`, `no-cache`, a `Set-Cookie`, `Vary: *`). `private` responses are stored, because
 * every entry is private to its credential's partition anyway.
 */
export function storableSeconds(status: number, headers: Headers, ttlSeconds: number): number | undefined {
  if (status !== 200 || ttlSeconds <= 0) return undefined;
  if (headers['set-cookie'] !== undefined) return undefined;
  if (!variesOnlyOnKeyHeaders(text(headers.vary))) return undefined;
  const cacheControl = text(headers['cache-control']);
  if (cacheControl === '') return ttlSeconds;
  const found = directives(cacheControl);
  if (found.has('no-store') || found.has('no-cache')) return undefined;
  const upstreamAge = Number(found.get('s-maxage') ?? found.get('max-age'));
  if (Number.isFinite(upstreamAge) && upstreamAge >= 0) return upstreamAge === 0 ? undefined : Math.min(ttlSeconds, upstreamAge);
  return ttlSeconds;
}

/**
 * The request headers that choose a representation, so they are part of every cache key. On the
 * REST face: the negotiation headers. On the OData face also the JSON shape of OData V2
 * (`MaxDataServiceVersion`) and the host and scheme its absolute URIs are written for (REST
 * documents link relatively, so replicas behind different host names share their entries).
 */
export const REST_KEY_HEADERS = ['accept', 'accept-encoding', 'accept-language'] as const;
export const ODATA_KEY_HEADERS = [
  ...REST_KEY_HEADERS,
  'maxdataserviceversion',
  'dataserviceversion',
  'host',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-prefix',
] as const;

/**
 * Headers a response may vary on and still be replayed: the key headers, and Origin, which only
 * the CORS fields depend on (they are made for each request and never stored).
 */
const REPLAYABLE_VARY = new Set<string>([...ODATA_KEY_HEADERS, 'origin']);

/** A response that varies on a header outside the key (or on `*`) cannot be replayed safely. */
function variesOnlyOnKeyHeaders(vary: string): boolean {
  if (vary === '') return true;
  return vary.split(',').every((name) => REPLAYABLE_VARY.has(name.trim().toLowerCase()));
}

/** Headers that belong to one response or one connection, never replayed from the cache. */
const NOT_STORED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authenticate',
  'proxy-connection',
  'date',
  'content-length',
  'set-cookie',
  'age',
  'x-cache',
  'cache-status',
  'cache-control',
  'x-request-id',
  'retry-after',
  'ratelimit',
  'ratelimit-policy',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-expose-headers',
]);

export function storedHeaders(headers: Headers): Array<[string, string]> {
  const kept: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || NOT_STORED.has(lower)) continue;
    kept.push([lower, text(value)]);
  }
  return kept;
}

/** Headers a stored response replaces when it is served instead of an error. */
export const REPLACED_BY_STORED = ['content-type', 'content-length', 'content-encoding', 'content-language', 'etag', 'last-modified', 'cache-control', 'location', 'vary', 'www-authenticate'];

/** An entity tag without its weakness marker (If-None-Match compares weakly, RFC 9110 §13.1.2). */
function opaqueTag(tag: string): string {
  const trimmed = tag.trim();
  return trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed;
}

export interface Conditional {
  readonly ifNoneMatch: string | undefined;
  readonly ifModifiedSince: string | undefined;
}

export function conditionalOf(headers: Headers): Conditional | undefined {
  const ifNoneMatch = text(headers['if-none-match']);
  const ifModifiedSince = text(headers['if-modified-since']);
  if (ifNoneMatch === '' && ifModifiedSince === '') return undefined;
  return { ifNoneMatch: ifNoneMatch || undefined, ifModifiedSince: ifModifiedSince || undefined };
}

/** Whether a response with these validators answers the condition with 304 Not Modified. */
export function isNotModified(conditional: Conditional, etag: string | undefined, lastModified: string | undefined): boolean {
  if (conditional.ifNoneMatch !== undefined) {
    // If-Modified-Since is ignored when If-None-Match is present (RFC 9110 §13.1.3).
    if (etag === undefined) return false;
    if (conditional.ifNoneMatch.trim() === '*') return true;
    const wanted = opaqueTag(etag);
    return conditional.ifNoneMatch.split(',').some((tag) => opaqueTag(tag) === wanted);
  }
  if (conditional.ifModifiedSince === undefined || lastModified === undefined) return false;
  const since = Date.parse(conditional.ifModifiedSince);
  const modified = Date.parse(lastModified);
  return Number.isFinite(since) && Number.isFinite(modified) && modified <= since;
}

export function headerOf(headers: ReadonlyArray<readonly [string, string]>, name: string): string | undefined {
  for (const [key, value] of headers) if (key === name) return value;
  return undefined;
}

/** What the read cache did for one request, as Cache-Status (RFC 9211) and X-Cache tell it. */
export type CacheOutcome =
  /** Answered from a stored answer; `ttlSeconds` of freshness left; `collapsed`: another request's fill. */
  | { readonly kind: 'hit'; readonly ttlSeconds: number; readonly isCollapsed: boolean }
  /** Forwarded; its answer stored for `storedSeconds` when it was. `forward` is why (RFC 9211 `fwd`). */
  | { readonly kind: 'forward'; readonly forward: 'miss' | 'stale' | 'request' | 'bypass'; readonly storedSeconds?: number }
  /** Forwarded, the upstream failed, a stored answer `ttlSeconds` past its freshness served instead. */
  | { readonly kind: 'stale'; readonly forward: 'miss' | 'stale' | 'request'; readonly ttlSeconds: number; readonly upstreamStatus: number };

const CACHE_NAME = 'timegate';

export function cacheStatusOf(outcome: CacheOutcome, upstreamStatus: number): string {
  switch (outcome.kind) {
    case 'hit':
      return `${CACHE_NAME}; hit; ttl=${outcome.ttlSeconds}${outcome.isCollapsed ? '; collapsed' : ''}`;
    case 'forward':
      return outcome.forward === 'bypass'
        ? `${CACHE_NAME}; fwd=bypass`
        : `${CACHE_NAME}; fwd=${outcome.forward}; fwd-status=${upstreamStatus}${outcome.storedSeconds === undefined ? '' : '; stored'}`;
    case 'stale':
      return `${CACHE_NAME}; fwd=${outcome.forward}; fwd-status=${outcome.upstreamStatus}; ttl=${outcome.ttlSeconds}`;
  }
}

export function xCacheOf(outcome: CacheOutcome): string | undefined {
  if (outcome.kind === 'hit') return 'HIT';
  if (outcome.kind === 'stale') return 'STALE';
  return outcome.forward === 'bypass' ? undefined : 'MISS';
}

/**
 * The Cache-Control of an answer given on behalf of a credential: `private` always (a shared
 * cache after the gateway must not give it to anyone else), with the freshness the gateway itself
 * gives it when it has one, else the upstream's directives, else `no-cache` (a browser may keep
 * it, but asks again before using it).
 */
export function privateCacheControl(maxAgeSeconds: number | undefined, upstream: string | undefined): string {
  if (maxAgeSeconds !== undefined) return `private, max-age=${Math.max(0, maxAgeSeconds)}`;
  if (upstream === undefined || upstream.trim() === '') return 'private, no-cache';
  const kept = upstream.split(',').map((part) => part.trim()).filter((part) => part !== '' && !/^(public|private|s-maxage=.*)$/i.test(part));
  return ['private', ...kept].join(', ');
}

/** `vary` with `names` added (case-insensitively once each). */
export function withVary(vary: string | undefined, names: readonly string[]): string {
  const present = (vary ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (present.includes('*')) return '*';
  const lower = new Set(present.map((name) => name.toLowerCase()));
  for (const name of names) if (!lower.has(name.toLowerCase())) present.push(name);
  return present.join(', ');
}
