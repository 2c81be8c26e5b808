// A REST list query (already checked and coerced by the generated validator) as the OData query
// options of the upstream request: equality parameters and `filter` into one `$filter`, REST
// names into EDMX names, values into V2 literals; `orderBy`, `select`, `expand` resolved against
// the model with odata/'s parsers, so a bad one is a 400 naming the parameter, never an upstream call.
import type { FilterNode } from '../../odata/filter-ast.js';
import type { FilterContext } from '../../odata/filter-checker.js';
import { parseFilter } from '../../odata/filter-checker.js';
import { printFilter } from '../../odata/filter-printer.js';
import { ODataError } from '../../odata/errors.js';
import type { QueryLimits } from '../../odata/limits.js';
import { resolveLimits } from '../../odata/limits.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EdmPrimitiveType, EntitySet, Property } from '../../odata/model.js';
import { parseOrderBy } from '../../odata/orderby.js';
import type { ExpandItem, SelectItem } from '../../odata/select-expand.js';
import { parseExpand, parseSelect } from '../../odata/select-expand.js';
import { InvalidQueryError } from '../errors.js';
import type { FromRest } from './rest-values.js';
import { fromRestValue } from './rest-values.js';

/** Query parameters every list takes besides the equality ones. */
export const LIST_OPTIONS = ['filter', 'orderBy', 'select', 'expand', 'limit', 'cursor', 'count'] as const;

export interface ListQueryTranslator {
  /** `$filter=..&$orderby=..&$select=..&$expand=..` (encoded; empty when none applies). */
  translate(query: Readonly<Record<string, unknown>>): string;
  /**
   * The options as sent upstream: a list that selects and expands nothing asks for every
   * property by name. The answer is the same entries without a `__deferred` link (Atom: a
   * `<link>`) per navigation, a third less to write, send and parse for a page of time entries.
   * Cursors keep the translated options, so this long `$select` never lengthens a `next` URL.
   */
  upstreamOptions(options: string): string;
}

interface Equality {
  readonly property: Property;
  readonly convert: FromRest;
}

/** The parameter a parser error belongs to, as a 400 with its pointer. */
function refuse(parameter: string, error: unknown): never {
  if (!(error instanceof ODataError)) throw error;
  const detail = `'${parameter}': ${error.message}`;
  throw new InvalidQueryError(detail, [{ pointer: `/${parameter}`, detail }]);
}

function and(left: FilterNode | undefined, right: FilterNode): FilterNode {
  return left === undefined ? right : { kind: 'binary', op: 'and', left, right, type: 'Edm.Boolean', operandType: 'Edm.Boolean' };
}

function expandPaths(items: readonly ExpandItem[], prefix = ''): string[] {
  return items.flatMap((item) => {
    const path = prefix + item.navigation.name;
    return item.expand.length === 0 ? [path] : expandPaths(item.expand, `${path}/`);
  });
}

/**
 * V2 leaves out an expanded navigation that `$select` does not name, and REST expands what it is
 * asked to: an expanded path is added to `$select` whole, unless the select already narrows it
 * (`client/name`), where only its own expansions are added below it.
 */
function selectExpanded(paths: Set<string>, item: ExpandItem, path: string): void {
  const narrowed = [...paths].some((selected) => selected.startsWith(`${path}/`));
  if (!narrowed) {
    paths.add(path);
    return;
  }
  for (const child of item.expand) selectExpanded(paths, child, `${path}/${child.navigation.name}`);
}

function selectPath(item: SelectItem): string {
  switch (item.kind) {
    case 'all':
      return [...item.navigation, '*'].join('/');
    case 'property':
      return [...item.navigation, item.property.name].join('/');
    case 'navigation':
      return item.navigation.join('/');
  }
}

export function listQueryTranslator(
  index: ModelIndex,
  set: EntitySet,
  equalityFilters: readonly Property[],
  limitOverrides: Partial<QueryLimits>,
): ListQueryTranslator {
  const type = index.typeOfSet(set);
  const limits = resolveLimits(limitOverrides);
  const context: FilterContext = { type, index, names: 'rest', limits };
  const equalities: Equality[] = equalityFilters.map((property) => ({ property, convert: fromRestValue(index, property.type) }));

  function filterOf(query: Readonly<Record<string, unknown>>): FilterNode | undefined {
    let node: FilterNode | undefined;
    for (const { property, convert } of equalities) {
      const value = query[property.restName];
      if (value === undefined) continue;
      const literal: FilterNode = { kind: 'literal', type: property.type as EdmPrimitiveType, value: convert(value) as never };
      node = and(node, {
        kind: 'binary',
        op: 'eq',
        left: { kind: 'property', path: [property.name], target: 'primitive', type: property.type },
        right: literal,
        type: 'Edm.Boolean',
        operandType: property.type,
      });
    }
    if (typeof query.filter === 'string') {
      let parsed: FilterNode;
      try {
        parsed = parseFilter(query.filter, context);
      } catch (error) {
        refuse('filter', error);
      }
      // The client's expression first, so its own precedence is kept inside parentheses.
      node = node === undefined ? parsed : and(parsed, node);
    }
    return node;
  }

  const everyProperty = `$select=${encodeURIComponent(type.properties.map((p) => p.name).join(','))}`;

  return {
    upstreamOptions(options) {
      if (options.includes('$select=') || options.includes('$expand=')) return options;
      return options === '' ? everyProperty : `${options}&${everyProperty}`;
    },
    translate(query) {
      const options: string[] = [];
      const filter = filterOf(query);
      if (filter !== undefined) options.push(`$filter=${encodeURIComponent(printFilter(filter))}`);
      if (typeof query.orderBy === 'string') {
        let items;
        try {
          items = parseOrderBy(query.orderBy, context);
        } catch (error) {
          refuse('orderBy', error);
        }
        options.push(`$orderby=${encodeURIComponent(items.map((i) => i.path.join('/') + (i.direction === 'desc' ? ' desc' : '')).join(','))}`);
      }
      let expand: ExpandItem[] = [];
      if (typeof query.expand === 'string') {
        try {
          expand = parseExpand(query.expand, set, index, limits, 'rest');
        } catch (error) {
          refuse('expand', error);
        }
      }
      if (typeof query.select === 'string') {
        let items: SelectItem[];
        try {
          items = parseSelect(query.select, set, index, expand, 'rest');
        } catch (error) {
          refuse('select', error);
        }
        const paths = new Set(items.map(selectPath));
        for (const item of expand) selectExpanded(paths, item, item.navigation.name);
        options.push(`$select=${encodeURIComponent([...paths].join(','))}`);
      }
      if (expand.length > 0) options.push(`$expand=${encodeURIComponent(expandPaths(expand).join(','))}`);
      return options.join('&');
    },
  };
}
