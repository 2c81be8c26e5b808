// OData V2 URI literals (MS-ODATA ABNF, "URI Conventions" 2.2.2): the text form of a typed value
// in key predicates, `$filter` and function-import parameters, both directions.
//
//   null  true false  123 (Int32)  123L  12.5M  1.5d 1.5 1e5 (Double)  1.5f  NaN INF -INF
//   'it''s'  guid'…'  datetime'2026-11-22T09:00'  datetimeoffset'…Z'  time'PT9H'  X'0A' binary'0A'
//
// Scanned by hand (no regular expressions), so no input can make them backtrack.
import type { EdmValue, DateTimeOffsetValue, TimeValue } from './edm.js';
import { dateTimeOffset } from './edm.js';
import type { EdmPrimitiveType } from './model.js';
import { EDM_INTEGER_RANGES } from './model.js';
import {
  formatDateTime,
  formatDateTimeOffset,
  formatTime,
  parseDateTimeOffset,
  parseIsoDateTime,
  parseTime,
} from './datetime.js';
import { LiteralError } from './errors.js';
import { canonicalDecimal } from './json-values.js';

/** A literal as written: its Edm type (null for the `null` literal) and its typed value. */
export interface Literal {
  readonly type: EdmPrimitiveType | null;
  readonly value: EdmValue;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SINGLE_MAX = 3.4028234663852886e38;

/** Literal text quoted for a message, cut short so a huge input is never echoed back. */
export function quoteForMessage(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function fail(text: string, why: string): never {
  throw new LiteralError(`invalid literal ${quoteForMessage(text)}: ${why}`, quoteForMessage(text));
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * End of the numeric literal that starts at `i` (`-`? digits (`.` digits)? (e [+-]? digits)?
 * suffix?), or `i` when none starts there.
 */
export function numberEnd(text: string, i: number): number {
  let j = i;
  if (text.charCodeAt(j) === 45 /* - */) j++;
  const digits = j;
  while (isDigit(text.charCodeAt(j))) j++;
  if (j === digits) return i;
  if (text.charCodeAt(j) === 46 /* . */ && isDigit(text.charCodeAt(j + 1))) {
    j += 2;
    while (isDigit(text.charCodeAt(j))) j++;
  }
  const e = text.charCodeAt(j);
  if (e === 69 || e === 101) {
    let k = j + 1;
    const sign = text.charCodeAt(k);
    if (sign === 43 || sign === 45) k++;
    if (isDigit(text.charCodeAt(k))) {
      j = k;
      while (isDigit(text.charCodeAt(j))) j++;
    }
  }
  if ('LlMmDdFf'.includes(text.charAt(j)) && j < text.length) j++;
  return j;
}

function parseNumber(text: string): Literal {
  if (numberEnd(text, 0) !== text.length) fail(text, 'not a number');
  const last = text.charAt(text.length - 1).toUpperCase();
  const suffixed = 'LMDF'.includes(last);
  const body = suffixed ? text.slice(0, -1) : text;
  const isIntegral = !body.includes('.') && !body.includes('e') && !body.includes('E');
  switch (suffixed ? last : '') {
    case 'L': {
      if (!isIntegral) fail(text, 'an Edm.Int64 literal is an integer');
      const n = BigInt(body);
      if (n < INT64_MIN || n > INT64_MAX) fail(text, 'out of the Edm.Int64 range');
      return { type: 'Edm.Int64', value: n.toString() };
    }
    case 'M': {
      if (body.includes('e') || body.includes('E')) fail(text, 'an Edm.Decimal literal has no exponent');
      return { type: 'Edm.Decimal', value: canonicalDecimal(body) ?? fail(text, 'not a decimal') };
    }
    case 'D':
      return { type: 'Edm.Double', value: finite(text, Number(body), Number.MAX_VALUE) };
    case 'F':
      return { type: 'Edm.Single', value: finite(text, Number(body), SINGLE_MAX) };
    default: {
      if (!isIntegral) return { type: 'Edm.Double', value: finite(text, Number(body), Number.MAX_VALUE) };
      const n = Number(body);
      if (n < -2147483648 || n > 2147483647) fail(text, 'out of the Edm.Int32 range (append L for Edm.Int64)');
      return { type: 'Edm.Int32', value: n === 0 ? 0 : n };
    }
  }
}

function finite(text: string, n: number, max: number): number {
  if (!(Math.abs(n) <= max)) fail(text, 'out of range');
  return n;
}

/** Index just after the quoted text that opens at `start` (a `'`), or -1 if it never closes. */
export function quotedEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf("'", i);
    if (q < 0) return -1;
    if (text.charCodeAt(q + 1) !== 39) return q + 1;
    i = q + 2;
  }
}

function unquote(text: string, start: number): string {
  if (quotedEnd(text, start) !== text.length) fail(text, 'a quote is not closed, or a lone quote inside');
  return text.slice(start + 1, -1).replaceAll("''", "'");
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

function parseGuid(text: string, body: string): string {
  if (body.length !== 36) fail(text, 'a Guid has 32 hex digits as 8-4-4-4-12');
  for (let i = 0; i < 36; i++) {
    const c = body.charCodeAt(i);
    const ok = i === 8 || i === 13 || i === 18 || i === 23 ? c === 45 : hexValue(c) >= 0;
    if (!ok) fail(text, 'a Guid has 32 hex digits as 8-4-4-4-12');
  }
  return body.toLowerCase();
}

function parseHex(text: string, body: string): Uint8Array {
  if (body.length % 2 !== 0) fail(text, 'binary takes an even number of hex digits');
  const bytes = new Uint8Array(body.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    const hi = hexValue(body.charCodeAt(2 * i));
    const lo = hexValue(body.charCodeAt(2 * i + 1));
    if (hi < 0 || lo < 0) fail(text, 'binary takes hex digits');
    bytes[i] = hi * 16 + lo;
  }
  return bytes;
}

// V2 datetime literals carry no offset: the digits are a wall-clock time. Some clients add an
// offset (`Z`, `+01:00`); such a literal is the instant it names, a DateTimeOffsetValue, for the
// server to put on its wall clock (odata/wall-clock.ts).
function parseDateTimeLiteral(text: string, body: string): Date | DateTimeOffsetValue {
  if (body.charCodeAt(4) !== 45) fail(text, 'expected yyyy-mm-ddThh:mm[:ss[.fffffff]]');
  const parsed = parseIsoDateTime(body) ?? fail(text, 'expected yyyy-mm-ddThh:mm[:ss[.fffffff]]');
  return parsed.offsetMinutes === undefined ? parsed.date : dateTimeOffset(parsed.date, parsed.offsetMinutes);
}

function parsePrefixed(text: string, quote: number): Literal {
  const prefix = text.slice(0, quote);
  const body = unquote(text, quote);
  switch (prefix) {
    case 'datetime':
      return { type: 'Edm.DateTime', value: parseDateTimeLiteral(text, body) };
    case 'datetimeoffset': {
      const value = body.charCodeAt(4) === 45 ? parseDateTimeOffset(body) : undefined;
      return { type: 'Edm.DateTimeOffset', value: value ?? fail(text, 'expected yyyy-mm-ddThh:mm[:ss[.f]](Z|±hh:mm)') };
    }
    case 'time':
      return { type: 'Edm.Time', value: parseTime(body) ?? fail(text, 'expected a duration such as PT9H30M') };
    case 'guid':
      return { type: 'Edm.Guid', value: parseGuid(text, body) };
    case 'X':
    case 'binary':
      return { type: 'Edm.Binary', value: parseHex(text, body) };
    case 'duration':
      return fail(text, "duration'...' is OData V4 only; V2 writes time'...'");
    default:
      return fail(text, `unknown literal prefix ${quoteForMessage(prefix)}`);
  }
}

/** The typed literal a URI text denotes, its type read from the syntax alone. */
export function parseLiteral(text: string): Literal {
  switch (text) {
    case 'null':
      return { type: null, value: null };
    case 'true':
      return { type: 'Edm.Boolean', value: true };
    case 'false':
      return { type: 'Edm.Boolean', value: false };
    case 'NaN':
    case 'NaNd':
    case 'NaND':
      return { type: 'Edm.Double', value: NaN };
    case 'INF':
    case 'INFd':
    case 'INFD':
      return { type: 'Edm.Double', value: Infinity };
    case '-INF':
    case '-INFd':
    case '-INFD':
      return { type: 'Edm.Double', value: -Infinity };
    case 'NaNf':
    case 'NaNF':
      return { type: 'Edm.Single', value: NaN };
    case 'INFf':
    case 'INFF':
      return { type: 'Edm.Single', value: Infinity };
    case '-INFf':
    case '-INFF':
      return { type: 'Edm.Single', value: -Infinity };
  }
  const first = text.charCodeAt(0);
  if (first === 39) return { type: 'Edm.String', value: unquote(text, 0) };
  if (first === 45 || isDigit(first)) return parseNumber(text);
  const quote = text.indexOf("'");
  if (quote > 0) return parsePrefixed(text, quote);
  return fail(text, 'not a literal of any Edm type');
}

function integerTarget(value: number, target: EdmPrimitiveType): EdmValue | undefined {
  const range = EDM_INTEGER_RANGES[target];
  if (range) return value >= range[0] && value <= range[1] ? value : undefined;
  switch (target) {
    case 'Edm.Int64':
    case 'Edm.Decimal':
      return String(value);
    case 'Edm.Double':
    case 'Edm.Single':
      return value;
    case 'Edm.Boolean':
      // MS-ODATA booleanLiteral also allows 1 and 0.
      return value === 1 ? true : value === 0 ? false : undefined;
    default:
      return undefined;
  }
}

/**
 * The value of `literal` as `target`, when the literal's type converts without surprise (an
 * integer to a wider numeric type, Int64 to Decimal, Single to Double, 1/0 to Boolean, null);
 * undefined otherwise.
 */
export function convertLiteral(literal: Literal, target: EdmPrimitiveType): EdmValue | undefined {
  const { type, value } = literal;
  if (type === null || type === target) return value;
  if (typeof value === 'number' && EDM_INTEGER_RANGES[type]) return integerTarget(value, target);
  if (type === 'Edm.Int64' && typeof value === 'string') {
    if (target === 'Edm.Decimal') return value;
    if (target === 'Edm.Double' || target === 'Edm.Single') return Number(value);
  }
  if (type === 'Edm.Single' && target === 'Edm.Double') return value;
  return undefined;
}

/** A literal read as a value of `type` (key predicates, function-import parameters). */
export function parseLiteralAs(text: string, type: EdmPrimitiveType): EdmValue {
  const literal = parseLiteral(text);
  const value = convertLiteral(literal, type);
  if (value === undefined) {
    const found = literal.type ?? 'null';
    throw new LiteralError(
      `literal ${quoteForMessage(text)} is ${found}, not a value of ${type}`,
      quoteForMessage(text),
    );
  }
  return value;
}

function numberText(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'INF';
  if (n === -Infinity) return '-INF';
  return Object.is(n, -0) ? '-0' : String(n);
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += (b < 16 ? '0' : '') + b.toString(16).toUpperCase();
  return out;
}

function wrong(value: EdmValue, type: EdmPrimitiveType): never {
  throw new TypeError(`cannot write ${typeof value} ${String(value)} as an ${type} literal`);
}

/** The canonical V2 URI literal of a value of `type` (the inverse of parseLiteral). */
export function formatLiteral(value: EdmValue, type: EdmPrimitiveType): string {
  if (value === null) return 'null';
  switch (type) {
    case 'Edm.Boolean':
      return typeof value === 'boolean' ? String(value) : wrong(value, type);
    case 'Edm.Byte':
    case 'Edm.SByte':
    case 'Edm.Int16':
    case 'Edm.Int32':
      return Number.isInteger(value) ? String(value) : wrong(value, type);
    case 'Edm.Int64':
      return typeof value === 'string' ? `${value}L` : wrong(value, type);
    case 'Edm.Decimal':
      return typeof value === 'string' ? `${value}M` : wrong(value, type);
    case 'Edm.Double':
      // Integral doubles take the suffix so they do not read back as Edm.Int32.
      return typeof value === 'number' ? `${numberText(value)}${Number.isFinite(value) ? 'd' : ''}` : wrong(value, type);
    case 'Edm.Single':
      return typeof value === 'number' ? `${numberText(value)}f` : wrong(value, type);
    case 'Edm.String':
      return typeof value === 'string' ? `'${value.replaceAll("'", "''")}'` : wrong(value, type);
    case 'Edm.Guid':
      return typeof value === 'string' ? `guid'${value}'` : wrong(value, type);
    case 'Edm.DateTime':
      if (value instanceof Date) return `datetime'${formatDateTime(value)}'`;
      // An instant for a DateTime: the offset written, for the server to convert.
      return isKind<DateTimeOffsetValue>(value, 'DateTimeOffset') ? `datetime'${formatDateTimeOffset(value)}'` : wrong(value, type);
    case 'Edm.DateTimeOffset':
      return isKind<DateTimeOffsetValue>(value, 'DateTimeOffset')
        ? `datetimeoffset'${formatDateTimeOffset(value)}'`
        : wrong(value, type);
    case 'Edm.Time':
      return isKind<TimeValue>(value, 'Time') ? `time'${formatTime(value)}'` : wrong(value, type);
    case 'Edm.Binary':
      return value instanceof Uint8Array ? `X'${hex(value)}'` : wrong(value, type);
  }
}

function isKind<T extends { kind: string }>(value: EdmValue, kind: T['kind']): value is EdmValue & T {
  return typeof value === 'object' && value !== null && 'kind' in value && value.kind === kind;
}
