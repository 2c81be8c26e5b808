// Edm values <-> the text of an XML property element (Atom `d:` properties, single-property
// documents), one formatter and one parser per type, chosen once per property.
//
// Out, as Olingo V2 writes them (EdmSimpleType.valueToString, literal kind DEFAULT):
//   DateTime        2026-11-22T09:00:00 with fractional seconds trimmed, or padded to the
//                   property's Precision facet (Precision="3": 09:00:00.000)
//   DateTimeOffset  as DateTime plus the offset the value carries (Z for 0)
//   Time            PT9H0M0S (hours, minutes and seconds always written)
//   Double/Single   Java's Double.toString/Float.toString: 1.0, 1.5E10, INF, -INF, NaN
//   Binary          base64
// In: what any V2 server writes: ISO 8601 with or without seconds, fraction and offset;
// xsd:boolean 1/0; doubles with or without exponent; base64 with line breaks.
import type { DateTimeOffsetValue, EdmRecord, EdmValue, TimeValue } from './edm.js';
import { dateTimeOffset } from './edm.js';
import type { EdmPrimitiveType, Property } from './model.js';
import { EDM_INTEGER_RANGES, isEdmPrimitiveType } from './model.js';
import type { ModelIndex } from './model-index.js';
import { NS_DATA, NS_METADATA } from './namespaces.js';
import type { XmlAttribute, XmlElement } from './xml-parser.js';
import { attributeOf } from './xml-parser.js';
import { formatDateTime, parseIsoDateTime, parseTime } from './datetime.js';
import { PayloadError, SerializationError } from './errors.js';
import { canonicalDecimal, decodeBase64, encodeBase64 } from './json-values.js';
import { escapeXmlText } from './xml-escape.js';
import { flatString } from './flat-string.js';
import { readProperties } from './xml-properties.js';

/** Escaped element content of a non-null value. */
export type XmlFormatter = (value: EdmValue) => string;
/** Typed value of an element's text (never null: m:null is handled by the caller). */
export type XmlParser = (text: string) => EdmValue;

const INTEGER = /^[+-]?\d{1,20}$/;
const DECIMAL_OUT = /^-?\d+(?:\.\d+)?$/;
const DECIMAL_IN = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,4})?$/;
const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const XML_SPACE = /[ \t\r\n]+/g;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Fractional seconds as Olingo writes them: significant digits, padded to `precision`. */
function fraction(ms: number, precision: number | undefined): string {
  let digits = ms === 0 ? '' : String(ms).padStart(3, '0').replace(/0+$/, '');
  if (precision !== undefined && precision > digits.length) digits = digits.padEnd(precision, '0');
  return digits ? `.${digits}` : '';
}

// Dates are on every entry of every feed: two-digit groups and the fractions of the two common
// cases (no facet, Precision="3") come from tables instead of padding per call.
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : String(i)));
const FRACTION_TRIMMED = Array.from({ length: 1000 }, (_, ms) => fraction(ms, undefined));
const FRACTION_3 = Array.from({ length: 1000 }, (_, ms) => fraction(ms, 3));

/** Edm.DateTime text: UTC, fractional seconds as Olingo writes them. */
export function formatXmlDateTime(date: Date, precision?: number): string {
  const year = date.getUTCFullYear();
  const ms = date.getUTCMilliseconds();
  const frac =
    precision === undefined ? FRACTION_TRIMMED[ms] : precision === 3 ? FRACTION_3[ms] : fraction(ms, precision);
  if (year < 0 || year > 9999) {
    const text = formatDateTime(date);
    return (ms === 0 ? text : text.slice(0, -4)) + (frac ?? '');
  }
  const two = TWO_DIGITS;
  // Two halves of at most 12 characters each are flat strings (V8 copies concatenations shorter
  // than 13), so the date is one rope node instead of four in the response that holds it.
  const day = `${two[(year / 100) | 0]}${two[year % 100]}-${two[date.getUTCMonth() + 1]}-${two[date.getUTCDate()]}T`;
  return day + `${two[date.getUTCHours()]}:${two[date.getUTCMinutes()]}:${two[date.getUTCSeconds()]}${frac ?? ''}`;
}

function offsetText(minutes: number): string {
  if (minutes === 0) return 'Z';
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  return `${minutes < 0 ? '-' : '+'}${hh}:${String(abs % 60).padStart(2, '0')}`;
}

