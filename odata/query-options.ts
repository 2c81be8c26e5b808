// System query options of OData V2 (URI Conventions 4): parsed, checked against the resource
// they apply to, limited. Options without `$` are custom options, returned apart (the service
// ignores them, function imports read their parameters there). An unknown `$` option, one given
// twice, or one the resource does not take is a 400.
import type { EntitySet } from './model.js';
import type { ModelIndex } from './model-index.js';
import type { FilterNode } from './filter-ast.js';
import type { OrderByItem } from './orderby.js';
import type { ExpandItem, SelectItem } from './select-expand.js';
import type { QueryLimits } from './limits.js';
import type { ResourcePath } from './resource-path.js';
import { parseFilter } from './filter-checker.js';
import { parseOrderBy } from './orderby.js';
import { parseExpand, parseSelect } from './select-expand.js';
import { resolveLimits } from './limits.js';
import { quoteForMessage } from './literals.js';
import { LimitError, NotAcceptableError, UriSyntaxError } from './errors.js';

export interface QueryOptions {
  readonly filter?: FilterNode;
  readonly orderBy: readonly OrderByItem[];
  readonly top?: number;
  readonly skip?: number;
  /** Opaque to this parser: the service wrote it into a next link. */
  readonly skipToken?: string;
  readonly inlineCount: 'allpages' | 'none';
  readonly select?: readonly SelectItem[];
  readonly expand: readonly ExpandItem[];
  /** `json`, `atom`, `xml`, or a full media type in lower case (`application/json;odata=verbose`). */
  readonly format?: string;
  /** JSONP function name: an identifier or dotted path of identifiers. */
  readonly callback?: string;
  /** Options without `$`, by name (the first of repeated names). */
  readonly custom: ReadonlyMap<string, string>;
}

export interface QueryOptionsConfig {
  readonly limits?: Partial<QueryLimits>;
  /** Refuse `$filter`/`$orderby` on properties annotated not filterable/sortable (default true). */
  readonly enforceCapabilities?: boolean;
}

const SYSTEM_OPTIONS = [
  '$filter',
  '$orderby',
  '$top',
  '$skip',
  '$skiptoken',
  '$inlinecount',
  '$select',
  '$expand',
  '$format',
  '$callback',
] as const;
type SystemOption = (typeof SYSTEM_OPTIONS)[number];
const V4_OPTIONS = new Set(['$search', '$count', '$apply', '$compute', '$levels', '$schemaversion', '$index', '$deltatoken']);

const PAGING: readonly SystemOption[] = ['$filter', '$orderby', '$top', '$skip', '$skiptoken'];
const ENVELOPE: readonly SystemOption[] = ['$format', '$callback'];
const FEED: readonly SystemOption[] = [...PAGING, '$inlinecount', ...ENVELOPE];
const SHAPE: readonly SystemOption[] = ['$select', '$expand'];

interface Applicable {
  readonly options: readonly SystemOption[];
  /** The entity set whose type `$filter`, `$orderby`, `$select`, `$expand` refer to. */
  readonly set?: EntitySet;
}

function applicable(target: ResourcePath, index: ModelIndex): Applicable {
  switch (target.kind) {
    case 'serviceDocument':
    case 'metadata':
      return { options: ['$format'] };
    case 'batch':
      return { options: [] };
    case 'collection':
      return { options: target.count ? PAGING : [...FEED, ...SHAPE], set: target.set };
    case 'entity':
      return { options: target.mediaValue ? [] : ['$filter', ...SHAPE, ...ENVELOPE], set: target.set };
    case 'property':
      return { options: target.value ? [] : ENVELOPE };
    case 'links':
      return { options: target.count ? PAGING : target.link.isCollection ? FEED : ENVELOPE, set: target.link.set };
    case 'functionImport': {
      const { functionImport } = target;
      const set = functionImport.entitySet ? index.entitySet(functionImport.entitySet) : undefined;
      if (!set) return { options: ENVELOPE };
      const many = functionImport.returnType?.startsWith('Collection(') ?? false;
      return { options: many ? [...FEED, ...SHAPE] : [...SHAPE, ...ENVELOPE], set };
    }
  }
}

function decodeComponent(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    throw new UriSyntaxError(`query string has invalid percent-encoding or UTF-8 near ${JSON.stringify(quoteForMessage(raw))}`, quoteForMessage(raw));
  }
}

/** Name/value pairs of a query string, decoded strictly (`+` is a space, as in forms). */
function queryPairs(query: URLSearchParams | string): Array<readonly [string, string]> {
  if (typeof query !== 'string') return [...query.entries()];
  const text = query.startsWith('?') ? query.slice(1) : query;
  const pairs: Array<readonly [string, string]> = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq < 0 ? part : part.slice(0, eq));
    pairs.push([name, eq < 0 ? '' : decodeComponent(part.slice(eq + 1))]);
  }
  return pairs;
}

