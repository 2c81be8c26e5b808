// Edm values <-> verbose JSON (OData V2 "JSON Format"), one encoder and one decoder per type.
//
// Out (as Olingo V2 writes them): Boolean, Byte, SByte, Int16, Int32 as JSON numbers; Int64,
// Decimal, Double, Single, Guid, Time, Binary (base64) as strings; DateTime as "\/Date(ms)\/"
// and DateTimeOffset as "\/Date(ms+mmmm)\/" (ms = the UTC instant, mmmm = offset in minutes, as
// ODataLib writes it; the escaped slash is what tells a date from a string).
// In: liberal, as other servers differ: numbers or strings for every numeric type, dates as
// "/Date(ms)/", "/Date(ms+mmmm)/" or ISO 8601 with or without fraction and offset.
import type { DateTimeOffsetValue, EdmRecord, EdmValue, TimeValue } from './edm.js';
import { dateTimeOffset } from './edm.js';
import type { EdmPrimitiveType } from './model.js';
import { EDM_INTEGER_RANGES, isEdmPrimitiveType } from './model.js';
import type { ModelIndex } from './model-index.js';
import { formatTime, millisecondsText, parseIsoDateTime, parseTime } from './datetime.js';
import { PayloadError, SerializationError } from './errors.js';

/** A value of a record slot: a primitive, a complex value, or missing. */
export type SlotValue = EdmValue | EdmRecord | undefined;
export type JsonEncoder = (value: SlotValue) => string;
export type JsonDecoder = (raw: unknown) => EdmValue;

// Lone surrogates and U+2028/U+2029 go through JSON.stringify + escaping: the latter two are
// line terminators in JavaScript, so escaping them keeps JSONP responses valid script.
// eslint-disable-next-line no-control-regex -- control characters are what JSON must escape
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u2028\u2029\ud800-\udfff]/;
const LINE_SEPARATORS = /[\u2028\u2029]/g;

/** A JSON string literal, safe to embed in a script (JSONP). */
export function jsonString(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return `"${text}"`;
  return JSON.stringify(text).replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

function wrongValue(name: string, type: string, value: unknown): Error {
  return new SerializationError(`property ${name} (${type}) cannot be written from ${typeof value} ${String(value)}`, name);
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'INF';
  if (value === -Infinity) return '-INF';
  return String(value);
}

/** Single: the shortest text that reads back as the same 32-bit float (as the Atom writer). */
function singleText(value: number): string {
  const target = Math.fround(value);
  if (!Number.isFinite(target)) return numberText(target);
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(target.toPrecision(digits));
    if (Math.fround(candidate) === target) return String(candidate);
  }
  return String(target);
}

