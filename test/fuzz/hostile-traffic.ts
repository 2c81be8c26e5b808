// Hostile requests for the edge fuzz (edge-fuzz.ts), drawn from a seeded PRNG so that a seed is
// a reproducible run: methods a face does not serve, bodies where none belong, `Expect`,
// content and transfer encodings that lie, every spelling of the query key (well-formed and
// malformed, with a real key, an unknown one or none) and requests written as raw bytes that no
// HTTP client would send (request smuggling shapes, bare LF, NUL, oversized lines). Pure: no I/O.

/** Where a request goes: the service itself, or one of the gateway's faces. */
export type Target = 'service' | 'odata' | 'rest';

/** The keys a run knows: real ones (admin, user), one of the right shape no one has, and none. */
export interface FuzzKeys {
  readonly admin: string;
  readonly user: string;
  readonly unknown: string;
}

export type HostileRequest =
  | {
    readonly kind: 'http';
    readonly target: Target;
    readonly method: string;
    /** Path and query below the target's origin. */
    readonly path: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: Buffer | undefined;
  }
  | {
    readonly kind: 'raw';
    readonly target: Target;
    /** The whole request as sent on a fresh connection (which it asks to close). */
    readonly bytes: Buffer;
  };

/** mulberry32: small, fast and the same on every platform. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const JUNK = ['', "'", '(', ')', '%00', '%ZZ', '%ED%A0%80', '%2e%2e%2f', '..', '$batch', '$value', '$count', '$links', '-1', '99999999999999999999', "X'00'", 'a'.repeat(600)];
const ODATA_SETS = ['TimeEntries', 'Projects', 'Clients', 'Users', 'AccountSettings', 'CurrentStopWatch', 'StartStopWatch', 'StopStopWatch', 'GetChangesDigest', '$metadata', '', 'Nope', 'projects', ...JUNK];
const ODATA_KEYS = ['', '(1)', '(2)', '(0)', "('1')", '(ID=1)', '()', '(%00)', '(1', '(99999999999)'];
const ODATA_TAILS = ['', '', '/Name', '/$value', '/$count', '/Project', '/$links/Project', '/Client/Projects', '/%ZZ', '/..'];
const ODATA_OPTIONS = ['$format=json', '$format=atom', '$format=x', '$top=5', '$top=-1', '$top=99999999999', '$skip=x', "$filter=ID eq 1", '$filter=substringof(', '$filter=%ZZ', '$orderby=Name desc', '$select=ID,Nope', '$expand=Project', '$expand=Nope', '$inlinecount=allpages', '$skiptoken=%00', "LastSynchronizationTime=datetime'2026-11-01T00:00:00'", '$callback=<script>', '$batch', '=', '&&', 'a=b=c'];
const PLAUSIBLE_ODATA_SETS = ['TimeEntries', 'TimeEntries', 'Projects', 'Clients', 'Users', '$metadata', '', 'CurrentStopWatch'];
const PLAUSIBLE_REST_SETS = ['time-entries', 'time-entries', 'projects', 'clients', 'users', 'stopwatch'];
const REST_SETS = ['time-entries', 'projects', 'clients', 'users', 'stopwatch', 'stopwatch/halt', 'changes-digest', 'account-settings', 'nope', '', ...JUNK];
const REST_KEYS = ['', '', '/1', '/2', '/0', '/-1', '/x', '/1.5', '/%00', '/99999999999', ':select', '/1:select', '/x:select', '/1:select:select', '/%3Aselect'];
const REST_OPTIONS = ['limit=5', 'limit=0', 'limit=x', 'limit=1001', 'filter=id eq 1', 'filter=(', 'orderBy=name desc', 'orderBy=nope', 'select=id,name', 'expand=project', 'cursor=eyJ9.x', 'cursor=%ZZ', 'lastSynchronizationTime=2026-11-01T00:00:00Z', '=', 'a=b=c'];
const METHODS = ['GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'POST', 'PUT', 'PATCH', 'MERGE', 'DELETE', 'OPTIONS'];
const RAW_METHODS = ['GET', 'POST', 'FOO', 'TRACE', 'PROPFIND', 'get', 'G ET', 'MERGE'];
const CONTENT_TYPES = ['application/json', 'application/atom+xml', 'application/xml', 'text/plain', 'application/merge-patch+json', 'multipart/mixed; boundary=b', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded', ''];
const ACCEPTS = ['application/json', 'application/atom+xml', 'application/problem+json', 'text/html', '*/*', 'application/json;odata=verbose', 'x/y;q=0'];
const ENCODINGS = ['gzip', 'br', 'deflate', 'identity', 'x-nope', 'gzip, gzip'];
const EXPECTS = ['100-continue', '100-Continue', 'nothing-of-the-sort', '100-continue, foo'];
const KEY_HEADER_NAMES = ['x-serviceapikey', 'X-ServiceApiKey', 'X-SERVICEAPIKEY'];

