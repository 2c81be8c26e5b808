// The typed `$filter` AST of OData V2: what parseFilter returns once the expression is checked
// against the model. Property paths hold EDMX names whatever names the text used (REST or EDMX),
// so one AST serves the OData face, the REST face and the SQL translation alike.
import type { EdmValue } from './edm.js';
import type { EdmPrimitiveType } from './model.js';

export type LogicalOperator = 'and' | 'or';
export type EqualityOperator = 'eq' | 'ne';
export type RelationalOperator = 'gt' | 'ge' | 'lt' | 'le';
export type AdditiveOperator = 'add' | 'sub';
export type MultiplicativeOperator = 'mul' | 'div' | 'mod';
export type BinaryOperator =
  | LogicalOperator
  | EqualityOperator
  | RelationalOperator
  | AdditiveOperator
  | MultiplicativeOperator;

/** V2 precedence, loosest first (MS-ODATA 2.2.3.6.1.1; Olingo's FilterParserImpl agrees). */
export const PRECEDENCE: Readonly<Record<BinaryOperator, number>> = {
  or: 1,
  and: 2,
  eq: 3,
  ne: 3,
  gt: 4,
  ge: 4,
  lt: 4,
  le: 4,
  add: 5,
  sub: 5,
  mul: 6,
  div: 6,
  mod: 6,
};
/** `not` and unary `-` bind tighter than every binary operator. */
export const UNARY_PRECEDENCE = 7;

export function isBinaryOperator(word: string): word is BinaryOperator {
  return Object.prototype.hasOwnProperty.call(PRECEDENCE, word);
}

/** The canonical functions of OData V2 `$filter`. */
export const FILTER_FUNCTIONS = [
  'substringof',
  'startswith',
  'endswith',
  'length',
  'indexof',
  'replace',
  'substring',
  'tolower',
  'toupper',
  'trim',
  'concat',
  'year',
  'month',
  'day',
  'hour',
  'minute',
  'second',
  'round',
  'floor',
  'ceiling',
] as const;
export type FilterFunction = (typeof FILTER_FUNCTIONS)[number];

export function isFilterFunction(name: string): name is FilterFunction {
  return (FILTER_FUNCTIONS as readonly string[]).includes(name);
}

/** Functions that exist in OData V4 only: named in the error so the client knows why. */
export const V4_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([
  'contains',
  'any',
  'all',
  'now',
  'date',
  'time',
  'fractionalseconds',
  'totaloffsetminutes',
  'totalseconds',
  'maxdatetime',
  'mindatetime',
  'matchespattern',
  'cast',
  'isof',
]);

/** A literal with the Edm type its syntax gives it (null for `null`). */
export interface LiteralNode {
  readonly kind: 'literal';
  readonly type: EdmPrimitiveType | null;
  readonly value: EdmValue;
}

/**
 * A member path from the entity type of the resource: navigation properties to one and complex
 * properties, then the last member. `target` tells what the path ends on: a primitive property
 * (`type` is `Edm.*`), a complex property or a navigation property to one (`type` is the full
 * name of the complex or entity type; only `eq null` / `ne null` apply to those).
 */
export interface PropertyNode {
  readonly kind: 'property';
  readonly path: readonly string[];
  readonly target: 'primitive' | 'complex' | 'entity';
  readonly type: string;
}

export interface UnaryNode {
  readonly kind: 'unary';
  readonly op: 'not' | 'negate';
  readonly operand: FilterNode;
  readonly type: EdmPrimitiveType;
}

export interface BinaryNode {
  readonly kind: 'binary';
  readonly op: BinaryOperator;
  readonly left: FilterNode;
  readonly right: FilterNode;
  /** Result type: Edm.Boolean for logical and comparison operators, else the promoted type. */
  readonly type: EdmPrimitiveType;
  /**
   * Type both operands are compared or computed in after V2 numeric promotion (Int32 against
   * Decimal compares as Decimal); the other side's type when one side is `null`.
   */
  readonly operandType: string;
}

export interface CallNode {
  readonly kind: 'call';
  readonly name: FilterFunction;
  readonly args: readonly FilterNode[];
  readonly type: EdmPrimitiveType;
}

export type FilterNode = LiteralNode | PropertyNode | UnaryNode | BinaryNode | CallNode;
