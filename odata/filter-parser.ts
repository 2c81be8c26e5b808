// The V2 `$filter` grammar (MS-ODATA 2.2.3.6.1.1) by precedence climbing, into a syntax tree
// that still holds names as written and input positions; filter-checker.ts types it against the
// model. Depth and node count are counted while parsing, so hostile nesting is refused with a
// LimitError long before the call stack is at risk.
import type { Literal } from './literals.js';
import type { BinaryOperator, FilterFunction } from './filter-ast.js';
import { isBinaryOperator, isFilterFunction, PRECEDENCE, V4_ONLY_FUNCTIONS } from './filter-ast.js';
import type { Token } from './filter-lexer.js';
import { FilterLexer } from './filter-lexer.js';
import type { QueryLimits } from './limits.js';
import { ExpressionError, LimitError } from './errors.js';

export interface SyntaxSegment {
  readonly name: string;
  readonly pos: number;
}

export type SyntaxNode =
  | { readonly kind: 'literal'; readonly pos: number; readonly literal: Literal }
  | { readonly kind: 'path'; readonly pos: number; readonly segments: readonly SyntaxSegment[] }
  | { readonly kind: 'unary'; readonly pos: number; readonly op: 'not' | 'negate'; readonly operand: SyntaxNode }
  | {
      readonly kind: 'binary';
      readonly pos: number;
      readonly op: BinaryOperator;
      readonly left: SyntaxNode;
      readonly right: SyntaxNode;
    }
  | { readonly kind: 'call'; readonly pos: number; readonly name: FilterFunction; readonly args: readonly SyntaxNode[] };

const V4_OPERATORS: Readonly<Record<string, string>> = {
  in: 'the in operator',
  has: 'the has operator',
  divby: 'the divby operator',
};

function describe(token: Token): string {
  return token.kind === 'end' ? 'the end of the expression' : `${JSON.stringify(token.text)}`;
}

export function unexpected(token: Token, expected: string): ExpressionError {
  return new ExpressionError(`expected ${expected} but found ${describe(token)}`, token.pos);
}

/** A V2 filter-grammar parser over one expression text; one instance per parse. */
export class FilterSyntaxParser {
  readonly lexer: FilterLexer;
  private nodes = 0;
  private depth = 0;

  constructor(
    text: string,
    private readonly limits: QueryLimits,
  ) {
    this.lexer = new FilterLexer(text, limits.maxLiteralLength);
  }

  /** An expression whose binary operators all bind at least as tight as `minPrecedence`. */
  expression(minPrecedence = 1): SyntaxNode {
    let left = this.unary();
    for (;;) {
      const token = this.lexer.peek();
      if (token.kind !== 'identifier') return left;
      const op = this.operator(token);
      const precedence = PRECEDENCE[op];
      if (precedence < minPrecedence) return left;
      this.lexer.next();
      const right = this.expression(precedence + 1);
      left = this.count({ kind: 'binary', pos: token.pos, op, left, right });
    }
  }

  /** A property path `A/B/C` (for `$orderby`, `$select` style lists). */
  path(first: Token): SyntaxNode {
    const segments: SyntaxSegment[] = [{ name: first.text, pos: first.pos }];
    while (this.lexer.peek().kind === 'slash') {
      this.lexer.next();
      const name = this.lexer.next();
      if (name.kind !== 'identifier') throw unexpected(name, "a property name after '/'");
      if (this.lexer.peek().kind === 'open') {
        if (name.text === 'any' || name.text === 'all') {
          throw new ExpressionError(`lambda operator ${name.text}() is OData V4 only, not part of V2 $filter`, name.pos);
        }
        throw new ExpressionError(`${JSON.stringify(name.text)} is not a function of V2 $filter`, name.pos);
      }
      segments.push({ name: name.text, pos: name.pos });
    }
    return this.count({ kind: 'path', pos: first.pos, segments });
  }

