// `$orderby` of OData V2: a comma list of property paths, each `asc` (default) or `desc`.
// Paths follow navigation to one (`Client/Name`) and must end on a sortable primitive property.
import type { FilterContext } from './filter-checker.js';
import { resolvePropertyPath } from './filter-checker.js';
import { FilterSyntaxParser, unexpected } from './filter-parser.js';
import { resolveLimits } from './limits.js';
import { ExpressionError, LimitError } from './errors.js';

export interface OrderByItem {
  /** EDMX names from the entity type of the resource to the sorted property. */
  readonly path: readonly string[];
  /** The `Edm.*` type of the sorted property. */
  readonly type: string;
  readonly direction: 'asc' | 'desc';
}

export function parseOrderBy(text: string, ctx: FilterContext): OrderByItem[] {
  const limits = resolveLimits(ctx.limits);
  if (text.length > limits.maxFilterLength) {
    throw new LimitError(`$orderby is longer than ${limits.maxFilterLength} characters`, '$orderby');
  }
  const parser = new FilterSyntaxParser(text, limits);
  const { lexer } = parser;
  const items: OrderByItem[] = [];
  for (;;) {
    const first = lexer.next();
    if (first.kind !== 'identifier' || lexer.peek().kind === 'open') {
      throw unexpected(first, '$orderby takes property paths: a property name');
    }
    const path = parser.path(first);
    if (path.kind !== 'path') throw new Error('path() returned no path');
    const property = resolvePropertyPath(path.segments, ctx, ctx.enforceCapabilities === false ? undefined : 'sortable');
    if (property.target !== 'primitive') {
      throw new ExpressionError(`$orderby sorts by primitive properties; ${property.path.join('/')} is not one`, first.pos);
    }
    let direction: 'asc' | 'desc' = 'asc';
    const word = lexer.peek();
    if (word.kind === 'identifier' && (word.text === 'asc' || word.text === 'desc')) {
      direction = word.text;
      lexer.next();
    }
    items.push({ path: property.path, type: property.type, direction });
    if (items.length > limits.maxOrderByItems) {
      throw new LimitError(`$orderby has more than ${limits.maxOrderByItems} items`, '$orderby');
    }
    const separator = lexer.next();
    if (separator.kind === 'end') return items;
    if (separator.kind !== 'comma') throw unexpected(separator, "'asc', 'desc', ',' or the end of $orderby");
  }
}
