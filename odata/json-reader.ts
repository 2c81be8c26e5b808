// Verbose JSON (OData V2 and V1) reader for entries and feeds, from our service or any other.
// Accepts with or without the `d` wrapper, V2 `{"results":[...]}` and V1 bare arrays, `__count`
// as string or number, `__next`, `__metadata` (uri, type, etag), inline expanded navigation;
// `__deferred` links are skipped. Values become the typed values of edm.ts (json-values.ts).
//
// Hostile input is refused with a PayloadError: nesting deeper than maxDepth, strings longer than
// maxStringLength and the keys `__proto__`, `constructor` and `prototype` (escaped spellings
// included) are found by one walk of what the native JSON.parse built, which costs a tenth of
// parsing; a scan of the text before parsing cost as much as the parse itself. The text is
// already held whole, so parsing it first allocates no more than its size.
import { compileFunction, loadCode, storeCode } from './compiled-access.js';
import type { EdmRecord, EdmValue } from './edm.js';
import { PayloadError } from './errors.js';
import { FORBIDDEN_KEYS, isPlainObject, valueDecoder } from './json-values.js';

// Local bindings: module namespace reads cost a getter call per access under some loaders.
const forbiddenKeys = FORBIDDEN_KEYS;
const isObject = isPlainObject;
import type { ModelIndex } from './model-index.js';
import { perEntitySet } from './model-index.js';
import type { EntitySet } from './model.js';

export interface JsonReadLimits {
  /** Nesting of objects and arrays in the whole document. */
  readonly maxDepth: number;
  /** Characters of one JSON string or key (as decoded). */
  readonly maxStringLength: number;
}

export const DEFAULT_JSON_LIMITS: JsonReadLimits = Object.freeze({ maxDepth: 64, maxStringLength: 1_048_576 });

/** One entry as read: its properties, its `__metadata`, and its inline expanded navigation. */
export interface ReadEntry {
  readonly record: EdmRecord;
  readonly uri?: string;
  readonly type?: string;
  readonly etag?: string;
  readonly expanded: Readonly<Record<string, ReadEntry | null | readonly ReadEntry[]>>;
}

export interface ReadFeed {
  readonly entries: readonly ReadEntry[];
  /** `__count` (from `$inlinecount=allpages`). */
  readonly count?: number;
  /** `__next`: the URL of the next page. */
  readonly next?: string;
}

/** Whether a key may be one of FORBIDDEN_KEYS (all 9 or 11 characters): a cheap filter first. */
function isForbiddenKey(key: string): boolean {
  return (key.length === 9 || key.length === 11) && forbiddenKeys.has(key);
}

/**
 * Depth, string length and key checks over a parsed value. Scalars are not visited unless a
 * string could be too long (only when the text itself is longer than the limit).
 */
function checkParsed(value: object, depth: number, limits: JsonReadLimits, checkStrings: boolean): void {
  if (depth > limits.maxDepth) throw new PayloadError(`JSON: nesting deeper than ${limits.maxDepth} levels`);
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) checkValue(item, depth, limits, checkStrings);
    return;
  }
  for (const key in value) {
    if (isForbiddenKey(key)) throw new PayloadError(`JSON: the key "${key}" is not allowed`, key);
    if (checkStrings) checkValue(key, depth, limits, true);
    checkValue((value as Record<string, unknown>)[key], depth, limits, checkStrings);
  }
}

function checkValue(value: unknown, depth: number, limits: JsonReadLimits, checkStrings: boolean): void {
  if (typeof value === 'object') {
    if (value !== null) checkParsed(value, depth + 1, limits, checkStrings);
  } else if (checkStrings && typeof value === 'string' && value.length > limits.maxStringLength) {
    throw new PayloadError(`JSON: a string of ${value.length} characters exceeds the limit of ${limits.maxStringLength}`);
  }
}

/** JSON text -> value, refused with a PayloadError when it is malformed or hostile. */
export function parseJsonText(text: string, limits: JsonReadLimits = DEFAULT_JSON_LIMITS): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    // A nesting bomb deep enough to exhaust the parser's stack.
    if (error instanceof RangeError) throw new PayloadError(`JSON: nesting deeper than ${limits.maxDepth} levels`);
    throw new PayloadError(`JSON: ${(error as Error).message}`);
  }
  checkValue(value, 0, limits, text.length > limits.maxStringLength);
  return value;
}

