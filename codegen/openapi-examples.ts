// Examples of the OpenAPI document's schemas: one per primitive property (and per coded-value
// enum), derived from the schema itself (type, format, bounds, pattern, length), so Swagger UI
// and mock servers show values the gateway would accept, and a linter that checks examples
// against their schemas (spectral's oas3-valid-schema-example) finds them valid. Only the
// document gets them: the validators' schemas (schemas.json) stay as they are.
import type { JsonSchema, JsonValue } from './edm-json-schema.js';
import { splitWords } from './naming.js';

/** A copy of `schemas` with `examples` on every primitive property and enum that has none. */
export function withExamples(schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, withSchemaExamples(schema)]));
}

function withSchemaExamples(schema: JsonSchema): JsonSchema {
  if (schema.properties === undefined) {
    const value = schema.enum === undefined ? undefined : exampleOf(schema, '');
    return value === undefined || schema.examples !== undefined ? schema : { ...schema, examples: [value] };
  }
  const properties: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const nested = property.properties === undefined ? property : withSchemaExamples(property);
    const value = nested.examples === undefined ? exampleOf(nested, name) : undefined;
    properties[name] = value === undefined ? nested : { ...nested, examples: [value] };
  }
  const items = schema.items?.properties === undefined ? schema.items : withSchemaExamples(schema.items);
  return { ...schema, properties, ...(items === undefined ? {} : { items }) };
}

/** A value valid for a primitive schema, or undefined for references, objects and arrays. */
function exampleOf(schema: JsonSchema, name: string): JsonValue | undefined {
  if (schema.enum !== undefined) return schema.enum.find((value) => value !== null);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== 'null');
  switch (type) {
    case 'boolean':
      return true;
    case 'integer':
      return clamp(7, schema);
    case 'number':
      return clamp(2.5, schema);
    case 'string':
      return stringExample(schema, name);
    default:
      return undefined;
  }
}

function clamp(value: number, schema: JsonSchema): number {
  const low = schema.minimum ?? -Infinity;
  const high = schema.maximum ?? Infinity;
  return Math.min(Math.max(value, low), high);
}

const BY_FORMAT: Record<string, string> = {
  'date-time': '2026-11-22T09:00:00+01:00',
  duration: 'PT9H30M',
  uuid: '0f8fad5b-d9cb-469f-a165-70867728950e',
  email: 'jana.schmidt@example.com',
};

/** Candidates for a patterned string, tried in order: Decimal (with or without places), Int64. */
const PATTERNED = ['95.50', '95.5', '9007199254740993', '95', '0'];

function stringExample(schema: JsonSchema, name: string): string | undefined {
  if (schema.format !== undefined) return BY_FORMAT[schema.format];
  if (schema.contentEncoding === 'base64') return 'AQID';
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern, 'u');
    return PATTERNED.find((candidate) => pattern.test(candidate));
  }
  const words = splitWords(name).join(' ');
  const text = words === '' ? 'text' : `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
  const fitted = schema.maxLength === undefined ? text : text.slice(0, schema.maxLength);
  return fitted.length >= (schema.minLength ?? 0) ? fitted : undefined;
}
