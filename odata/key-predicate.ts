// Key predicates of V2 resource paths: `(7)`, `(ID=7)`, `(OrderID=1,ProductID=2)`, typed per key
// property, both directions.
import type { EdmValue } from './edm.js';
import type { EntityType } from './model.js';
import { isEdmPrimitiveType } from './model.js';
import type { ModelIndex } from './model-index.js';
import { formatLiteral, parseLiteralAs, quotedEnd, quoteForMessage } from './literals.js';
import { LiteralError, LimitError, UriSyntaxError } from './errors.js';

/** Key values by EDMX property name, in the key order of the entity type. */
export type KeyValues = Readonly<Record<string, EdmValue>>;

interface KeyItem {
  readonly name?: string;
  readonly literal: string;
}

function isNameChar(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c > 127;
}

/** The comma-separated items of a predicate body, commas inside quotes left alone. */
function splitItems(body: string, where: string): KeyItem[] {
  const items: KeyItem[] = [];
  let start = 0;
  let i = 0;
  while (i <= body.length) {
    const c = body.charCodeAt(i);
    if (c === 39) {
      const end = quotedEnd(body, i);
      if (end < 0) throw new UriSyntaxError(`quote not closed in the key of ${where}`, where);
      i = end;
      continue;
    }
    if (i === body.length || c === 44) {
      items.push(splitItem(body.slice(start, i), where));
      start = i + 1;
    }
    i++;
  }
  return items;
}

function splitItem(text: string, where: string): KeyItem {
  let i = 0;
  while (i < text.length && isNameChar(text.charCodeAt(i))) i++;
  const named = i > 0 && text.charCodeAt(i) === 61;
  const item = named ? { name: text.slice(0, i), literal: text.slice(i + 1) } : { literal: text };
  if (item.literal === '') throw new UriSyntaxError(`empty key value in ${where}`, where);
  return item;
}

function keyValue(type: EntityType, index: ModelIndex, name: string, literal: string, where: string): EdmValue {
  const property = index.property(type, name);
  if (!property || !isEdmPrimitiveType(property.type)) throw new Error(`key ${name} of ${type.fullName} is not a primitive property`);
  try {
    const value = parseLiteralAs(literal, property.type);
    if (value === null) throw new UriSyntaxError(`key ${name} of ${where} must not be null`, where);
    return value;
  } catch (error) {
    if (error instanceof LiteralError) throw new UriSyntaxError(`key ${name} of ${where}: ${error.message}`, where);
    throw error;
  }
}

/**
 * The key values a predicate body (the text between the parentheses) names for `type`.
 * `where` names the segment in messages (`Projects(...)`).
 */
export function parseKeyPredicate(
  body: string,
  type: EntityType,
  index: ModelIndex,
  maxLiteralLength: number,
  where: string,
): KeyValues {
  if (body.length > maxLiteralLength) {
    throw new LimitError(`key of ${where} is longer than ${maxLiteralLength} characters`, where);
  }
  const items = splitItems(body, where);
  const values: Record<string, EdmValue> = {};
  if (items.length === 1 && items[0]?.name === undefined) {
    if (type.key.length !== 1) {
      throw new UriSyntaxError(`${where} has a key of ${type.key.length} properties: name each as ${type.key.map((k) => `${k}=...`).join(',')}`, where);
    }
    const name = type.key[0] as string;
    values[name] = keyValue(type, index, name, (items[0] as KeyItem).literal, where);
    return values;
  }
  const given = new Map<string, string>();
  for (const item of items) {
    if (item.name === undefined) throw new UriSyntaxError(`key values of ${where} must all be named`, where);
    if (!type.key.includes(item.name)) {
      throw new UriSyntaxError(`${quoteForMessage(item.name)} is not a key property of ${type.fullName}`, where);
    }
    if (given.has(item.name)) throw new UriSyntaxError(`key ${item.name} of ${where} is given twice`, where);
    given.set(item.name, item.literal);
  }
  for (const name of type.key) {
    const literal = given.get(name);
    if (literal === undefined) throw new UriSyntaxError(`key ${name} of ${where} is missing`, where);
    values[name] = keyValue(type, index, name, literal, where);
  }
  return values;
}

/**
 * The predicate of an entity's key, parentheses included: `(7)` or `(OrderID=1,ProductID=2)`.
 * Not percent-encoded: a URI writer encodes what its context needs (`/`, `?`, `#`, `%`, ...).
 */
export function formatKeyPredicate(type: EntityType, index: ModelIndex, key: KeyValues): string {
  const literal = (name: string): string => {
    const property = index.property(type, name);
    const value = key[name];
    if (!property || !isEdmPrimitiveType(property.type) || value === undefined || value === null) {
      throw new TypeError(`no value for key ${name} of ${type.fullName}`);
    }
    return formatLiteral(value, property.type);
  };
  if (type.key.length === 1) return `(${literal(type.key[0] as string)})`;
  return `(${type.key.map((name) => `${name}=${literal(name)}`).join(',')})`;
}
