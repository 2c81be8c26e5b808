// Keys between the two faces: the path parameters of a REST item (`/order-details/10248/11`)
// read as typed Edm values, the OData path of that entity (`Order_Details(OrderID=10248,ProductID=11)`),
// and the REST path of an entity the upstream returned (for `Location`).
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import { parseIsoDateTime, parseTime } from '../../odata/datetime.js';
import { dateTimeOffset } from '../../odata/edm.js';
import { entityPath } from '../../odata/entity-path.js';
import type { KeyValues } from '../../odata/key-predicate.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EdmPrimitiveType, EntitySet, Property } from '../../odata/model.js';
import { EDM_INTEGER_RANGES, isEdmPrimitiveType } from '../../odata/model.js';
import type { FieldError } from '../errors.js';
import { InvalidPathError } from '../errors.js';
import type { ToRest } from './rest-values.js';
import { toRestValue } from './rest-values.js';

const INTEGER = /^-?\d{1,10}$/;
const INT64 = /^-?\d{1,19}$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The Edm value a path segment denotes as a value of `type`, or undefined when it is none. */
function pathValue(type: EdmPrimitiveType, text: string): EdmValue | undefined {
  const range = EDM_INTEGER_RANGES[type];
  if (range) return INTEGER.test(text) && Number(text) >= range[0] && Number(text) <= range[1] ? Number(text) : undefined;
  switch (type) {
    case 'Edm.Int64':
      return INT64.test(text) && BigInt(text) >= -(2n ** 63n) && BigInt(text) < 2n ** 63n ? BigInt(text).toString() : undefined;
    case 'Edm.Decimal':
      return DECIMAL.test(text) ? text : undefined;
    case 'Edm.String':
      return text;
    case 'Edm.Guid':
      return UUID.test(text) ? text.toLowerCase() : undefined;
    case 'Edm.Boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'Edm.Double':
    case 'Edm.Single':
      return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : undefined;
    case 'Edm.DateTime': {
      const parsed = parseIsoDateTime(text);
      return parsed?.offsetMinutes === undefined ? parsed?.date : dateTimeOffset(parsed.date, parsed.offsetMinutes);
    }
    case 'Edm.DateTimeOffset': {
      const parsed = parseIsoDateTime(text);
      return parsed?.offsetMinutes === undefined ? undefined : dateTimeOffset(parsed.date, parsed.offsetMinutes);
    }
    case 'Edm.Time':
      return parseTime(text);
    case 'Edm.Binary':
      return BASE64.test(text) ? Uint8Array.from(Buffer.from(text, 'base64')) : undefined;
  }
}

export interface EntityKeys {
  /** The key values of the path parameters; a 400 naming each bad one. */
  fromPath(params: Readonly<Record<string, string>>): KeyValues;
  /** `Projects(7)`: the entity's path below the OData service root, percent-encoded. */
  odataPath(key: KeyValues | EdmRecord): string;
  /** `/7` or `/10248/11`: the key segments of the entity's REST item path. */
  restSegments(record: EdmRecord): string;
}

export function entityKeys(index: ModelIndex, set: EntitySet): EntityKeys {
  const type = index.typeOfSet(set);
  const keys = type.key.map((name) => {
    const property = index.property(type, name) as Property;
    if (!isEdmPrimitiveType(property.type)) throw new Error(`key ${name} of ${type.fullName} is not primitive`);
    return { property, type: property.type, toRest: toRestValue(index, property.type) as ToRest };
  });
  const pathOf = entityPath(index, set);
  return {
    fromPath(params) {
      const values: Record<string, EdmValue> = {};
      const errors: FieldError[] = [];
      for (const key of keys) {
        const text = params[key.property.restName] ?? '';
        const value = pathValue(key.type, text);
        if (value === undefined || value === null) {
          errors.push({ pointer: `/${key.property.restName}`, detail: `path parameter '${key.property.restName}' must be an ${key.type} value` });
        } else values[key.property.name] = value;
      }
      if (errors.length > 0) throw new InvalidPathError((errors[0] as FieldError).detail, errors);
      return values;
    },
    odataPath: (key) => pathOf(key as EdmRecord),
    restSegments(record) {
      return keys.map((key) => `/${encodeURIComponent(String(key.toRest(record[key.property.name])))}`).join('');
    },
  };
}
