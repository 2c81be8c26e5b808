// JSON Schema (2020-12, as OpenAPI 3.1 uses it) of one Edm primitive value in the REST face's
// JSON shape: Int64 and Decimal travel as strings (no float loss), dates as RFC 3339 text.
import type { EdmPrimitiveType, FunctionImportParameter, Property } from '../odata/model.js';
import { EDM_INTEGER_RANGES } from '../odata/model.js';

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';

export type JsonValue = string | number | boolean | null;

/** The subset of JSON Schema 2020-12 the generated schemas use. */
export interface JsonSchema {
  $ref?: string;
  type?: JsonType | JsonType[];
  title?: string;
  description?: string;
  format?: string;
  pattern?: string;
  contentEncoding?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: JsonValue[];
  default?: JsonValue;
  examples?: JsonValue[];
  readOnly?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  /** Names of the coded values in `enum`, same order (OpenAPI generators turn them into enums). */
  'x-enum-varnames'?: string[];
}


export const INT64_PATTERN = '^-?[0-9]{1,19}$';
export const BASE64_PATTERN = '^[A-Za-z0-9+/]*={0,2}$';

/**
 * Pattern of a Decimal with the given facets: at most `precision - scale` integer digits and
 * `scale` fraction digits. Without Precision any length; without Scale (only Precision) the
 * fraction is not limited, so a validator never rejects what the service may accept.
 */
export function decimalPattern(precision?: number, scale?: number): string {
  const integerDigits = precision === undefined ? '+' : precision - (scale ?? 0) > 0 ? `{1,${precision - (scale ?? 0)}}` : '';
  const integerPart = integerDigits === '' ? '0' : `[0-9]${integerDigits}`;
  if (scale === 0) return `^-?${integerPart}$`;
  const fraction = scale === undefined ? '+' : `{1,${scale}}`;
  return `^-?${integerPart}(\\.[0-9]${fraction})?$`;
}

/** Human wording of a decimal's facets, for descriptions and validation messages. */
export function decimalHint(precision?: number, scale?: number): string {
  if (precision === undefined) return 'a decimal number as a string, e.g. "12.50"';
  const integerDigits = precision - (scale ?? 0);
  const fraction = scale === undefined ? '' : scale === 0 ? ' and no fraction' : ` and at most ${scale} after the decimal point`;
  return `a decimal number as a string with at most ${integerDigits} digits before${fraction}`;
}

type Facets = Pick<Property, 'type' | 'nullable' | 'maxLength' | 'precision' | 'scale'>;

/** Base schema of a primitive type, without nullability. */
export function primitiveJsonSchema(type: EdmPrimitiveType, facets: Partial<Facets> = {}): JsonSchema {
  const range = EDM_INTEGER_RANGES[type];
  if (range) return { type: 'integer', minimum: range[0], maximum: range[1] };
  switch (type) {
    case 'Edm.String':
      return typeof facets.maxLength === 'number' ? { type: 'string', maxLength: facets.maxLength } : { type: 'string' };
    case 'Edm.Boolean':
      return { type: 'boolean' };
    case 'Edm.Guid':
      return { type: 'string', format: 'uuid' };
    case 'Edm.Int64':
      return { type: 'string', pattern: INT64_PATTERN };
    case 'Edm.Decimal':
      return { type: 'string', pattern: decimalPattern(facets.precision, facets.scale) };
    case 'Edm.Double':
    case 'Edm.Single':
      return { type: 'number' };
    case 'Edm.DateTime':
    case 'Edm.DateTimeOffset':
      return { type: 'string', format: 'date-time' };
    case 'Edm.Time':
      return { type: 'string', format: 'duration' };
    case 'Edm.Binary':
      return { type: 'string', contentEncoding: 'base64', pattern: BASE64_PATTERN };
    default:
      throw new Error(`no JSON Schema for ${type}`);
  }
}

/** What a value of the type looks like on the REST face, as a sentence fragment. */
export function typeHint(type: EdmPrimitiveType, facets: Partial<Facets> = {}): string | undefined {
  switch (type) {
    case 'Edm.Int64':
      return '64-bit integer as a decimal string, e.g. "9007199254740993"';
    case 'Edm.Decimal':
      return decimalHint(facets.precision, facets.scale);
    case 'Edm.DateTime':
      // The upstream's wall-clock time as an instant: written with the offset of the upstream's
      // zone at that instant (Z from an upstream that names none), read with any offset.
      return 'date-time (RFC 3339) with the offset of the service\'s time zone at that instant, e.g. 2026-11-22T09:00:00+01:00; read with any offset';
    case 'Edm.DateTimeOffset':
      return 'date-time with offset (RFC 3339), e.g. 2026-11-22T10:00:00+01:00';
    case 'Edm.Time':
      return 'duration (ISO 8601), e.g. PT9H30M';
    case 'Edm.Guid':
      return 'UUID, e.g. 0f8fad5b-d9cb-469f-a165-70867728950e';
    case 'Edm.Binary':
      return 'base64-encoded bytes';
    default:
      return undefined;
  }
}

/** Makes a schema also accept null (`type: [T, "null"]`, or `anyOf` with null for a `$ref`). */
export function withNull(schema: JsonSchema): JsonSchema {
  if (schema.$ref !== undefined) {
    const { $ref, ...rest } = schema;
    return { anyOf: [{ $ref }, { type: 'null' }], ...rest };
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const nullable: JsonSchema = { ...schema, type: [...types.filter((t) => t !== 'null'), 'null'] };
  if (schema.enum) nullable.enum = [...schema.enum.filter((v) => v !== null), null];
  return nullable;
}

/** The typed JSON value of an EDMX `DefaultValue`, or undefined when it cannot be read as the type. */
export function defaultJsonValue(type: string, text: string): JsonValue | undefined {
  switch (type) {
    case 'Edm.Boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'Edm.Byte':
    case 'Edm.SByte':
    case 'Edm.Int16':
    case 'Edm.Int32':
      return /^-?[0-9]+$/.test(text) ? Number(text) : undefined;
    case 'Edm.Double':
    case 'Edm.Single':
      return Number.isFinite(Number(text)) ? Number(text) : undefined;
    default:
      return text;
  }
}

/**
 * Schema of a primitive property or function parameter, with its nullability and facets
 * (the property wrapper of json-schema.ts adds the model's descriptions and coded values).
 */
export function edmToJsonSchema(property: Property | FunctionImportParameter): JsonSchema {
  const base = primitiveJsonSchema(property.type as EdmPrimitiveType, property);
  return property.nullable ? withNull(base) : base;
}