function offsetSuffix(offsetMinutes: number): string {
  const abs = Math.abs(offsetMinutes);
  return `${offsetMinutes < 0 ? '-' : '+'}${String(abs).padStart(4, '0')}`;
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** The encoder of one primitive type; `name` is only used in error messages. */
export function primitiveEncoder(type: EdmPrimitiveType, name: string): JsonEncoder {
  const fail = (v: SlotValue): never => {
    throw wrongValue(name, type, v);
  };
  switch (type) {
    case 'Edm.Boolean':
      return (v) => (v == null ? 'null' : typeof v === 'boolean' ? (v ? 'true' : 'false') : fail(v));
    case 'Edm.Byte':
    case 'Edm.SByte':
    case 'Edm.Int16':
    case 'Edm.Int32':
      return (v) => (v == null ? 'null' : Number.isInteger(v) ? String(v) : fail(v));
    case 'Edm.Int64':
    case 'Edm.Decimal':
      return (v) =>
        v == null ? 'null' : typeof v === 'string' && DECIMAL.test(v) ? `"${v}"` : fail(v);
    case 'Edm.Double':
      return (v) => (v == null ? 'null' : typeof v === 'number' ? `"${numberText(v)}"` : fail(v));
    case 'Edm.Single':
      return (v) => (v == null ? 'null' : typeof v === 'number' ? `"${singleText(v)}"` : fail(v));
    case 'Edm.Guid':
    case 'Edm.String':
      return (v) => (v == null ? 'null' : typeof v === 'string' ? jsonString(v) : fail(v));
    case 'Edm.DateTime':
      return (v) => {
        if (v == null) return 'null';
        if (v instanceof Date && !Number.isNaN(v.getTime())) return `"\\/Date(${millisecondsText(v.getTime())})\\/"`;
        // An instant with its offset, for a reader that asked for them (as ODataLib writes it).
        const dto = v as DateTimeOffsetValue;
        if (dto.kind !== 'DateTimeOffset' || Number.isNaN(dto.date.getTime())) return fail(v);
        return `"\\/Date(${millisecondsText(dto.date.getTime())}${offsetSuffix(dto.offsetMinutes)})\\/"`;
      };
    case 'Edm.DateTimeOffset':
      return (v) => {
        if (v == null) return 'null';
        const dto = v as DateTimeOffsetValue;
        if (dto.kind !== 'DateTimeOffset' || Number.isNaN(dto.date.getTime())) return fail(v);
        return `"\\/Date(${millisecondsText(dto.date.getTime())}${offsetSuffix(dto.offsetMinutes)})\\/"`;
      };
    case 'Edm.Time':
      return (v) => {
        if (v == null) return 'null';
        if ((v as TimeValue).kind !== 'Time') return fail(v);
        return `"${formatTime(v as TimeValue)}"`;
      };
    case 'Edm.Binary':
      return (v) => (v == null ? 'null' : v instanceof Uint8Array ? `"${encodeBase64(v)}"` : fail(v));
  }
}

// ---------------------------------------------------------------------------------------------
// Decoding

const INTEGER = /^[+-]?\d{1,20}$/;
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const CANONICAL_DECIMAL = /^(?:0|-?[1-9]\d*)(?:\.\d*[1-9])?$|^-0\.\d*[1-9]$/;
const DECIMAL_IN = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/;
const FLOAT_IN = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,4})?[dDfFmM]?$/;
const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Decimal text beyond this many digits (after expanding an exponent) is refused. */
const MAX_DECIMAL_DIGITS = 80;

/** Canonical decimal text: no sign for zero, no leading or trailing zeros, no exponent. */
export function canonicalDecimal(text: string): string | undefined {
  return plainCanonical(text) ?? generalCanonical(text);
}

/**
 * The form servers write a Decimal with a Scale in (`110.00`, `-0.50`, `42`), made canonical by
 * one scan; anything else is undefined and left to the general reading. Every money value of
 * every page comes this way, and the regular expressions of the general reading cost about four
 * times the scan.
 */
function plainCanonical(text: string): string | undefined {
  const length = text.length;
  if (length > MAX_DECIMAL_DIGITS) return undefined;
  const from = text.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  let i = from;
  while (i < length && isDigitCode(text.charCodeAt(i))) i++;
  // No digits, or a leading zero before more digits: the general reading's business.
  if (i === from || (i - from > 1 && text.charCodeAt(from) === 48)) return undefined;
  let end = i;
  if (i < length) {
    if (text.charCodeAt(i) !== 46 /* . */) return undefined;
    const point = i++;
    while (i < length && isDigitCode(text.charCodeAt(i))) i++;
    if (i !== length || i === point + 1) return undefined;
    end = length;
    while (text.charCodeAt(end - 1) === 48 /* 0 */) end--;
    if (end === point + 1) end = point;
  }
  const body = end === length ? text : text.slice(0, end);
  return body === '-0' ? '0' : body;
}

