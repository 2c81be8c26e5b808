// `$skiptoken` of server-driven paging. The next link names the first entity of the next page,
// as service-api.md §8 describes (`$skiptoken='<id of next resource>'`): the token is a V2
// string literal holding the order values of that entity as V2 literals, comma-separated, the
// key last. In the default order (by key) that is just the ID: `$skiptoken='1234'`; under
// `$orderby=StartTime` it is `'datetime''2026-11-20T09:00:00'',1234'`. The data source pages by
// keyset from those values, so page 500 costs what page 1 costs.
import type { EdmValue } from '../../odata/edm.js';
import { LiteralError, UriSyntaxError } from '../../odata/errors.js';
import { formatLiteral, parseLiteralAs, quotedEnd } from '../../odata/literals.js';
import type { EdmPrimitiveType } from '../../odata/model.js';
import type { OrderByItem } from '../../odata/orderby.js';

export function encodeSkipToken(values: readonly EdmValue[], orderBy: readonly OrderByItem[]): string {
  const literals = values.map((value, i) => formatLiteral(value, (orderBy[i] as OrderByItem).type as EdmPrimitiveType));
  return `'${literals.join(',').replaceAll("'", "''")}'`;
}

/** The order values a token holds; a 400 when it does not fit the request's order. */
export function decodeSkipToken(token: string, orderBy: readonly OrderByItem[]): EdmValue[] {
  const body = token.length >= 2 && token.startsWith("'") && quotedEnd(token, 0) === token.length
    ? token.slice(1, -1).replaceAll("''", "'")
    : token;
  const parts = splitLiterals(body);
  if (parts === undefined || parts.length !== orderBy.length) throw invalid();
  try {
    return parts.map((part, i) => parseLiteralAs(part, (orderBy[i] as OrderByItem).type as EdmPrimitiveType));
  } catch (error) {
    if (error instanceof LiteralError) throw invalid();
    throw error;
  }
}

function invalid(): UriSyntaxError {
  return new UriSyntaxError('$skiptoken is not one this service wrote for this $orderby; follow the next link as given', '$skiptoken');
}

/** Literals separated by top-level commas (commas inside quotes belong to the literal). */
function splitLiterals(text: string): string[] | undefined {
  const parts: string[] = [];
  let start = 0;
  let i = 0;
  while (i <= text.length) {
    const c = text.charCodeAt(i);
    if (c === 39 /* ' */) {
      const end = quotedEnd(text, i);
      if (end < 0) return undefined;
      i = end;
      continue;
    }
    if (i === text.length || c === 44 /* , */) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    i++;
  }
  return parts;
}
