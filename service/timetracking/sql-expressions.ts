// `$filter` and `$orderby` expressions (the checked AST of odata/) as parameterised SQL over the
// entity tables; no value is ever spliced into the text.
//
// OData compares with two-valued logic: a comparison with a null is false, and `not` of it is
// true. SQL's unknown behaves like false under and/or, so comparisons compile plainly (and keep
// using indexes); only `ne` (null-safe) and `not` (`... is not true`) need care.
//
// A path over navigation to one (`Project/Name` from TimeEntries) is a correlated subquery that
// also applies the caller's visibility: a filter must not reveal what the caller cannot read.
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { EdmValue } from '../../odata/edm.js';
import { UriSyntaxError } from '../../odata/errors.js';
import type { BinaryNode, CallNode, FilterNode, PropertyNode } from '../../odata/filter-ast.js';
import type { EntitySet } from '../../odata/model.js';
import { relationOf } from '../odata-server/relations.js';
import type { ParameterType, SqlFunctions } from '../storage/dialect.js';
import type { Caller } from './caller.js';
import type { EntityTables } from './tables.js';

export type Sql = RawBuilder<unknown>;

/** The table a path starts from: its entity set and its alias in the statement. */
export interface Scope {
  readonly set: EntitySet;
  readonly alias: string;
}

const PARAMETER_TYPES: Readonly<Record<string, ParameterType>> = {
  'Edm.Boolean': 'integer',
  'Edm.Byte': 'integer',
  'Edm.SByte': 'integer',
  'Edm.Int16': 'integer',
  'Edm.Int32': 'integer',
  'Edm.Int64': 'bigint',
  'Edm.Decimal': 'numeric',
  'Edm.Double': 'double',
  'Edm.Single': 'double',
  'Edm.String': 'text',
  'Edm.DateTime': 'bigint',
  'Edm.DateTimeOffset': 'bigint',
};

const COMPARISON: Readonly<Record<string, string>> = { eq: '=', gt: '>', ge: '>=', lt: '<', le: '<=' };
const ARITHMETIC: Readonly<Record<string, string>> = { add: '+', sub: '-', mul: '*', div: '/', mod: '%' };
const DATE_PARTS = new Set(['year', 'month', 'day', 'hour', 'minute', 'second']);
const FALSE = sql`1 = 0`;

function unsupported(what: string): UriSyntaxError {
  return new UriSyntaxError(`${what} cannot be used in a $filter or $orderby of this service`, '$filter');
}

export class SqlExpressions {
  private aliases = 0;

  constructor(
    private readonly tables: EntityTables,
    private readonly fn: SqlFunctions,
    private readonly caller: Caller,
  ) {}

  /** A parameter holding `value` of Edm `type`, in the stored representation. */
  parameter(value: EdmValue, type: string): Sql {
    if (value === null) return sql`null`;
    const parameterType = PARAMETER_TYPES[type];
    if (parameterType === undefined) throw unsupported(`a value of ${type}`);
    if (typeof value === 'boolean') return this.fn.param(value ? 1 : 0, parameterType);
    if (value instanceof Date) return this.fn.param(value.getTime(), parameterType);
    if (typeof value === 'object' && 'kind' in value && value.kind === 'DateTimeOffset') return this.fn.param(value.date.getTime(), parameterType);
    if (typeof value === 'object') throw unsupported(`a value of ${type}`);
    return this.fn.param(value, parameterType);
  }

  /** A boolean-valued node as an SQL condition. */
  predicate(node: FilterNode, scope: Scope): Sql {
    switch (node.kind) {
      case 'literal':
        return node.value === true ? sql`1 = 1` : FALSE;
      case 'property':
        return sql`${this.property(node, scope)} = 1`;
      case 'unary':
        if (node.op !== 'not') throw unsupported('negation of a condition');
        return sql`(${this.predicate(node.operand, scope)}) is not true`;
      case 'binary':
        return this.condition(node, scope);
      case 'call':
        return this.call(node, scope, true);
    }
  }

  /** Any node as an SQL value (booleans as 1/0, date-times as epoch milliseconds). */
  value(node: FilterNode, scope: Scope): Sql {
    switch (node.kind) {
      case 'literal':
        return this.parameter(node.value, node.type ?? 'Edm.String');
      case 'property':
        return this.property(node, scope);
      case 'unary':
        return node.op === 'negate' ? sql`(-${this.value(node.operand, scope)})` : this.asValue(node, scope);
      case 'binary': {
        const operator = ARITHMETIC[node.op];
        if (operator === undefined) return this.asValue(node, scope);
        return sql`(${this.value(node.left, scope)} ${sql.raw(operator)} ${this.value(node.right, scope)})`;
      }
      case 'call':
        return node.type === 'Edm.Boolean' ? this.asValue(node, scope) : this.call(node, scope, false);
    }
  }

  /** The value of a property path, for `$orderby`. */
  path(path: readonly string[], scope: Scope): Sql {
    const [head, ...rest] = path;
    if (head === undefined) throw new Error('empty property path');
    if (rest.length === 0) {
      const column = this.tables.column(scope.set, head);
      if (column === undefined) throw unsupported(`the computed property ${head}`);
      return sql.ref(`${scope.alias}.${column}`);
    }
    return this.through(head, scope, (inner) => ({ select: this.path(rest, inner) }));
  }