/** The content of the `d` wrapper, or the value itself when it has none. */
export function unwrapD(value: unknown, bareHasD = false): unknown {
  if (!isObject(value) || bareHasD) return value;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'd' ? value.d : value;
}

type Decoder = (raw: unknown) => EdmValue | EdmRecord;

/** Decodes the known properties of one raw entry into `record`; returns how many it found. */
type PropertyReader = (raw: Record<string, unknown>, record: EdmRecord, decoders: readonly Decoder[]) => number;

/**
 * A reader with every property name written into its code (compiled-access.ts), as ajv and
 * fast-json-stringify compile theirs: a loop over the names made every load and store
 * megamorphic, a fifth of a gateway's CPU on a page of 100 entries.
 */
function compilePropertyReader(names: readonly string[]): PropertyReader {
  const lines = names.map((name, i) =>
    `v = ${loadCode('raw', name)}; if (v !== undefined) { ${storeCode('record', name, `decoders[${i}](v)`)}; seen++; }`);
  return compileFunction(['raw', 'record', 'decoders'], `let v; let seen = 0;\n${lines.join('\n')}\nreturn seen;`);
}

interface NavigationPart {
  readonly name: string;
  readonly toMany: boolean;
  readonly target: () => CompiledSet;
}

interface CompiledSet {
  readonly typeName: string;
  readonly properties: ReadonlyMap<string, Decoder>;
  readonly navigations: ReadonlyMap<string, NavigationPart>;
  readonly readProperties: PropertyReader;
  readonly decoders: readonly Decoder[];
  readonly navigationList: readonly NavigationPart[];
}

const compileSet = perEntitySet(compileEntitySet);

function compileEntitySet(index: ModelIndex, set: EntitySet): CompiledSet {
  const type = index.typeOfSet(set);
  const propertyList = type.properties.map((p) => ({ name: p.name, decode: valueDecoder(index, p.type, p.name) }));
  const navigationList = type.navigationProperties.map((nav): NavigationPart => {
    let target: CompiledSet | undefined;
    return {
      name: nav.name,
      toMany: nav.multiplicity === '*',
      target: () => (target ??= compileSet(index, index.navigationTarget(set, nav))),
    };
  });
  return {
    typeName: type.fullName,
    properties: new Map(propertyList.map((p) => [p.name, p.decode])),
    navigations: new Map(navigationList.map((n) => [n.name, n])),
    readProperties: compilePropertyReader(propertyList.map((p) => p.name)),
    decoders: propertyList.map((p) => p.decode),
    navigationList,
  };
}