/** Every spelling of the query key a client (or an attacker) might try; `{K}` is the key. */
const QUERY_KEY_SPELLINGS = ['ApiKey={K}', 'apikey={K}', 'APIKEY={K}', '%41piKey={K}', 'Api%4Bey={K}', 'ApiKey%00={K}', 'x=1;ApiKey={K}', 'ApiKey[]={K}', 'ApiKey%5B%5D={K}', '%20ApiKey={K}', 'ApiKey%20={K}', 'api_key={K}', 'Api-Key={K}', 'ApiKey={K}&ApiKey={K2}', 'ApiKey={K}&ApiKey={K}', 'ApiKey=%ZZ{K}', 'ApiKey={K}%00', 'ApiKey=%4B', 'ApiKey', 'ApiKey=', 'ApiKey+={K}'];

function percentEncodeAll(text: string): string {
  return [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

export class HostileTraffic {
  private readonly random: () => number;

  constructor(seed: number, private readonly keys: FuzzKeys) {
    this.random = seededRandom(seed);
  }

  /** The next request of the run. */
  next(): HostileRequest {
    const target = this.pick<Target>(['service', 'odata', 'odata', 'rest', 'rest']);
    return this.chance(0.15) ? this.raw(target) : this.http(target);
  }

  private chance(p: number): boolean {
    return this.random() < p;
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)] as T;
  }

  private some<T>(items: readonly T[], max: number): T[] {
    const count = Math.floor(this.random() * (max + 1));
    return Array.from({ length: count }, () => this.pick(items));
  }

  private key(): string {
    return this.pick([this.keys.admin, this.keys.user, this.keys.user, this.keys.user, this.keys.unknown, '']);
  }

  private path(target: Target): string {
    // Half the paths are ones the faces serve, so that the hostile parts reach the cache, the
    // limits and the upstream rather than only the router.
    const isPlausible = this.chance(0.5);
    const options: string[] = isPlausible
      ? (target === 'rest' ? this.some(['limit=5', 'orderBy=id desc', 'select=id'], 1) : this.some(['$format=json', '$top=5', '$orderby=ID desc', '$inlinecount=allpages'], 1))
      : (target === 'rest' ? this.some(REST_OPTIONS, 2) : this.some(ODATA_OPTIONS, 2));
    if (this.chance(0.25)) {
      const key = this.key();
      const spelling = this.pick(QUERY_KEY_SPELLINGS).replaceAll('{K2}', this.keys.unknown).replaceAll('{K}', this.chance(0.1) ? percentEncodeAll(key) : key);
      options.splice(Math.floor(this.random() * (options.length + 1)), 0, spelling);
    }
    const query = options.length === 0 ? '' : `?${options.join('&')}`;
    if (target === 'rest') {
      const path = isPlausible ? `${this.pick(PLAUSIBLE_REST_SETS)}${this.pick(['', '', '/1', '/2'])}` : `${this.pick(REST_SETS)}${this.pick(REST_KEYS)}`;
      return `/api/v1/${path}${query}`.replaceAll(' ', '%20');
    }
    if (isPlausible) return `/V1/Api.svc/${this.pick(PLAUSIBLE_ODATA_SETS)}${this.pick(['', '', '(1)', '(2)'])}${query}`.replaceAll(' ', '%20');
    const root = this.pick(['/V1/Api.svc', '/V1/Api.svc', '/v1/api.svc', '/V1//Api.svc']);
    return `${root}/${this.pick(ODATA_SETS)}${this.pick(ODATA_KEYS)}${this.pick(ODATA_TAILS)}${query}`.replaceAll(' ', '%20');
  }

  private credentialHeaders(): Record<string, string> {
    const key = this.key();
    switch (this.pick(['none', 'header', 'header', 'header', 'basic', 'bearer', 'both'])) {
      case 'header':
        return { [this.pick(KEY_HEADER_NAMES)]: key };
      case 'basic':
        return { authorization: `Basic ${Buffer.from(this.pick([`user:${key}`, `${key}:`, `:${key}`, key])).toString('base64')}` };
      case 'bearer':
        return { authorization: `${this.pick(['Bearer', 'bearer', 'BEARER'])} ${key}` };
      case 'both':
        return { 'x-serviceapikey': key, authorization: `Bearer ${this.keys.unknown}` };
      default:
        return {};
    }
  }

  private body(): Buffer | undefined {
    switch (this.pick(['none', 'json', 'json', 'junk', 'xml', 'large', 'binary'])) {
      case 'json': {
        const fields = this.some<[string, unknown]>([['Name', 'Fuzz'], ['name', 'fuzz'], ['ProjectID', 1], ['projectId', -1], ['StartTime', '/Date(1764000000000)/'], ['startTime', '2026-11-20T08:00:00Z'], ['__metadata', {}], ['ID', 99999999999], ['Comment', 'a'.repeat(2000)], ['HourlyRate', '1e400']], 4);
        return Buffer.from(JSON.stringify(Object.fromEntries(fields)));
      }
      case 'junk':
        return Buffer.from(this.pick(['{', '[1]', 'null', '"x"', 'not a body', '{"a":' + '['.repeat(5000)]));
      case 'xml':
        return Buffer.from(this.pick(['<entry/>', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><entry>&a;</entry>', '<entry xmlns="http://www.w3.org/2005/Atom"><content/></entry>']));
      case 'large':
        // Over the default 1 MiB body limit now and then; mostly just large.
        return Buffer.alloc(this.chance(0.2) ? 1_100_000 : 60_000, 0x20);
      case 'binary':
        return Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe, 0x00, 0x01]);
      default:
        return undefined;
    }
  }

  private http(target: Target): HostileRequest {
    const method = this.pick(METHODS);
    const headers: Record<string, string> = { ...this.credentialHeaders() };
    if (this.chance(0.6)) headers['accept'] = this.pick(ACCEPTS);
    const body = method === 'GET' || method === 'HEAD' || method === 'DELETE' ? (this.chance(0.1) ? this.body() : undefined) : this.body();
    if (body !== undefined || this.chance(0.1)) headers['content-type'] = this.pick(CONTENT_TYPES);
    if (this.chance(0.1)) headers['expect'] = this.pick(EXPECTS);
    if (this.chance(0.08)) headers['content-encoding'] = this.pick(ENCODINGS);
    if (this.chance(0.1)) headers['accept-encoding'] = this.pick(ENCODINGS);
    if (this.chance(0.05)) headers['x-http-method'] = this.pick(['MERGE', 'DELETE', 'PUT', 'FOO']);
    if (this.chance(0.05)) headers['x-forwarded-host'] = this.pick(['evil.example', 'a b', '[::1]:x']);
    if (this.chance(0.05)) headers['x-forwarded-proto'] = this.pick(['https', 'gopher', '']);
    if (this.chance(0.05)) headers['if-none-match'] = this.pick(['*', 'W/"x"', '"', '']);
    if (this.chance(0.05)) headers['if-match'] = this.pick(['*', 'W/"datetime\'2026-11-20T08%3A00%3A00\'"', '"nope"']);
    if (this.chance(0.05)) headers['x-request-id'] = this.pick(['ok-1', 'a b', 'x'.repeat(300)]);
    if (this.chance(0.05)) headers['origin'] = this.pick(['https://app.example', 'null', 'evil']);
    if (this.chance(0.03)) headers['x-junk'] = 'j'.repeat(6_000);
    if (this.chance(0.03)) headers['range'] = 'bytes=0-1';
    return { kind: 'http', target, method, path: this.path(target), headers, body };
  }

  private raw(target: Target): HostileRequest {
    const path = this.path(target);
    const key = this.key();
    const host = 'Host: 127.0.0.1';
    const lines = (...parts: string[]) => Buffer.from(parts.join('\r\n'), 'latin1');
    const shape = this.pick(['smuggle-cl-te', 'two-lengths', 'bare-lf', 'nul-header', 'utf8-key', 'long-line', 'http10', 'absolute', 'bad-chunk', 'odd-method', 'space-colon', 'folded', 'crlf-key']);
    switch (shape) {
      case 'smuggle-cl-te':
        return { kind: 'raw', target, bytes: lines(`POST ${path} HTTP/1.1`, host, 'Content-Length: 4', 'Transfer-Encoding: chunked', `X-ServiceApiKey: ${key}`, 'Connection: close', '', '0', '', 'GET /admin HTTP/1.1', host, '', '') };
      case 'two-lengths':
        return { kind: 'raw', target, bytes: lines(`POST ${path} HTTP/1.1`, host, 'Content-Length: 2', 'Content-Length: 3', 'Connection: close', '', '{}') };
      case 'bare-lf':
        return { kind: 'raw', target, bytes: Buffer.from(`GET ${path} HTTP/1.1\n${host}\nX-ServiceApiKey: ${key}\nConnection: close\n\n`, 'latin1') };
      case 'nul-header':
        return { kind: 'raw', target, bytes: lines(`GET ${path} HTTP/1.1`, host, `X-ServiceApiKey: ${key}\x00`, 'Connection: close', '', '') };
      case 'utf8-key':
        return { kind: 'raw', target, bytes: Buffer.concat([lines(`GET ${path} HTTP/1.1`, host, 'X-ServiceApiKey: tg_'), Buffer.from('€ü', 'utf8'), lines('', 'Connection: close', '', '')]) };
      case 'long-line':
        return { kind: 'raw', target, bytes: lines(`GET ${path}${path.includes('?') ? '&' : '?'}x=${'y'.repeat(20_000)} HTTP/1.1`, host, `X-ServiceApiKey: ${key}`, 'Connection: close', '', '') };
      case 'http10':
        return { kind: 'raw', target, bytes: lines(`GET ${path} HTTP/1.0`, `X-ServiceApiKey: ${key}`, '', '') };
      case 'absolute':
        return { kind: 'raw', target, bytes: lines(`GET http://evil.example${path} HTTP/1.1`, host, `X-ServiceApiKey: ${key}`, 'Connection: close', '', '') };
      case 'bad-chunk':
        return { kind: 'raw', target, bytes: lines(`POST ${path} HTTP/1.1`, host, 'Transfer-Encoding: chunked', 'Content-Type: application/json', `X-ServiceApiKey: ${key}`, 'Connection: close', '', 'zz', '{}', '0', '', '') };
      case 'odd-method':
        return { kind: 'raw', target, bytes: lines(`${this.pick(RAW_METHODS)} ${path} HTTP/1.1`, host, `X-ServiceApiKey: ${key}`, 'Connection: close', '', '') };
      case 'space-colon':
        return { kind: 'raw', target, bytes: lines(`GET ${path} HTTP/1.1`, host, `X-ServiceApiKey : ${key}`, 'Connection: close', '', '') };
      case 'folded':
        return { kind: 'raw', target, bytes: lines(`GET ${path} HTTP/1.1`, host, 'X-ServiceApiKey: tg_', ` ${key}`, 'Connection: close', '', '') };
      default:
        return { kind: 'raw', target, bytes: lines(`GET ${path} HTTP/1.1`, host, `X-ServiceApiKey: ${key}\rX-Injected: 1`, 'Connection: close', '', '') };
    }
  }
}

/** The forms in which `key` could appear in a log line if something failed to mask it. */
export function leakedForms(key: string): string[] {
  const encoded = percentEncodeAll(key);
  // The random part alone, too: a log line may have cut off or re-encoded the prefix.
  return [key, key.slice(-16), encoded, encoded.toLowerCase(), Buffer.from(`user:${key}`).toString('base64')];
}