function generalCanonical(text: string): string | undefined {
  if (CANONICAL_DECIMAL.test(text)) return text;
  const m = DECIMAL_IN.exec(text);
  if (!m) return undefined;
  const [, sign = '', int = '', frac = '', exp = '0'] = m;
  if (int === '' && frac === '') return undefined;
  const digits = int + frac;
  const point = int.length + Number(exp);
  if (point > MAX_DECIMAL_DIGITS || digits.length - point > MAX_DECIMAL_DIGITS) return undefined;
  const padded =
    point < 0 ? '0'.repeat(-point) + digits : point > digits.length ? digits + '0'.repeat(point - digits.length) : digits;
  const at = Math.max(point, 0);
  const whole = padded.slice(0, at).replace(/^0+/, '') || '0';
  const fraction = padded.slice(at).replace(/0+$/, '');
  const body = fraction ? `${whole}.${fraction}` : whole;
  return sign === '-' && body !== '0' ? `-${body}` : body;
}

export function decodeBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  return Uint8Array.from(Buffer.from(text, 'base64'));
}

function parseFloatText(text: string): number | undefined {
  if (text === 'INF' || text === 'Infinity') return Infinity;
  if (text === '-INF' || text === '-Infinity') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!FLOAT_IN.test(text)) return undefined;
  return Number(/[dDfFmM]$/.test(text) ? text.slice(0, -1) : text);
}

/** `/Date(ms)/` or `/Date(ms+mmmm)/` read by hand: the hot date form of every JSON payload. */
function parseMsDate(text: string): { date: Date; offsetMinutes: number | undefined } | undefined {
  const end = text.length - 2;
  let i = 6;
  if (text.charCodeAt(i) === 45 /* - */) i++;
  const digitsFrom = i;
  while (i < end && isDigitCode(text.charCodeAt(i))) i++;
  if (i === digitsFrom || i - digitsFrom > 16) return undefined;
  const date = new Date(Number(text.slice(6, i)));
  if (Number.isNaN(date.getTime())) return undefined;
  if (i === end) return { date, offsetMinutes: undefined };
  const sign = text.charCodeAt(i);
  if (sign !== 43 && sign !== 45) return undefined;
  const offsetFrom = ++i;
  while (i < end && isDigitCode(text.charCodeAt(i))) i++;
  if (i !== end || i === offsetFrom || i - offsetFrom > 4) return undefined;
  const minutes = Number(text.slice(offsetFrom, end));
  if (minutes >= 24 * 60) return undefined;
  return { date, offsetMinutes: sign === 45 ? -minutes : minutes };
}

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The instant and offset of a JSON date string ("/Date(...)/" or ISO 8601). */
function parseJsonDate(text: string): { date: Date; offsetMinutes: number | undefined } | undefined {
  if (text.startsWith('/Date(') && text.endsWith(')/')) return parseMsDate(text);
  return parseIsoDateTime(text);
}