export function formatXmlDateTimeOffset(value: DateTimeOffsetValue, precision?: number): string {
  const local = new Date(value.date.getTime() + value.offsetMinutes * 60_000);
  return formatXmlDateTime(local, precision) + offsetText(value.offsetMinutes);
}

/** Edm.Time as Olingo writes it: `PT<h>H<m>M<s>[.fff]S`, negative durations with a sign. */
export function formatXmlTime(value: TimeValue, precision?: number): string {
  const abs = Math.abs(value.ms);
  const h = Math.floor(abs / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const s = Math.floor((abs % 60_000) / 1000);
  return `${value.ms < 0 ? '-' : ''}PT${h}H${m}M${s}${fraction(abs % 1000, precision)}S`;
}

/** Shortest digits and exponent of a finite, non-zero number (as JavaScript prints it). */
function javaFloatText(digits: string, exponent: number, negative: boolean): string {
  const sign = negative ? '-' : '';
  if (exponent >= -3 && exponent < 7) {
    const point = exponent + 1;
    if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
    if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  return `${sign}${digits[0] ?? '0'}.${digits.length > 1 ? digits.slice(1) : '0'}E${exponent}`;
}

/** Java's Double.toString (Olingo's Edm.Double text); `single` = Float.toString. */
export function formatXmlFloat(value: number, single = false): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'INF';
  if (value === -Infinity) return '-INF';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  let exp = Math.abs(value).toExponential();
  if (single) {
    // The shortest decimal that reads back as the same 32-bit float.
    const target = Math.fround(value);
    for (let p = 1; p <= 9; p++) {
      const candidate = Math.abs(value).toExponential(p - 1);
      if (Math.fround(Number(candidate)) === Math.abs(target)) {
        exp = candidate;
        break;
      }
    }
  }
  const [mantissa = '0', e = '0'] = exp.split('e');
  return javaFloatText(mantissa.replace('.', ''), Number(e), value < 0);
}

function wrongValue(type: string, target: string, value: EdmValue): SerializationError {
  const shown = value instanceof Date ? 'a Date' : typeof value === 'object' ? 'an object' : JSON.stringify(value);
  return new SerializationError(`property ${target} (${type}) cannot be written from ${shown}`, target);
}

/** The formatter of one primitive type; `target` names the property in errors. */
export function xmlFormatter(type: EdmPrimitiveType, target: string, precision?: number): XmlFormatter {
  const fail = (v: EdmValue): never => {
    throw wrongValue(type, target, v);
  };
  switch (type) {
    case 'Edm.Boolean':
      return (v) => (v === true ? 'true' : v === false ? 'false' : fail(v));
    case 'Edm.Byte':
    case 'Edm.SByte':
    case 'Edm.Int16':
    case 'Edm.Int32':
      return (v) => (Number.isInteger(v) ? String(v) : fail(v));
    case 'Edm.Int64':
      return (v) => (typeof v === 'string' && INTEGER.test(v) ? v : fail(v));
    case 'Edm.Decimal':
      return (v) => (typeof v === 'string' && DECIMAL_OUT.test(v) ? v : fail(v));
    case 'Edm.Double':
    case 'Edm.Single': {
      const single = type === 'Edm.Single';
      return (v) => (typeof v === 'number' ? formatXmlFloat(v, single) : fail(v));
    }
    case 'Edm.Guid':
      return (v) => (typeof v === 'string' && GUID.test(v) ? v : fail(v));
    case 'Edm.String':
      return (v) => (typeof v === 'string' ? escapeXmlText(v, target) : fail(v));
    case 'Edm.DateTime':
      return (v) => {
        if (v instanceof Date && !Number.isNaN(v.getTime())) return formatXmlDateTime(v, precision);
        // An instant with its offset, for a reader that asked for them.
        const dto = v as DateTimeOffsetValue | null;
        return dto?.kind === 'DateTimeOffset' && !Number.isNaN(dto.date.getTime())
          ? formatXmlDateTimeOffset(dto, precision)
          : fail(v);
      };
    case 'Edm.DateTimeOffset':
      return (v) => {
        const dto = v as DateTimeOffsetValue | null;
        return dto?.kind === 'DateTimeOffset' && !Number.isNaN(dto.date.getTime())
          ? formatXmlDateTimeOffset(dto, precision)
          : fail(v);
      };
    case 'Edm.Time':
      return (v) => ((v as TimeValue | null)?.kind === 'Time' ? formatXmlTime(v as TimeValue, precision) : fail(v));
    case 'Edm.Binary':
      return (v) => (v instanceof Uint8Array ? encodeBase64(v) : fail(v));
  }
}

function parseFloatText(text: string): number | undefined {
  if (text === 'INF' || text === 'Infinity') return Infinity;
  if (text === '-INF' || text === '-Infinity') return -Infinity;
  if (text === 'NaN') return NaN;
  return FLOAT.test(text) ? Number(text) : undefined;
}

/**
 * The parser of one primitive type; errors are PayloadErrors naming `target`. White space
 * around a non-string value is ignored (XML Schema collapses it for those types).
 */
export function xmlParser(type: EdmPrimitiveType, target: string): XmlParser {
  const parse = textParser(type, target);
  return type === 'Edm.String' ? parse : (text) => parse(text.trim());
}

/**
 * The number an integer's text (a sign, 1 to 20 digits) writes; NaN for any other text. Up to
 * ten digits by hand: the expression and Number() took about 50 ns a value, and a third of a
 * time entry's properties are integers.
 */
function integerOf(text: string): number {
  const length = text.length;
  if (length > 11) return INTEGER.test(text) ? Number(text) : NaN;
  let i = 0;
  let sign = 1;
  const first = text.charCodeAt(0);
  if (first === 45 /* - */ || first === 43 /* + */) {
    sign = first === 45 ? -1 : 1;
    i = 1;
  }
  if (i === length) return NaN;
  let n = 0;
  for (; i < length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NaN;
    n = n * 10 + digit;
  }
  return sign * n;
}

function textParser(type: EdmPrimitiveType, target: string): XmlParser {
  const fail = (text: string): never => {
    const shown = text.length > 40 ? `${text.slice(0, 40)}...` : text;
    throw new PayloadError(`property ${target}: '${shown}' is not a valid ${type} value`, target);
  };
  switch (type) {
    case 'Edm.Boolean':
      return (t) => (t === 'true' || t === '1' ? true : t === 'false' || t === '0' ? false : fail(t));
    case 'Edm.Byte':
    case 'Edm.SByte':
    case 'Edm.Int16':
    case 'Edm.Int32': {
      const [min, max] = EDM_INTEGER_RANGES[type] ?? [0, 0];
      return (t) => {
        const n = integerOf(t);
        return n >= min && n <= max ? n : fail(t);
      };
    }
    case 'Edm.Int64':
      return (t) => {
        if (!INTEGER.test(t)) return fail(t);
        const n = BigInt(t);
        return n >= INT64_MIN && n <= INT64_MAX ? n.toString() : fail(t);
      };
    case 'Edm.Decimal':
      return (t) => (DECIMAL_IN.test(t) ? canonicalDecimal(t) : undefined) ?? fail(t);
    case 'Edm.Double':
    case 'Edm.Single':
      return (t) => parseFloatText(t) ?? fail(t);
    case 'Edm.Guid':
      return (t) => (GUID.test(t) ? t.toLowerCase() : fail(t));
    case 'Edm.String':
      return (t) => t;
    case 'Edm.DateTime':
      return (t) => {
        const parsed = parseIsoDateTime(t) ?? fail(t);
        return parsed.offsetMinutes === undefined ? parsed.date : dateTimeOffset(parsed.date, parsed.offsetMinutes);
      };
    case 'Edm.DateTimeOffset':
      return (t) => {
        const parsed = parseIsoDateTime(t);
        // Olingo reads a DateTimeOffset without offset as UTC.
        return parsed ? dateTimeOffset(parsed.date, parsed.offsetMinutes ?? 0) : fail(t);
      };
    case 'Edm.Time':
      return (t) => parseTime(t) ?? fail(t);
    case 'Edm.Binary':
      return (t) => decodeBase64(t.replace(XML_SPACE, '')) ?? fail(t);
  }
}

// ---------------------------------------------------------------------------------------------
// Whole property elements: `<d:Name m:type="Edm.String">text</d:Name>`, null, complex values.

/** A property value (primitive, complex record, or missing = null) as one element. */
export type XmlElementWriter = (value: EdmValue | EdmRecord | undefined) => string;

/**
 * The writer of one property element, compiled once. `prefix` is `d:` inside `m:properties`
 * and '' in a single-property document (where `d` is the default namespace). As Olingo's
 * XmlPropertyEntityProducer: m:type first, then m:null; a null complex value has no m:type.
 */
export function xmlElementWriter(
  index: ModelIndex,
  property: Pick<Property, 'name' | 'type' | 'precision'>,
  prefix: string,
  target = property.name,
): XmlElementWriter {
  const tag = prefix + property.name;
  const type = property.type;
  if (isEdmPrimitiveType(type)) {
    const format = xmlFormatter(type, target, property.precision);
    const open = `<${tag} m:type="${type}"`;
    const start = flatString(`${open}>`);
    const empty = flatString(`${open}/>`);
    const nullTag = flatString(`${open} m:null="true"/>`);
    const close = flatString(`</${tag}>`);
    return (v) => {
      if (v === null || v === undefined) return nullTag;
      const text = format(v as EdmValue);
      // text + close first: a short value and its end tag become one flat string, not two nodes.
      return text === '' ? empty : start + (text + close);
    };
  }
  const complex = index.complexType(type);
  if (!complex) throw new Error(`property ${target} has unknown type ${type}`);
  const nullTag = flatString(`<${tag} m:null="true"/>`);
  const open = flatString(`<${tag} m:type="${complex.fullName}">`);
  const close = flatString(`</${tag}>`);
  const fields = complex.properties.map((p) => ({ name: p.name, write: xmlElementWriter(index, p, prefix, `${target}/${p.name}`) }));
  return (v) => {
    if (v === null || v === undefined) return nullTag;
    if (typeof v !== 'object' || v instanceof Date || v instanceof Uint8Array || 'kind' in v) {
      throw wrongValue(type, target, v as EdmValue);
    }
    const record = v as EdmRecord;
    let out = open;
    for (const f of fields) out += f.write(record[f.name]);
    return fields.length ? out + close : `<${tag} m:type="${complex.fullName}"/>`;
  };
}

/** Reads a property element into its typed value. */
export type XmlElementReader = (element: XmlElement) => EdmValue | EdmRecord;

function isNull(element: XmlElement, target: string): boolean {
  const flag = attributeOf(element, NS_METADATA, 'null');
  if (flag === undefined || flag === 'false' || flag === '0') return false;
  if (flag === 'true' || flag === '1') return true;
  throw new PayloadError(`property ${target}: m:null="${flag.slice(0, 20)}" is not a boolean`, target);
}

function checkType(element: XmlElement, expected: string, target: string): void {
  const written = attributeOf(element, NS_METADATA, 'type');
  if (written !== undefined && written !== expected) {
    throw new PayloadError(`property ${target}: m:type ${written.slice(0, 60)} where ${expected} is expected`, target);
  }
}

interface PrimitiveReading {
  readonly type: string;
  readonly target: string;
  readonly parse: XmlParser;
}

/** How each primitive property's reader reads, for readers that have no element to give it. */
const primitiveReadings = new WeakMap<XmlElementReader, PrimitiveReading>();

/** The reader of one property element; every problem is a PayloadError naming the property. */
export function xmlElementReader(index: ModelIndex, type: string, target: string): XmlElementReader {
  if (isEdmPrimitiveType(type)) {
    const parse = xmlParser(type, target);
    const reader: XmlElementReader = (element) => {
      checkType(element, type, target);
      if (isNull(element, target)) return null;
      if (element.children.length > 0) throw new PayloadError(`property ${target}: ${type} value with child elements`, target);
      return parse(element.text);
    };
    primitiveReadings.set(reader, { type, target, parse });
    return reader;
  }
  const complex = index.complexType(type);
  if (!complex) throw new Error(`property ${target} has unknown type ${type}`);
  const fields = new Map(complex.properties.map((p) => [p.name, xmlElementReader(index, p.type, `${target}/${p.name}`)]));
  return (element) => {
    checkType(element, complex.fullName, target);
    if (isNull(element, target)) return null;
    return readProperties(element, fields, target);
  };
}

/**
 * What `reader` does with the text of an element that has `attributes` and no child elements, as
 * a function of the text alone, for a reader that keeps no tree (the Atom feed scanner); undefined
 * for a property of complex type. The attributes' checks (m:type, m:null) are made here, once.
 */
export function xmlLeafReader(reader: XmlElementReader, attributes: readonly XmlAttribute[]): ((text: string) => EdmValue) | undefined {
  const reading = primitiveReadings.get(reader);
  if (reading === undefined) return undefined;
  const element: XmlElement = { ns: NS_DATA, local: '', attributes, children: [], text: '' };
  checkType(element, reading.type, reading.target);
  return isNull(element, reading.target) ? () => null : reading.parse;
}