  private operator(token: Token): BinaryOperator {
    const word = token.text;
    if (isBinaryOperator(word)) return word;
    const v4 = V4_OPERATORS[word];
    if (v4) throw new ExpressionError(`${v4} is OData V4 only, not part of V2 $filter`, token.pos);
    const lower = word.toLowerCase();
    if (isBinaryOperator(lower)) {
      throw new ExpressionError(`operator ${JSON.stringify(word)} must be written in lower case: ${lower}`, token.pos);
    }
    throw unexpected(token, 'an operator (eq ne gt ge lt le and or not add sub mul div mod)');
  }

  private unary(): SyntaxNode {
    const token = this.lexer.peek();
    const op = token.kind === 'minus' ? 'negate' : token.kind === 'identifier' && token.text === 'not' ? 'not' : undefined;
    if (!op) return this.primary();
    this.lexer.next();
    this.enter(token);
    const operand = this.unary();
    this.depth--;
    return this.count({ kind: 'unary', pos: token.pos, op, operand });
  }

  private primary(): SyntaxNode {
    const token = this.lexer.next();
    switch (token.kind) {
      case 'literal':
        return this.count({ kind: 'literal', pos: token.pos, literal: token.literal ?? unreachable() });
      case 'open': {
        this.enter(token);
        const inner = this.expression();
        const close = this.lexer.next();
        if (close.kind !== 'close') throw unexpected(close, `')' to close '(' at position ${token.pos}`);
        this.depth--;
        return inner;
      }
      case 'identifier':
        if (isBinaryOperator(token.text)) throw unexpected(token, 'an expression');
        return this.lexer.peek().kind === 'open' ? this.call(token) : this.path(token);
      default:
        throw unexpected(token, 'an expression');
    }
  }

  private call(name: Token): SyntaxNode {
    if (V4_ONLY_FUNCTIONS.has(name.text)) {
      throw new ExpressionError(`function ${name.text}() is OData V4 only, not part of V2 $filter`, name.pos);
    }
    if (!isFilterFunction(name.text)) {
      throw new ExpressionError(`unknown function ${JSON.stringify(name.text)}`, name.pos);
    }
    this.enter(this.lexer.next());
    const args: SyntaxNode[] = [];
    if (this.lexer.peek().kind === 'close') this.lexer.next();
    else {
      for (;;) {
        args.push(this.expression());
        const separator = this.lexer.next();
        if (separator.kind === 'close') break;
        if (separator.kind !== 'comma') throw unexpected(separator, `',' or ')' in the arguments of ${name.text}()`);
      }
    }
    this.depth--;
    return this.count({ kind: 'call', pos: name.pos, name: name.text, args });
  }

  private enter(token: Token): void {
    if (++this.depth > this.limits.maxFilterDepth) {
      throw new LimitError(
        `expression nests deeper than ${this.limits.maxFilterDepth} levels at position ${token.pos}`,
        String(token.pos),
      );
    }
  }

  private count(node: SyntaxNode): SyntaxNode {
    if (++this.nodes > this.limits.maxFilterNodes) {
      throw new LimitError(
        `expression has more than ${this.limits.maxFilterNodes} nodes (at position ${node.pos})`,
        String(node.pos),
      );
    }
    return node;
  }
}

function unreachable(): never {
  throw new Error('literal token without a value');
}

/** The syntax tree of a whole `$filter` text, names unresolved. */
export function parseFilterSyntax(text: string, limits: QueryLimits): SyntaxNode {
  if (text.length > limits.maxFilterLength) {
    throw new LimitError(`$filter is longer than ${limits.maxFilterLength} characters`, '$filter');
  }
  const parser = new FilterSyntaxParser(text, limits);
  if (parser.lexer.peek().kind === 'end') throw new ExpressionError('$filter is empty', 0);
  const tree = parser.expression();
  const rest = parser.lexer.peek();
  if (rest.kind !== 'end') throw unexpected(rest, 'an operator or the end of the expression');
  return tree;
}