function optionalString(meta: Record<string, unknown>, key: string): string | undefined {
  const value = meta[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new PayloadError(`__metadata.${key} must be a string`, `__metadata.${key}`);
  return value;
}

function readMetadata(entry: EntryDraft, c: CompiledSet, value: unknown): void {
  if (!isObject(value)) throw new PayloadError('__metadata must be an object', '__metadata');
  for (const key of Object.keys(value)) {
    if (forbiddenKeys.has(key)) throw new PayloadError(`JSON: the key "${key}" is not allowed`, key);
  }
  const uri = optionalString(value, 'uri');
  const type = optionalString(value, 'type');
  const etag = optionalString(value, 'etag');
  if (type !== undefined && type !== c.typeName) {
    throw new PayloadError(`__metadata.type ${type} is not the entity type ${c.typeName}`, '__metadata.type');
  }
  if (uri !== undefined) entry.uri = uri;
  if (type !== undefined) entry.type = type;
  if (etag !== undefined) entry.etag = etag;
}

type EntryDraft = { -readonly [K in keyof ReadEntry]: ReadEntry[K] };

/** The first key of `raw` that is neither a property, a navigation nor `__metadata`. */
function unknownKey(c: CompiledSet, raw: Record<string, unknown>): string | undefined {
  return Object.keys(raw).find(
    (key) => forbiddenKeys.has(key) || (key !== '__metadata' && !c.properties.has(key) && !c.navigations.has(key)),
  );
}

function readEntry(c: CompiledSet, raw: unknown, depth: number, limits: JsonReadLimits): ReadEntry {
  if (depth > limits.maxDepth) throw new PayloadError(`JSON: nesting deeper than ${limits.maxDepth} levels`);
  if (!isObject(raw)) throw new PayloadError(`an entry of ${c.typeName} must be a JSON object`);
  const record: EdmRecord = {};
  const entry: EntryDraft = { record, expanded: {} };
  // Known names are read in model order; the key count then proves there is nothing else, and
  // only a mismatch pays for finding the stranger.
  let seen = c.readProperties(raw, record, c.decoders);
  const meta = raw.__metadata;
  if (meta !== undefined) {
    readMetadata(entry, c, meta);
    seen++;
  }
  for (const n of c.navigationList) {
    const value = raw[n.name];
    if (value === undefined) continue;
    seen++;
    const inline = readNavigation(n.name, n, value, depth, limits);
    if (inline !== undefined) (entry.expanded as Record<string, unknown>)[n.name] = inline;
  }
  if (seen !== Object.keys(raw).length) {
    const key = unknownKey(c, raw);
    if (key !== undefined && forbiddenKeys.has(key)) throw new PayloadError(`JSON: the key "${key}" is not allowed`, key);
    if (key !== undefined) throw new PayloadError(`${key} is not a property of ${c.typeName}`, key);
  }
  return entry;
}

/** Inline content of a navigation property; undefined for a `__deferred` link. */
function readNavigation(
  name: string,
  nav: NavigationPart,
  value: unknown,
  depth: number,
  limits: JsonReadLimits,
): ReadEntry | null | readonly ReadEntry[] | undefined {
  if (value === null) return null;
  if (isObject(value) && '__deferred' in value) return undefined;
  const target = nav.target();
  const list = Array.isArray(value) ? value : isObject(value) && nav.toMany ? value.results : undefined;
  if (nav.toMany) {
    if (!Array.isArray(list)) throw new PayloadError(`${name}: an expanded collection must be an array or {"results":[...]}`, name);
    return list.map((item) => readEntry(target, item, depth + 1, limits));
  }
  if (Array.isArray(value)) throw new PayloadError(`${name}: an expanded single entry must be an object`, name);
  return readEntry(target, value, depth + 1, limits);
}

function countOf(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new PayloadError('__count must be a non-negative integer', '__count');
  }
  return n;
}

/** `__next` as Olingo and WCF write it (a string) or as the V2 text describes it (`{"uri":...}`). */
function nextLink(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const uri = isObject(raw) ? raw.uri : raw;
  if (typeof uri !== 'string') throw new PayloadError('__next must be a URL string', '__next');
  return uri;
}

function parsed(input: unknown, limits: JsonReadLimits): unknown {
  return typeof input === 'string' ? parseJsonText(input, limits) : input;
}

export interface JsonReader {
  /** An entry from JSON text (or an already parsed value), with or without `{"d":...}`. */
  entry(input: unknown): ReadEntry;
  /** A feed: `{"d":{"results":[...]}}`, `{"d":[...]}` (V1), or either without `d`. */
  feed(input: unknown): ReadFeed;
}

/** A reader for entries of one entity set, compiled once per model and set. */
export function createJsonReader(
  index: ModelIndex,
  set: EntitySet,
  limits: JsonReadLimits = DEFAULT_JSON_LIMITS,
): JsonReader {
  const c = compileSet(index, set);
  return {
    entry(input) {
      return readEntry(c, unwrapD(parsed(input, limits), c.properties.has('d')), 0, limits);
    },
    feed(input) {
      const body = unwrapD(parsed(input, limits));
      if (Array.isArray(body)) return { entries: body.map((item) => readEntry(c, item, 1, limits)) };
      if (!isObject(body) || !Array.isArray(body.results)) {
        throw new PayloadError('a feed must be {"d":{"results":[...]}} or {"d":[...]}');
      }
      const count = countOf(body.__count);
      const next = nextLink(body.__next);
      return {
        entries: body.results.map((item) => readEntry(c, item, 1, limits)),
        ...(count === undefined ? {} : { count }),
        ...(next === undefined ? {} : { next }),
      };
    },
  };
}

export function readJsonEntry(input: unknown, index: ModelIndex, set: EntitySet, limits?: JsonReadLimits): ReadEntry {
  return createJsonReader(index, set, limits).entry(input);
}

export function readJsonFeed(input: unknown, index: ModelIndex, set: EntitySet, limits?: JsonReadLimits): ReadFeed {
  return createJsonReader(index, set, limits).feed(input);
}