  private asValue(node: FilterNode, scope: Scope): Sql {
    return sql`(case when ${this.predicate(node, scope)} then 1 else 0 end)`;
  }

  private property(node: PropertyNode, scope: Scope): Sql {
    if (node.target !== 'primitive') throw unsupported(`${node.path.join('/')} (not a primitive property)`);
    return this.path(node.path, scope);
  }

  /**
   * A subquery over the navigation `name` from `scope`: `(select <selected> ...)` when the
   * body selects a value, else `exists (select 1 ... [and <where>])`.
   */
  private through(name: string, scope: Scope, body: (inner: Scope) => { select?: Sql; where?: Sql }): Sql {
    const index = this.tables.index;
    const navigation = index.navigation(index.typeOfSet(scope.set), name);
    if (navigation === undefined) throw unsupported(`${name} (not a navigation property)`);
    const target = index.navigationTarget(scope.set, navigation);
    const relation = relationOf(index, navigation);
    const inner: Scope = { set: target, alias: `n${++this.aliases}` };
    const { select, where } = body(inner);
    const conditions = relation.source.map((source, i) => {
      const left = this.tables.column(target, relation.target[i] as string);
      const right = this.tables.column(scope.set, source);
      return sql`${sql.ref(`${inner.alias}.${left}`)} = ${sql.ref(`${scope.alias}.${right}`)}`;
    });
    conditions.push(this.tables.of(target).visibleRows(this.caller, inner.alias));
    if (where !== undefined) conditions.push(where);
    const from = sql`${sql.table(this.tables.of(target).table)} as ${sql.raw(inner.alias)} where ${sql.join(conditions, sql` and `)}`;
    return select === undefined ? sql`exists (select 1 from ${from})` : sql`(select ${select} from ${from})`;
  }

  private condition(node: BinaryNode, scope: Scope): Sql {
    const { op, left, right } = node;
    if (op === 'and' || op === 'or') {
      return sql`(${this.predicate(left, scope)} ${sql.raw(op)} ${this.predicate(right, scope)})`;
    }
    if (op === 'eq' || op === 'ne') {
      const nullSide = isNull(left) ? right : isNull(right) ? left : undefined;
      if (nullSide !== undefined) return this.nullTest(nullSide, scope, op === 'eq');
    }
    if (isNull(left) || isNull(right)) return FALSE;
    let l = this.value(left, scope);
    let r = this.value(right, scope);
    if (op === 'ne') return this.fn.isDistinct(l, r);
    const operator = COMPARISON[op];
    if (operator === undefined) throw unsupported(`the operator ${op} as a condition`);
    if (node.operandType === 'Edm.String' && op !== 'eq') {
      l = this.fn.binaryCollation(l);
      r = this.fn.binaryCollation(r);
    }
    return sql`(${l} ${sql.raw(operator)} ${r})`;
  }

  private nullTest(node: FilterNode, scope: Scope, isEq: boolean): Sql {
    if (node.kind === 'property' && node.target === 'entity') {
      // `Client eq null`: no related entity the caller can see.
      const exists = this.navigationExists(node.path, scope);
      return isEq ? sql`not ${exists}` : exists;
    }
    const value = this.value(node, scope);
    return isEq ? sql`(${value} is null)` : sql`(${value} is not null)`;
  }

  private navigationExists(path: readonly string[], scope: Scope): Sql {
    const [head, ...rest] = path;
    if (head === undefined) throw new Error('empty navigation path');
    return this.through(head, scope, (inner) => (rest.length === 0 ? {} : { where: this.navigationExists(rest, inner) }));
  }

  private call(node: CallNode, scope: Scope, asCondition: boolean): Sql {
    const args = node.args.map((arg) => this.value(arg, scope));
    const [a, b, c] = args as [Sql, Sql, Sql];
    const fn = this.fn;
    switch (node.name) {
      case 'substringof':
        return sql`(${fn.position(b, a)} > 0)`;
      case 'startswith':
        return sql`(substr(${a}, 1, ${fn.length(b)}) = ${b})`;
      case 'endswith':
        return sql`(${fn.length(a)} >= ${fn.length(b)} and substr(${a}, ${fn.length(a)} - ${fn.length(b)} + 1) = ${b})`;
      case 'length':
        return fn.length(a);
      case 'indexof':
        return sql`(${fn.position(a, b)} - 1)`;
      case 'replace':
        return sql`replace(${a}, ${b}, ${c})`;
      case 'substring':
        return args.length === 2 ? sql`substr(${a}, ${b} + 1)` : sql`substr(${a}, ${b} + 1, ${c})`;
      case 'tolower':
        return fn.lowerCase(a);
      case 'toupper':
        return fn.upperCase(a);
      case 'trim':
        return sql`trim(${a})`;
      case 'concat':
        return sql`(${sql.join(args, sql` || `)})`;
      case 'round':
        return sql`round(${a})`;
      case 'floor':
        return sql`floor(${a})`;
      case 'ceiling':
        return sql`ceil(${a})`;
      default:
        if (DATE_PARTS.has(node.name) && !asCondition) {
          if (node.args[0]?.type === 'Edm.Time') throw unsupported('an Edm.Time value');
          return fn.datePart(node.name as Parameters<SqlFunctions['datePart']>[0], a, this.caller.timeZone);
        }
        throw unsupported(`${node.name}()`);
    }
  }
}

function isNull(node: FilterNode): boolean {
  return node.kind === 'literal' && node.value === null;
}
