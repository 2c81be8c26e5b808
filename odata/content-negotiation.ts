// Which representation a response gets, from `$format` and `Accept`, as OData V2 servers choose:
// `$format` wins over `Accept`; without either, feeds and entries are Atom, properties, `$links`
// and the service document plain XML, `$metadata` XML, `$count` and `$value` text/plain.
// The result is the Content-Type to send, with its charset (except for binary `$value`).
import { NotAcceptableError } from './errors.js';

export type ResponseKind =
  | 'feed'
  | 'entry'
  | 'property'
  | 'value'
  | 'count'
  | 'links'
  | 'serviceDocument'
  | 'metadata'
  | 'error';

export interface NegotiationRequest {
  /** The `Accept` header as received (absent or empty = anything). */
  readonly accept?: string;
  /** `$format`: `json`, `atom`, `xml` or a media type. */
  readonly format?: string;
  readonly kind: ResponseKind;
  /** For `$value`: the value is Edm.Binary (application/octet-stream instead of text/plain). */
  readonly binary?: boolean;
}

/** `application/json;odata=verbose;charset=utf-8` -> `application/json`. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const semicolon = contentType.indexOf(';');
  return (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

const ATOM = 'application/atom+xml';
const JSON_TYPE = 'application/json';
const XML = 'application/xml';
const ATOMSVC = 'application/atomsvc+xml';
const TEXT = 'text/plain';
const OCTETS = 'application/octet-stream';

/** What each kind can be written as, the server's preference first (the default). */
const SUPPORTED: Record<ResponseKind, readonly string[]> = {
  feed: [ATOM, JSON_TYPE, XML],
  entry: [ATOM, JSON_TYPE, XML],
  property: [XML, JSON_TYPE],
  links: [XML, JSON_TYPE],
  serviceDocument: [XML, ATOMSVC, JSON_TYPE],
  metadata: [XML],
  count: [TEXT],
  value: [TEXT],
  error: [XML, JSON_TYPE],
};

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
  readonly order: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function parseRange(text: string, order: number): MediaRange | undefined {
  const [mediaType = '', ...rawParams] = text.split(';');
  const slash = mediaType.indexOf('/');
  const type = mediaType.slice(0, slash).trim().toLowerCase();
  const subtype = mediaType.slice(slash + 1).trim().toLowerCase();
  if (slash < 0 || !TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) return undefined;
  const params = new Map<string, string>();
  let q = 1;
  for (const raw of rawParams) {
    const eq = raw.indexOf('=');
    if (eq < 0) continue;
    const name = raw.slice(0, eq).trim().toLowerCase();
    const value = raw.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (name === 'q') {
      if (!/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value)) return undefined;
      q = Number(value);
    } else params.set(name, value.toLowerCase());
  }
  return { type, subtype, params, q, order };
}

/** Accept ranges as sent; unparsable ranges are skipped, as browsers' odd entries must not 406. */
export function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part, order) => parseRange(part, order))
    .filter((range): range is MediaRange => range !== undefined);
}

/** How specifically `range` names `mediaType` (2 exact, 1 `type/*`, 0 `*\/*`), or -1. */
function specificity(range: MediaRange, mediaType: string, kind: ResponseKind): number {
  const [type, subtype] = mediaType.split('/');
  if (range.type === '*') return 0;
  if (range.type !== type) return -1;
  if (range.subtype === '*') return 1;
  if (range.subtype !== subtype) return -1;
  // `application/atom+xml;type=feed` only fits a feed, `;type=entry` only an entry.
  const atomType = mediaType === ATOM ? range.params.get('type') : undefined;
  if (atomType !== undefined && atomType !== kind) return -1;
  return 2;
}

function choose(supported: readonly string[], ranges: readonly MediaRange[], kind: ResponseKind): string | undefined {
  let best: { mediaType: string; q: number; specificity: number; order: number } | undefined;
  for (const mediaType of supported) {
    // The most specific range that names a type decides its quality (RFC 9110 12.5.1).
    let match: { q: number; specificity: number; order: number } | undefined;
    for (const range of ranges) {
      const s = specificity(range, mediaType, kind);
      if (s < 0) continue;
      if (!match || s > match.specificity || (s === match.specificity && range.q > match.q)) {
        match = { q: range.q, specificity: s, order: range.order };
      }
    }
    if (!match || match.q <= 0) continue;
    const better =
      !best ||
      match.q > best.q ||
      (match.q === best.q &&
        (match.specificity > best.specificity || (match.specificity === best.specificity && match.order < best.order)));
    if (better) best = { mediaType, ...match };
  }
  return best?.mediaType;
}

const FORMAT_KEYWORDS: Record<string, string> = { json: JSON_TYPE, atom: ATOM, xml: XML };

function formatMediaType(format: string, kind: ResponseKind): string {
  const keyword = FORMAT_KEYWORDS[format.toLowerCase()];
  if (keyword === ATOM && kind === 'serviceDocument') return ATOMSVC;
  if (keyword) return keyword;
  const range = parseRange(format, 0);
  if (!range || range.type === '*' || range.subtype === '*') {
    throw new NotAcceptableError(`$format=${format.slice(0, 40)} is not json, atom, xml or a media type`);
  }
  return `${range.type}/${range.subtype}`;
}

function withCharset(mediaType: string): string {
  return mediaType === OCTETS ? mediaType : `${mediaType};charset=utf-8`;
}

const KIND_NAMES: Record<ResponseKind, string> = {
  feed: 'a feed',
  entry: 'an entry',
  property: 'a property',
  value: 'a $value',
  count: 'a $count',
  links: '$links',
  serviceDocument: 'the service document',
  metadata: '$metadata',
  error: 'an error',
};

/** The Content-Type of the response; NotAcceptableError (406) when nothing asked for fits. */
export function negotiate(request: NegotiationRequest): string {
  const { kind } = request;
  // `$count` and `$value` have exactly one representation, so `$format` does not apply to them.
  if (kind === 'value' && request.binary) return OCTETS;
  const supported = SUPPORTED[kind];
  const singleForm = kind === 'count' || kind === 'value';
  if (request.format !== undefined && request.format !== '' && !singleForm) {
    const wanted = kind === 'error' ? FORMAT_KEYWORDS[request.format.toLowerCase()] : formatMediaType(request.format, kind);
    if (wanted !== undefined && supported.includes(wanted)) return withCharset(wanted);
    if (kind === 'error') return withCharset(XML);
    throw new NotAcceptableError(`$format=${request.format.slice(0, 40)} is not available for ${KIND_NAMES[kind]}`);
  }
  const accept = request.accept?.trim() ?? '';
  const ranges = parseAccept(accept);
  const fallback = supported[0] ?? XML;
  if (ranges.length === 0) return withCharset(fallback);
  const chosen = choose(supported, ranges, kind);
  if (chosen) return withCharset(chosen);
  // An error must always be sent, whatever the client accepts.
  if (kind === 'error') return withCharset(fallback);
  throw new NotAcceptableError(`none of the accepted types (${accept.slice(0, 100)}) is available for ${KIND_NAMES[kind]}`);
}
