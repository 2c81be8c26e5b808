// Types a `$filter` syntax tree against the model: resolves property paths (EDMX or REST names)
// from the entity type of the resource, applies V2 numeric promotion and refuses what V2 does
// not define (`Name eq 1`, `Active add 1`, navigation to many used as a member).
import type { EntityType } from './model.js';
import type { EdmPrimitiveType } from './model.js';
import type { ModelIndex } from './model-index.js';
import type { BinaryOperator, FilterNode, PropertyNode } from './filter-ast.js';
import type { SyntaxNode, SyntaxSegment } from './filter-parser.js';
import type { QueryLimits } from './limits.js';
import type { NameStyle } from './member-names.js';
import { findMember } from './member-names.js';
import { parseFilterSyntax } from './filter-parser.js';
import { resolveLimits } from './limits.js';
import { ExpressionError } from './errors.js';
import { checkCall } from './filter-functions.js';

export interface FilterContext {
  /** Entity type of the resource the filter applies to. */
  readonly type: EntityType;
  readonly index: ModelIndex;
  /** Names the text uses for properties: EDMX (`ClientID`, default) or REST (`clientId`). */
  readonly names?: NameStyle;
  readonly limits?: Partial<QueryLimits>;
  /** Refuse properties annotated `sap:filterable="false"` (default true). */
  readonly enforceCapabilities?: boolean;
}

const INTEGERS: readonly string[] = ['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64'];
const NUMERIC: readonly string[] = [...INTEGERS, 'Edm.Single', 'Edm.Double', 'Edm.Decimal'];
const ORDERED: readonly string[] = [
  ...NUMERIC,
  'Edm.String',
  'Edm.DateTime',
  'Edm.DateTimeOffset',
  'Edm.Time',
  'Edm.Guid',
  'Edm.Binary',
];

export function isNumericType(type: string | null): type is EdmPrimitiveType {
  return type !== null && NUMERIC.includes(type);
}

/**
 * V2 binary numeric promotion (MS-ODATA 2.2.3.6.1.1.2): the type two numeric operands are
 * computed in. Decimal with Single or Double computes in Double.
 */
export function promoteNumeric(a: EdmPrimitiveType, b: EdmPrimitiveType): EdmPrimitiveType {
  if (a === b) return a;
  const either = (t: string) => a === t || b === t;
  if (either('Edm.Decimal')) return either('Edm.Double') || either('Edm.Single') ? 'Edm.Double' : 'Edm.Decimal';
  for (const t of ['Edm.Double', 'Edm.Single', 'Edm.Int64', 'Edm.Int32', 'Edm.Int16'] as const) {
    if (either(t)) return t;
  }
  return 'Edm.Int16';
}

/** The type of a node for operator checks: `null` for the null literal. */
export function typeOf(node: FilterNode): string | null {
  return node.type;
}

/**
 * Resolves a member path (`Client/Name`) from the context's entity type through navigation
 * properties to one and complex properties. `capability` names the `sap:` capability the last
 * property must have (filterable for `$filter`, sortable for `$orderby`).
 */
export function resolvePropertyPath(
  segments: readonly SyntaxSegment[],
  ctx: FilterContext,
  capability?: 'filterable' | 'sortable',
): PropertyNode {
  const { index } = ctx;
  const names = ctx.names ?? 'edm';
  let current: Parameters<typeof findMember>[1] = ctx.type;
  const path: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as SyntaxSegment;
    const last = i === segments.length - 1;
    const member = findMember(index, current, segment.name, names);
    if (!member) {
      throw new ExpressionError(`unknown property ${JSON.stringify(segment.name)} of ${current.fullName}`, segment.pos);
    }
    if (member.kind === 'navigation') {
      const nav = member.navigation;
      if (nav.multiplicity === '*') {
        throw new ExpressionError(
          `navigation property ${JSON.stringify(segment.name)} leads to many ${nav.targetType}; a V2 member path follows navigation to one only (any/all are OData V4 only)`,
          segment.pos,
        );
      }
      path.push(nav.name);
      const target = index.entityType(nav.targetType);
      if (!target) throw new Error(`unknown entity type ${nav.targetType}`);
      if (last) return { kind: 'property', path, target: 'entity', type: target.fullName };
      current = target;
      continue;
    }
    const { property } = member;
    path.push(property.name);
    const complex = index.complexType(property.type);
    if (complex) {
      if (last) return { kind: 'property', path, target: 'complex', type: complex.fullName };
      current = complex;
      continue;
    }
    if (!last) {
      throw new ExpressionError(
        `${JSON.stringify(segment.name)} is a primitive property (${property.type}) and has no member ${JSON.stringify(segments[i + 1]?.name)}`,
        segments[i + 1]?.pos ?? segment.pos,
      );
    }
    if (capability && !property.capabilities[capability]) {
      throw new ExpressionError(`property ${JSON.stringify(segment.name)} is not ${capability}`, segment.pos);
    }
    return { kind: 'property', path, target: 'primitive', type: property.type };
  }
  throw new Error('empty property path');
}

