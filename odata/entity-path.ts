// The canonical path of an entity below the service root, `Set(7)` or `Set(A=1,B='x')`,
// percent-encoded as Olingo's Encoder does: everything but RFC 3986 unreserved characters and
// `'` is encoded, so a JSON `__metadata.uri`, an Atom `id` and a `Location` header agree.
import type { EdmRecord, EdmValue } from './edm.js';
import { SerializationError } from './errors.js';
import { isPlainObject } from './json-values.js';
import { flatString } from './flat-string.js';
import { formatLiteral } from './literals.js';
import type { ModelIndex } from './model-index.js';
import type { EntitySet } from './model.js';
import { isEdmPrimitiveType } from './model.js';

const ENCODE_MORE = /[!*()]/g;

export function encodeSegment(text: string): string {
  return encodeURIComponent(text).replace(ENCODE_MORE, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A function from an entity of `set` to its path, compiled once per set. */
export function entityPath(index: ModelIndex, set: EntitySet): (record: EdmRecord) => string {
  const type = index.typeOfSet(set);
  const keys = type.key.map((name) => {
    const property = index.property(type, name);
    if (!property || !isEdmPrimitiveType(property.type)) throw new Error(`key ${name} of ${type.fullName} is not primitive`);
    return { name, type: property.type, prefix: type.key.length > 1 ? `${encodeSegment(name)}=` : '' };
  });
  const head = flatString(`${encodeSegment(set.name)}(`);
  const literal = (record: EdmRecord, key: (typeof keys)[number]): string => {
    const value = record[key.name];
    if (value === null || value === undefined || isPlainObject(value)) {
      throw new SerializationError(`key property ${key.name} has no value`, key.name);
    }
    if (key.type === 'Edm.Int32' && Number.isInteger(value)) return String(value);
    return encodeSegment(formatLiteral(value as EdmValue, key.type));
  };
  const [single] = keys;
  // head + (literal + ')'): a short key and its parenthesis become one flat string, one rope node.
  if (single && keys.length === 1) return (record) => head + (literal(record, single) + ')');
  return (record) => `${head}${keys.map((k) => k.prefix + literal(record, k)).join(',')})`;
}
