// Canonical V2 text of a `$filter` AST: parenthesised only where precedence needs it, literals
// in their canonical form, so that parsing the printed text gives the same AST back. The gateway
// uses it to forward a filter it parsed (from REST names) to an upstream in EDMX names.
import type { FilterNode } from './filter-ast.js';
import { PRECEDENCE, UNARY_PRECEDENCE } from './filter-ast.js';
import { formatLiteral } from './literals.js';

const PRIMARY = UNARY_PRECEDENCE + 1;

function precedence(node: FilterNode): number {
  if (node.kind === 'binary') return PRECEDENCE[node.op];
  return node.kind === 'unary' ? UNARY_PRECEDENCE : PRIMARY;
}

function wrapped(node: FilterNode, parenthesise: boolean): string {
  const text = printFilter(node);
  return parenthesise ? `(${text})` : text;
}

export function printFilter(node: FilterNode): string {
  switch (node.kind) {
    case 'literal':
      return node.type === null ? 'null' : formatLiteral(node.value, node.type);
    case 'property':
      return node.path.join('/');
    case 'call':
      return `${node.name}(${node.args.map(printFilter).join(',')})`;
    case 'unary':
      if (node.op === 'not') return `not ${wrapped(node.operand, precedence(node.operand) < UNARY_PRECEDENCE)}`;
      // `-(5)` stays a negation; `-5` would read back as the literal -5.
      return `-${wrapped(node.operand, node.operand.kind === 'literal' || precedence(node.operand) < UNARY_PRECEDENCE)}`;
    case 'binary': {
      const p = PRECEDENCE[node.op];
      // Binary operators associate to the left, so an equal-precedence right operand needs parentheses.
      return `${wrapped(node.left, precedence(node.left) < p)} ${node.op} ${wrapped(node.right, precedence(node.right) <= p)}`;
    }
  }
}
