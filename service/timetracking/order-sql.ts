// ORDER BY and keyset paging over the same order items. Nulls sort first in ascending order and
// last in descending order on both databases (the DataSource contract), and the keyset condition
// "at or after this position" agrees with that order. When no item can be null and all share one
// direction, the condition is a row-value comparison, which both databases answer from an index
// on exactly those columns (`(start_time, id) >= (?, ?)`).
import { sql } from 'kysely';
import type { EdmValue } from '../../odata/edm.js';
import type { Sql } from './sql-expressions.js';

export interface OrderTerm {
  readonly expression: Sql;
  readonly descending: boolean;
  readonly nullable: boolean;
  /** The position's value as an SQL parameter. */
  readonly parameter: (value: EdmValue) => Sql;
}

export function orderByClause(terms: readonly OrderTerm[]): Sql {
  return sql.join(terms.map((term) => {
    const direction = term.descending ? sql`desc` : sql`asc`;
    if (!term.nullable) return sql`${term.expression} ${direction}`;
    return sql`${term.expression} ${direction} ${term.descending ? sql`nulls last` : sql`nulls first`}`;
  }));
}

/** Rows at or after `position` (one value per term) in the order of `terms`. */
export function keysetCondition(terms: readonly OrderTerm[], position: readonly EdmValue[]): Sql {
  const first = terms[0];
  const sameDirection = terms.every((term) => term.descending === first?.descending);
  if (first !== undefined && sameDirection && terms.every((term, i) => !term.nullable && position[i] !== null)) {
    const operator = sql.raw(first.descending ? '<=' : '>=');
    const left = sql.join(terms.map((term) => term.expression));
    const right = sql.join(terms.map((term, i) => term.parameter(position[i] as EdmValue)));
    return terms.length === 1 ? sql`${left} ${operator} ${right}` : sql`(${left}) ${operator} (${right})`;
  }
  return atOrAfter(terms, position, 0);
}

function atOrAfter(terms: readonly OrderTerm[], position: readonly EdmValue[], i: number): Sql {
  const term = terms[i] as OrderTerm;
  const value = position[i] as EdmValue;
  const after = strictlyAfter(term, value);
  const equal = value === null ? sql`${term.expression} is null` : sql`${term.expression} = ${term.parameter(value)}`;
  const rest = i === terms.length - 1 ? equal : sql`(${equal} and ${atOrAfter(terms, position, i + 1)})`;
  return sql`(${after} or ${rest})`;
}

function strictlyAfter(term: OrderTerm, value: EdmValue): Sql {
  const e = term.expression;
  if (value === null) return term.descending ? sql`1 = 0` : sql`${e} is not null`;
  const p = term.parameter(value);
  if (!term.descending) return sql`${e} > ${p}`;
  return term.nullable ? sql`(${e} < ${p} or ${e} is null)` : sql`${e} < ${p}`;
}