function nonNegativeInteger(option: string, value: string, max: number): number {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) throw new UriSyntaxError(`${option} must be a non-negative integer, not ${JSON.stringify(quoteForMessage(value))}`, option);
  }
  const n = value.length > 16 ? Infinity : Number(value);
  if (n > max) {
    if (option === '$top') throw new LimitError(`$top may be at most ${max}`, option);
    throw new UriSyntaxError(`${option} is too large`, option);
  }
  return n;
}

function isIdentifierStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
}

/** JSONP callbacks are echoed into script: only `name` or `a.b.c` of ASCII identifiers. */
function callbackName(value: string, maxLength: number): string {
  let expectStart = true;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (expectStart) {
      if (!isIdentifierStart(c)) break;
      expectStart = false;
    } else if (c === 46) expectStart = true;
    else if (!isIdentifierStart(c) && !(c >= 48 && c <= 57)) {
      expectStart = true;
      break;
    }
  }
  if (expectStart || value.length > maxLength) {
    throw new UriSyntaxError('$callback must be a JavaScript identifier or a dotted path of identifiers', '$callback');
  }
  return value;
}

const FORMATS = new Set(['json', 'atom', 'xml']);

function formatOption(value: string): string {
  const lower = value.toLowerCase();
  if (FORMATS.has(lower)) return lower;
  const slash = lower.indexOf('/');
  if (slash > 0 && slash < lower.length - 1 && !/[\s,]/.test(lower)) return lower;
  throw new NotAcceptableError(`$format must be json, atom, xml or a media type, not ${JSON.stringify(quoteForMessage(value))}`);
}

export function parseQueryOptions(
  query: URLSearchParams | string,
  target: ResourcePath,
  index: ModelIndex,
  config: QueryOptionsConfig = {},
): QueryOptions {
  const limits = resolveLimits(config.limits);
  const system = new Map<SystemOption, string>();
  const custom = new Map<string, string>();
  const allowed = applicable(target, index);
  for (const [name, value] of queryPairs(query)) {
    if (!name.startsWith('$')) {
      if (!custom.has(name)) custom.set(name, value);
      continue;
    }
    if (!(SYSTEM_OPTIONS as readonly string[]).includes(name)) {
      const v4 = V4_OPTIONS.has(name) ? ' (it is OData V4 only)' : '';
      throw new UriSyntaxError(`unknown system query option ${quoteForMessage(name)}${v4}`, quoteForMessage(name));
    }
    const option = name as SystemOption;
    if (system.has(option)) throw new UriSyntaxError(`system query option ${option} is given twice`, option);
    if (!allowed.options.includes(option)) throw new UriSyntaxError(`${option} does not apply to this resource`, option);
    if (value === '') throw new UriSyntaxError(`system query option ${option} has no value`, option);
    system.set(option, value);
  }

  const set = allowed.set;
  const ctx = set && { type: index.typeOfSet(set), index, limits, enforceCapabilities: config.enforceCapabilities };
  const filterText = system.get('$filter');
  const orderByText = system.get('$orderby');
  const expandText = system.get('$expand');
  const selectText = system.get('$select');
  const skipToken = system.get('$skiptoken');
  if (skipToken !== undefined && skipToken.length > limits.maxLiteralLength) {
    throw new LimitError(`$skiptoken is longer than ${limits.maxLiteralLength} characters`, '$skiptoken');
  }
  const inlineCount = system.get('$inlinecount') ?? 'none';
  if (inlineCount !== 'allpages' && inlineCount !== 'none') {
    throw new UriSyntaxError(`$inlinecount must be allpages or none, not ${JSON.stringify(quoteForMessage(inlineCount))}`, '$inlinecount');
  }
  const top = system.get('$top');
  const skip = system.get('$skip');
  const format = system.get('$format');
  const callback = system.get('$callback');
  const expand = set && expandText !== undefined ? parseExpand(expandText, set, index, limits) : [];
  return {
    filter: ctx && filterText !== undefined ? parseFilter(filterText, ctx) : undefined,
    orderBy: ctx && orderByText !== undefined ? parseOrderBy(orderByText, ctx) : [],
    top: top === undefined ? undefined : nonNegativeInteger('$top', top, limits.maxTop),
    skip: skip === undefined ? undefined : nonNegativeInteger('$skip', skip, Number.MAX_SAFE_INTEGER),
    skipToken,
    inlineCount,
    select: set && selectText !== undefined ? parseSelect(selectText, set, index, expand) : undefined,
    expand,
    format: format === undefined ? undefined : formatOption(format),
    callback: callback === undefined ? undefined : callbackName(callback, limits.maxLiteralLength),
    custom,
  };
}
