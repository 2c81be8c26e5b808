// The small verbose-JSON documents besides entries and feeds, in Olingo V2's shapes:
//   error               {"error":{"code":"...","message":{"lang":"de-DE","value":"..."}}}
//   single property     {"d":{"Name":"x"}}   (complex: {"d":{"Addr":{"__metadata":{"type":..},...}}})
//   $links              {"d":{"results":[{"uri":"..."}]}}  /  {"d":{"uri":"..."}}
//   function result     {"d":{"GetChangesDigest":{"__metadata":{"type":"Service.ChangeSet"},...}}}
//                       {"d":{"__metadata":{"type":"Collection(Edm.String)"},"results":[...]}}
//   JSONP               callback(<json>)
import type { EdmRecord, EdmValue } from './edm.js';
import { PayloadError, UriSyntaxError } from './errors.js';
import type { JsonReadLimits } from './json-reader.js';
import { DEFAULT_JSON_LIMITS, parseJsonText, unwrapD } from './json-reader.js';
import { isPlainObject, jsonString, valueDecoder, valueEncoder } from './json-values.js';
import type { ModelIndex } from './model-index.js';
import type { FunctionImport, Property } from './model.js';

/** Content type of a JSONP response (RFC 9239 names text/javascript the JavaScript type). */
export const JSONP_CONTENT_TYPE = 'text/javascript;charset=utf-8';

export interface ErrorDocument {
  /** Olingo writes the code as given, `null` when there is none. */
  readonly code: string | null;
  readonly message: string;
  /** Language of the message (`de-DE`, `en`). */
  readonly lang: string;
  readonly innerError?: string;
}

export function writeJsonError(error: ErrorDocument): string {
  const code = error.code === null ? 'null' : jsonString(error.code);
  const inner = error.innerError === undefined ? '' : `,"innererror":${jsonString(error.innerError)}`;
  return `{"error":{"code":${code},"message":{"lang":${jsonString(error.lang)},"value":${jsonString(error.message)}}${inner}}}`;
}

/** An error document from any V2 server (the gateway reads upstream errors with it). */
export function readJsonError(input: unknown, limits: JsonReadLimits = DEFAULT_JSON_LIMITS): ErrorDocument {
  const body = typeof input === 'string' ? parseJsonText(input, limits) : input;
  const error = isPlainObject(body) ? body.error : undefined;
  if (!isPlainObject(error)) throw new PayloadError('not an OData error document: no "error" object');
  const message = error.message;
  const text = isPlainObject(message) ? message.value : message;
  const lang = isPlainObject(message) ? message.lang : undefined;
  if (typeof text !== 'string') throw new PayloadError('OData error document: message.value must be a string');
  const code = error.code;
  const inner = error.innererror;
  return {
    code: typeof code === 'string' ? code : null,
    message: text,
    lang: typeof lang === 'string' ? lang : '',
    ...(inner === undefined ? {} : { innerError: typeof inner === 'string' ? inner : JSON.stringify(inner) }),
  };
}

/** A single property (`/Projects(7)/Name`): `{"d":{"Name":value}}`. */
export function writeJsonProperty(index: ModelIndex, property: Property, value: EdmValue | EdmRecord): string {
  return `{"d":{${jsonString(property.name)}:${valueEncoder(index, property.type, property.name)(value)}}}`;
}

/** The value of a single-property document, typed by the property. */
export function readJsonProperty(
  index: ModelIndex,
  property: Property,
  input: unknown,
  limits: JsonReadLimits = DEFAULT_JSON_LIMITS,
): EdmValue | EdmRecord {
  const body = unwrapD(typeof input === 'string' ? parseJsonText(input, limits) : input);
  if (!isPlainObject(body) || !Object.hasOwn(body, property.name)) {
    throw new PayloadError(`expected {"d":{"${property.name}":...}}`, property.name);
  }
  return valueDecoder(index, property.type, property.name)(body[property.name]);
}

/**
 * `$links` of a to-many navigation, with `__count` first when `$inlinecount=allpages` and
 * `__next` last when the server pages the links as it pages feeds.
 */
export function writeJsonLinks(uris: readonly string[], count?: number, next?: string): string {
  const head = count === undefined ? '{"d":{"results":[' : `{"d":{"__count":"${Math.trunc(count)}","results":[`;
  const tail = next === undefined ? ']}}' : `],"__next":${jsonString(next)}}}`;
  return `${head}${uris.map((uri) => `{"uri":${jsonString(uri)}}`).join(',')}${tail}`;
}

/** `$links` of a to-one navigation. */
export function writeJsonLink(uri: string): string {
  return `{"d":{"uri":${jsonString(uri)}}}`;
}

/** The URIs of a `$links` document (V2 `results`, V1 bare array, or a single link). */
export function readJsonLinks(input: unknown, limits: JsonReadLimits = DEFAULT_JSON_LIMITS): string[] {
  const body = unwrapD(typeof input === 'string' ? parseJsonText(input, limits) : input);
  const list = Array.isArray(body) ? body : isPlainObject(body) && 'results' in body ? body.results : [body];
  if (!Array.isArray(list)) throw new PayloadError('$links: "results" must be an array');
  return list.map((item) => {
    const uri = isPlainObject(item) ? item.uri : undefined;
    if (typeof uri !== 'string') throw new PayloadError('$links: every link must be {"uri":"..."}');
    return uri;
  });
}

const COLLECTION = /^Collection\((.+)\)$/;

/**
 * The result of a function import that returns a primitive or complex type, or a collection of
 * them. Entity results are entries: write those with createJsonWriter on the function's set.
 */
export function writeJsonFunctionResult(
  index: ModelIndex,
  fn: FunctionImport,
  value: EdmValue | EdmRecord | readonly (EdmValue | EdmRecord)[],
): string {
  const returnType = fn.returnType;
  if (returnType === undefined) throw new Error(`function import ${fn.name} returns nothing`);
  const item = COLLECTION.exec(returnType)?.[1];
  if (item === undefined) {
    if (Array.isArray(value)) throw new TypeError(`function import ${fn.name} returns one ${returnType}, not a list`);
    return `{"d":{${jsonString(fn.name)}:${valueEncoder(index, returnType, fn.name)(value as EdmValue | EdmRecord)}}}`;
  }
  if (!Array.isArray(value)) throw new TypeError(`function import ${fn.name} returns ${returnType}, a list`);
  const encode = valueEncoder(index, item, fn.name);
  const items = (value as readonly (EdmValue | EdmRecord)[]).map((v) => encode(v)).join(',');
  return `{"d":{"__metadata":{"type":${jsonString(returnType)}},"results":[${items}]}}`;
}

// JavaScript identifiers joined by dots (`cb`, `jQuery123_456`, `app.handlers.done`).
const CALLBACK = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
const MAX_CALLBACK_LENGTH = 128;
// Only inside JSON strings can these occur, where a \uXXXX escape means the same character.
const SCRIPT_UNSAFE = /[<\u2028\u2029]/g;

/**
 * `callback(<json>)`. Every `<`, U+2028 and U+2029 is escaped, so no `</script>` can end the script and
 * no line separator can break it. The name is checked again here, though the
 * query-option parser validates `$callback`, because a bad name would be script injection.
 */
export function wrapJsonp(callback: string, json: string): string {
  if (callback.length > MAX_CALLBACK_LENGTH || !CALLBACK.test(callback)) {
    throw new UriSyntaxError('$callback must be a JavaScript identifier path', '$callback');
  }
  return `${callback}(${json.replace(SCRIPT_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)})`;
}
