// Edm values in the REST face's JSON shape, both ways (the shapes codegen's JSON Schemas give
// them): Int64 and Decimal as strings (a Decimal with all the places of its Scale, `95.00`),
// DateTime as RFC 3339 with the offset the upstream gave (`2026-11-22T09:00:00+01:00`, asked for
// with DATE_TIME_OFFSETS_HEADER), or in UTC (`2026-11-22T09:00:00Z`) from an upstream that names
// none; read with any offset and sent upstream as that instant,
// DateTimeOffset with its offset, Time as an ISO 8601 duration, Binary as base64, complex
// values as objects with camelCase names. One converter per type, compiled once.
import type { DateTimeOffsetValue, EdmRecord, EdmValue, TimeValue } from '../../odata/edm.js';
import { dateTimeOffset } from '../../odata/edm.js';
import { formatDateTime, formatDateTimeOffset, formatTime, parseIsoDateTime, parseTime } from '../../odata/datetime.js';
import { encodeBase64 } from '../../odata/json-values.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EdmPrimitiveType } from '../../odata/model.js';
import { isEdmPrimitiveType } from '../../odata/model.js';

export type RestValue = string | number | boolean | null | RestObject | readonly RestValue[];
export interface RestObject {
  [name: string]: RestValue;
}

export type ToRest = (value: EdmValue | EdmRecord | undefined) => RestValue;
export type FromRest = (value: unknown) => EdmValue | EdmRecord;

/** `2026-11-22T09:00:00Z`: UTC, fraction only when there is one. */
export function restDateTime(date: Date): string {
  return `${formatDateTime(date)}Z`;
}

/**
 * Decimal text with at least `scale` places after the point: `95` -> `95.00` for Scale 2. The
 * upstream reader makes decimals canonical (`95.00` -> `95`), which is right for comparing them
 * but not for showing money; places beyond the scale are kept, never rounded away.
 */
export function decimalWithScale(text: string, scale: number): string {
  const point = text.indexOf('.');
  const places = point < 0 ? 0 : text.length - point - 1;
  return places >= scale ? text : `${point < 0 ? `${text}.` : text}${'0'.repeat(scale - places)}`;
}

/** The facets of a property that change how its values are written. */
interface Facets {
  readonly scale?: number;
}

/** Values whose Edm form is already their REST form (numbers, booleans, strings). */
const asIs: ToRest = (v) => (v === undefined ? null : (v as RestValue));

function primitiveToRest(type: EdmPrimitiveType, facets: Facets): ToRest {
  switch (type) {
    case 'Edm.Decimal': {
      const scale = facets.scale ?? 0;
      return scale > 0 ? (v) => (typeof v === 'string' ? decimalWithScale(v, scale) : null) : asIs;
    }
    case 'Edm.DateTime':
      return (v) => (v instanceof Date ? restDateTime(v) : v == null ? null : formatDateTimeOffset(v as DateTimeOffsetValue));
    case 'Edm.DateTimeOffset':
      return (v) => (v == null ? null : formatDateTimeOffset(v as DateTimeOffsetValue));
    case 'Edm.Time':
      return (v) => (v == null ? null : formatTime(v as TimeValue));
    case 'Edm.Binary':
      return (v) => (v instanceof Uint8Array ? encodeBase64(v) : null);
    case 'Edm.Double':
    case 'Edm.Single':
      // JSON has no NaN or infinities; they are the one Edm value the REST shape cannot carry.
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
    default:
      return asIs;
  }
}

/** Converter of a property type (primitive or complex) to its REST value. */
export function toRestValue(index: ModelIndex, type: string, facets: Facets = {}): ToRest {
  if (isEdmPrimitiveType(type)) return primitiveToRest(type, facets);
  const complex = index.complexType(type);
  if (complex === undefined) throw new Error(`unknown type ${type}`);
  const fields = complex.properties.map((p) => ({ name: p.name, restName: p.restName, convert: toRestValue(index, p.type, p) }));
  return (v) => {
    if (v == null || typeof v !== 'object') return null;
    const record = v as EdmRecord;
    const out: RestObject = {};
    for (const f of fields) if (record[f.name] !== undefined) out[f.restName] = f.convert(record[f.name]);
    return out;
  };
}

function primitiveFromRest(type: EdmPrimitiveType): FromRest {
  // The values were checked against the schema first: formats and patterns hold.
  switch (type) {
    case 'Edm.DateTime':
      // The instant with the offset written, for the upstream to put on its wall clock.
      return (v) => {
        const parsed = typeof v === 'string' ? parseIsoDateTime(v) : undefined;
        if (parsed === undefined) return null;
        return parsed.offsetMinutes === undefined ? parsed.date : dateTimeOffset(parsed.date, parsed.offsetMinutes);
      };
    case 'Edm.DateTimeOffset':
      return (v) => {
        const parsed = typeof v === 'string' ? parseIsoDateTime(v) : undefined;
        return parsed === undefined ? null : dateTimeOffset(parsed.date, parsed.offsetMinutes ?? 0);
      };
    case 'Edm.Time':
      return (v) => (typeof v === 'string' ? (parseTime(v) ?? null) : null);
    case 'Edm.Binary':
      return (v) => (typeof v === 'string' ? Uint8Array.from(Buffer.from(v, 'base64')) : null);
    case 'Edm.Guid':
      return (v) => (typeof v === 'string' ? v.toLowerCase() : null);
    default:
      return (v) => (v === undefined ? null : (v as EdmValue));
  }
}

/** Converter of a REST value (already valid for its schema) to the Edm value of `type`. */
export function fromRestValue(index: ModelIndex, type: string): FromRest {
  if (isEdmPrimitiveType(type)) return primitiveFromRest(type);
  const complex = index.complexType(type);
  if (complex === undefined) throw new Error(`unknown type ${type}`);
  const fields = new Map(complex.properties.map((p) => [p.restName, { name: p.name, convert: fromRestValue(index, p.type) }]));
  return (v) => {
    if (v == null || typeof v !== 'object') return null;
    const record: EdmRecord = {};
    for (const [restName, value] of Object.entries(v)) {
      const field = fields.get(restName);
      if (field !== undefined) record[field.name] = field.convert(value);
    }
    return record;
  };
}