/** The decoder of one primitive type; errors are PayloadErrors naming the property. */
export function primitiveDecoder(type: EdmPrimitiveType, name: string): JsonDecoder {
  const fail = (raw: unknown): never => {
    const shown = typeof raw === 'string' && raw.length > 40 ? `${raw.slice(0, 40)}...` : JSON.stringify(raw);
    throw new PayloadError(`property ${name}: ${shown ?? typeof raw} is not a valid ${type} value`, name);
  };
  switch (type) {
    case 'Edm.Boolean':
      return (raw) => {
        if (raw === null || typeof raw === 'boolean') return raw;
        return raw === 'true' ? true : raw === 'false' ? false : fail(raw);
      };
    case 'Edm.Byte':
    case 'Edm.SByte':
    case 'Edm.Int16':
    case 'Edm.Int32': {
      const [min, max] = EDM_INTEGER_RANGES[type] ?? [0, 0];
      return (raw) => {
        if (raw === null) return null;
        const n = typeof raw === 'number' ? raw : typeof raw === 'string' && INTEGER.test(raw) ? Number(raw) : NaN;
        return Number.isInteger(n) && n >= min && n <= max ? n : fail(raw);
      };
    }
    case 'Edm.Int64':
      return (raw) => {
        if (raw === null) return null;
        const text = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
        if (typeof text !== 'string' || !INTEGER.test(text)) return fail(raw);
        const n = BigInt(text);
        return n >= INT64_MIN && n <= INT64_MAX ? n.toString() : fail(raw);
      };
    case 'Edm.Decimal':
      return (raw) => {
        if (raw === null) return null;
        const text = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
        return (typeof text === 'string' ? canonicalDecimal(text) : undefined) ?? fail(raw);
      };
    case 'Edm.Double':
    case 'Edm.Single':
      return (raw) => {
        if (raw === null || typeof raw === 'number') return raw;
        return (typeof raw === 'string' ? parseFloatText(raw) : undefined) ?? fail(raw);
      };
    case 'Edm.Guid':
      return (raw) => (raw === null ? null : typeof raw === 'string' && GUID.test(raw) ? raw.toLowerCase() : fail(raw));
    case 'Edm.String':
      return (raw) => (raw === null || typeof raw === 'string' ? raw : fail(raw));
    case 'Edm.DateTime':
      return (raw) => {
        if (raw === null) return null;
        const parsed = typeof raw === 'string' ? parseJsonDate(raw) : undefined;
        if (parsed === undefined) return fail(raw);
        return parsed.offsetMinutes === undefined ? parsed.date : dateTimeOffset(parsed.date, parsed.offsetMinutes);
      };
    case 'Edm.DateTimeOffset':
      return (raw) => {
        if (raw === null) return null;
        const parsed = typeof raw === 'string' ? parseJsonDate(raw) : undefined;
        return parsed ? dateTimeOffset(parsed.date, parsed.offsetMinutes ?? 0) : fail(raw);
      };
    case 'Edm.Time':
      return (raw) => (raw === null ? null : (typeof raw === 'string' ? parseTime(raw) : undefined) ?? fail(raw));
    case 'Edm.Binary':
      return (raw) => (raw === null ? null : (typeof raw === 'string' ? decodeBase64(raw) : undefined) ?? fail(raw));
  }
}

// ---------------------------------------------------------------------------------------------
// Complex values: `{"__metadata":{"type":"Service.ChangeSet"},"A":1,...}` as Olingo writes them.

/** Keys that would reach an object's prototype machinery if code downstream copied them. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function isPlainObject(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw);
}

/** The encoder of a property type: an `Edm.*` primitive or a complex type of the model. */
export function valueEncoder(index: ModelIndex, type: string, name: string): JsonEncoder {
  if (isEdmPrimitiveType(type)) return primitiveEncoder(type, name);
  const complex = index.complexType(type);
  if (!complex) throw new Error(`property ${name} has unknown type ${type}`);
  const head = `{"__metadata":{"type":${jsonString(complex.fullName)}}`;
  const parts = complex.properties.map((p) => ({
    name: p.name,
    prefix: `,${jsonString(p.name)}:`,
    encode: valueEncoder(index, p.type, `${name}/${p.name}`),
  }));
  return (v) => {
    if (v === undefined) return 'null';
    if (!isPlainObject(v)) throw wrongValue(name, type, v);
    const rec = v as EdmRecord;
    let out = head;
    for (const p of parts) out += p.prefix + p.encode(rec[p.name]);
    return `${out}}`;
  };
}

/** The decoder of a property type; complex values become nested records. */
export function valueDecoder(
  index: ModelIndex,
  type: string,
  name: string,
): (raw: unknown) => EdmValue | EdmRecord {
  if (isEdmPrimitiveType(type)) return primitiveDecoder(type, name);
  const complex = index.complexType(type);
  if (!complex) throw new Error(`property ${name} has unknown type ${type}`);
  const fields = new Map(complex.properties.map((p) => [p.name, valueDecoder(index, p.type, `${name}/${p.name}`)]));
  return (raw) => {
    if (raw === null) return null;
    if (!isPlainObject(raw)) throw new PayloadError(`property ${name}: expected an object of ${type}`, name);
    const rec: EdmRecord = {};
    for (const key of Object.keys(raw)) {
      if (key === '__metadata') continue;
      const decode = FORBIDDEN_KEYS.has(key) ? undefined : fields.get(key);
      if (!decode) throw new PayloadError(`property ${name}/${key} is not a property of ${type}`, `${name}/${key}`);
      rec[key] = decode(raw[key]);
    }
    return rec;
  };
}