class FilterChecker {
  constructor(
    private readonly ctx: FilterContext,
    private readonly enforce: boolean,
  ) {}

  check(node: SyntaxNode): FilterNode {
    switch (node.kind) {
      case 'literal':
        return { kind: 'literal', type: node.literal.type, value: node.literal.value };
      case 'path':
        return resolvePropertyPath(node.segments, this.ctx, this.enforce ? 'filterable' : undefined);
      case 'unary':
        return this.unary(node.op, this.check(node.operand), node.pos);
      case 'binary':
        return this.binary(node.op, this.check(node.left), this.check(node.right), node.pos);
      case 'call':
        return checkCall(node.name, node.args.map((a) => this.check(a)), node.pos);
    }
  }

  private unary(op: 'not' | 'negate', operand: FilterNode, pos: number): FilterNode {
    const t = typeOf(operand);
    if (op === 'not') {
      if (t !== 'Edm.Boolean') throw new ExpressionError(`not needs an Edm.Boolean operand, not ${t ?? 'null'}`, pos);
      return { kind: 'unary', op, operand, type: 'Edm.Boolean' };
    }
    if (!isNumericType(t)) throw new ExpressionError(`unary - needs a numeric operand, not ${t ?? 'null'}`, pos);
    return { kind: 'unary', op, operand, type: t === 'Edm.Byte' ? 'Edm.Int16' : t };
  }

  private binary(op: BinaryOperator, left: FilterNode, right: FilterNode, pos: number): FilterNode {
    const l = typeOf(left);
    const r = typeOf(right);
    const mismatch = () =>
      new ExpressionError(`operator ${op} cannot combine ${l ?? 'null'} with ${r ?? 'null'}`, pos);
    if (l === null && r === null) throw mismatch();
    const other = (l ?? r) as string;
    switch (op) {
      case 'and':
      case 'or':
        if ((l ?? 'Edm.Boolean') !== 'Edm.Boolean' || (r ?? 'Edm.Boolean') !== 'Edm.Boolean') throw mismatch();
        return { kind: 'binary', op, left, right, type: 'Edm.Boolean', operandType: 'Edm.Boolean' };
      case 'eq':
      case 'ne':
      case 'gt':
      case 'ge':
      case 'lt':
      case 'le': {
        const equality = op === 'eq' || op === 'ne';
        const structured = isStructured(left) || isStructured(right);
        // A navigation to one or a complex value can only be tested against null.
        if (structured && !(equality && (l === null || r === null))) throw mismatch();
        if (!structured && !ORDERED.includes(other) && !(equality && other === 'Edm.Boolean')) throw mismatch();
        const operandType = l === null || r === null ? other : comparable(l, r);
        if (operandType === undefined) throw mismatch();
        return { kind: 'binary', op, left, right, type: 'Edm.Boolean', operandType };
      }
      default: {
        if (!isNumericType(other) || (l !== null && !isNumericType(l)) || (r !== null && !isNumericType(r))) {
          throw mismatch();
        }
        const type = l !== null && r !== null ? promoteNumeric(l, r) : other;
        return { kind: 'binary', op, left, right, type, operandType: type };
      }
    }
  }
}

function isStructured(node: FilterNode): boolean {
  return node.kind === 'property' && node.target !== 'primitive';
}

function comparable(l: string, r: string): string | undefined {
  if (l === r) return l;
  return isNumericType(l) && isNumericType(r) ? promoteNumeric(l, r) : undefined;
}

/** Types a syntax tree; the whole expression must be Edm.Boolean. */
export function checkFilter(syntax: SyntaxNode, ctx: FilterContext): FilterNode {
  const checker = new FilterChecker(ctx, ctx.enforceCapabilities ?? true);
  const node = checker.check(syntax);
  if (node.type !== 'Edm.Boolean') {
    throw new ExpressionError(`$filter must be an Edm.Boolean expression, this one is ${node.type ?? 'null'}`, 0);
  }
  return node;
}

/** Parses and checks a `$filter` text: the typed AST, property paths in EDMX names. */
export function parseFilter(text: string, ctx: FilterContext): FilterNode {
  return checkFilter(parseFilterSyntax(text, resolveLimits(ctx.limits)), ctx);
}
