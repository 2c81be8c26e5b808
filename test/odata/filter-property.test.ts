// Property-based tests of the $filter parser: printing a random well-typed AST and parsing it
// back gives the same AST; arbitrary text never throws anything but the typed 400 errors.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseFilter } from '../../odata/filter-checker.js';
import { printFilter } from '../../odata/filter-printer.js';
import { canonicalDecimal } from '../../odata/json-values.js';
import { dateTimeOffset, time } from '../../odata/edm.js';
import { ExpressionError, LimitError, LiteralError } from '../../odata/errors.js';
import type { BinaryOperator, FilterNode, FilterFunction } from '../../odata/filter-ast.js';
import type { EdmPrimitiveType } from '../../odata/model.js';
import type { EdmValue } from '../../odata/edm.js';
import { entityType, timetracking } from './filter-fixtures.js';

const ctx = { type: entityType(timetracking, 'Service.TimeEntry'), index: timetracking };

const literal = (type: EdmPrimitiveType | null, value: EdmValue): FilterNode => ({ kind: 'literal', type, value });
const property = (path: string[], type: string, target: 'primitive' | 'entity' = 'primitive'): FilterNode => ({
  kind: 'property',
  path,
  target,
  type,
});
const binary = (op: BinaryOperator, left: FilterNode, right: FilterNode, type: EdmPrimitiveType, operandType: string): FilterNode => ({
  kind: 'binary',
  op,
  left,
  right,
  type,
  operandType,
});
const call = (name: FilterFunction, type: EdmPrimitiveType, ...args: FilterNode[]): FilterNode => ({ kind: 'call', name, args, type });

const oneOfProperty = (type: string, ...paths: string[]) => fc.constantFrom(...paths.map((p) => property(p.split('/'), type)));

const int32Literal = fc.integer({ min: -2147483648, max: 2147483647 }).map((n) => literal('Edm.Int32', n === 0 ? 0 : n));
const stringLiteral = fc.string({ unit: 'binary', maxLength: 30 }).map((s) => literal('Edm.String', s));
const dateLiteral = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((d) => literal('Edm.DateTime', d));
const decimalLiteral = fc
  .tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 8 }))
  .map(([n, scale]) => {
    const digits = (n < 0n ? -n : n).toString().padStart(scale + 1, '0');
    const text = `${n < 0n ? '-' : ''}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}0`;
    return literal('Edm.Decimal', canonicalDecimal(text) as string);
  });
const int64Literal = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => literal('Edm.Int64', n.toString()));
const doubleLiteral = fc.double().map((n) => literal('Edm.Double', n));
const singleLiteral = fc.float().map((n) => literal('Edm.Single', n));

/** Pairs of literals of the types only literals have in this model, compared with each other. */
const otherTypedComparison = fc.oneof(
  fc.tuple(fc.uuid(), fc.uuid()).map(([a, b]) => [literal('Edm.Guid', a), literal('Edm.Guid', b), 'Edm.Guid'] as const),
  fc
    .tuple(fc.integer({ min: -1e10, max: 1e10 }), fc.integer({ min: 0, max: 1e9 }))
    .map(([a, b]) => [literal('Edm.Time', time(a)), literal('Edm.Time', time(b)), 'Edm.Time'] as const),
  fc
    .tuple(
      fc.date({ min: new Date('0002-01-01T00:00:00Z'), max: new Date('9998-12-31T00:00:00Z'), noInvalidDate: true }),
      fc.integer({ min: -14 * 60, max: 14 * 60 }),
    )
    .map(([d, off]) => {
      const value = literal('Edm.DateTimeOffset', dateTimeOffset(d, off));
      return [value, value, 'Edm.DateTimeOffset'] as const;
    }),
  fc
    .tuple(fc.uint8Array({ maxLength: 16 }), fc.uint8Array({ maxLength: 16 }))
    .map(([a, b]) => [literal('Edm.Binary', a), literal('Edm.Binary', b), 'Edm.Binary'] as const),
);

const comparison = fc.constantFrom<BinaryOperator>('eq', 'ne', 'gt', 'ge', 'lt', 'le');
const arithmetic = fc.constantFrom<BinaryOperator>('add', 'sub', 'mul', 'div', 'mod');

const { boolean: wellTypedFilter } = fc.letrec<{
  boolean: FilterNode;
  int32: FilterNode;
  string: FilterNode;
  dateTime: FilterNode;
  decimal: FilterNode;
}>((tie) => ({
  int32: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    oneOfProperty('Edm.Int32', 'ProjectID', 'TaskID', 'UserID', 'Project/ClientID', 'Project/Client/ID'),
    int32Literal,
    fc.tuple(arithmetic, tie('int32'), tie('int32')).map(([op, l, r]) => binary(op, l, r, 'Edm.Int32', 'Edm.Int32')),
    tie('int32').map((operand): FilterNode => ({ kind: 'unary', op: 'negate', operand, type: 'Edm.Int32' })),
    tie('string').map((s) => call('length', 'Edm.Int32', s)),
    fc.tuple(tie('string'), tie('string')).map(([a, b]) => call('indexof', 'Edm.Int32', a, b)),
    tie('dateTime').map((d) => call('year', 'Edm.Int32', d)),
    tie('dateTime').map((d) => call('second', 'Edm.Int32', d)),
  ),
  string: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    oneOfProperty('Edm.String', 'Comment', 'Custom1', 'Project/Name', 'Task/Description', 'User/Email'),
    stringLiteral,
    tie('string').map((s) => call('tolower', 'Edm.String', s)),
    tie('string').map((s) => call('trim', 'Edm.String', s)),
    fc.tuple(tie('string'), tie('string'), fc.array(tie('string'), { maxLength: 2 })).map(([a, b, rest]) => call('concat', 'Edm.String', a, b, ...rest)),
    fc.tuple(tie('string'), tie('int32'), fc.option(tie('int32'), { nil: undefined })).map(([s, from, length]) =>
      length ? call('substring', 'Edm.String', s, from, length) : call('substring', 'Edm.String', s, from),
    ),
    fc.tuple(tie('string'), tie('string'), tie('string')).map(([a, b, c]) => call('replace', 'Edm.String', a, b, c)),
  ),
  dateTime: fc.oneof(oneOfProperty('Edm.DateTime', 'StartTime', 'EndTime', 'Project/LastChangeTime'), dateLiteral),
  decimal: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    oneOfProperty('Edm.Decimal', 'Project/HourlyRate'),
    decimalLiteral,
    fc.tuple(fc.constantFrom<BinaryOperator>('add', 'sub'), tie('decimal'), tie('decimal')).map(([op, l, r]) => binary(op, l, r, 'Edm.Decimal', 'Edm.Decimal')),
    tie('decimal').map((d) => call('round', 'Edm.Decimal', d)),
  ),
  boolean: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    oneOfProperty('Edm.Boolean', 'Billable', 'Locked', 'Project/Active', 'Project/Client/Active'),
    fc.constantFrom(literal('Edm.Boolean', true), literal('Edm.Boolean', false)),
    tie('boolean').map((operand): FilterNode => ({ kind: 'unary', op: 'not', operand, type: 'Edm.Boolean' })),
    fc.tuple(fc.constantFrom<BinaryOperator>('and', 'or'), tie('boolean'), tie('boolean')).map(([op, l, r]) => binary(op, l, r, 'Edm.Boolean', 'Edm.Boolean')),
    fc.tuple(fc.constantFrom<BinaryOperator>('eq', 'ne'), tie('boolean'), tie('boolean')).map(([op, l, r]) => binary(op, l, r, 'Edm.Boolean', 'Edm.Boolean')),
    fc.tuple(comparison, tie('int32'), tie('int32')).map(([op, l, r]) => binary(op, l, r, 'Edm.Boolean', 'Edm.Int32')),
    fc.tuple(comparison, tie('string'), tie('string')).map(([op, l, r]) => binary(op, l, r, 'Edm.Boolean', 'Edm.String')),
    fc.tuple(comparison, tie('dateTime'), tie('dateTime')).map(([op, l, r]) => binary(op, l, r, 'Edm.Boolean', 'Edm.DateTime')),
    fc.tuple(comparison, tie('decimal'), tie('int32')).map(([op, l, r]) => binary(op, l, r, 'Edm.Boolean', 'Edm.Decimal')),
    fc.tuple(comparison, tie('int32'), int64Literal).map(([op, l, r]) => binary(op, l, r, 'Edm.Boolean', 'Edm.Int64')),
    fc.tuple(comparison, tie('int32'), doubleLiteral).map(([op, l, r]) => binary(op, l, r, 'Edm.Boolean', 'Edm.Double')),
    fc.tuple(comparison, singleLiteral, tie('int32')).map(([op, l, r]) => binary(op, l, r, 'Edm.Boolean', 'Edm.Single')),
    fc.tuple(comparison, otherTypedComparison).map(([op, [l, r, t]]) => binary(op, l, r, 'Edm.Boolean', t)),
    fc.tuple(fc.constantFrom<BinaryOperator>('eq', 'ne'), fc.constantFrom(['TaskID', 'Edm.Int32'], ['EndTime', 'Edm.DateTime'], ['Comment', 'Edm.String'])).map(
      ([op, [name, type]]) => binary(op, property([name as string], type as string), literal(null, null), 'Edm.Boolean', type as string),
    ),
    fc.constantFrom(
      binary('eq', property(['Task'], 'Service.Task', 'entity'), literal(null, null), 'Edm.Boolean', 'Service.Task'),
      binary('ne', literal(null, null), property(['Project', 'Client'], 'Service.Client', 'entity'), 'Edm.Boolean', 'Service.Client'),
    ),
    fc.tuple(fc.constantFrom<FilterFunction>('startswith', 'endswith', 'substringof'), tie('string'), tie('string')).map(([name, a, b]) =>
      call(name, 'Edm.Boolean', a, b),
    ),
  ),
}));

function nodeCount(node: FilterNode): number {
  switch (node.kind) {
    case 'binary':
      return 1 + nodeCount(node.left) + nodeCount(node.right);
    case 'unary':
      return 1 + nodeCount(node.operand);
    case 'call':
      return 1 + node.args.reduce((n, a) => n + nodeCount(a), 0);
    default:
      return 1;
  }
}

const generous = { ...ctx, limits: { maxFilterNodes: 100_000, maxFilterDepth: 1000, maxFilterLength: 1_000_000 } };

describe('$filter round trip', () => {
  it('parse(print(ast)) equals ast for random well-typed ASTs over the time-tracking model', () => {
    fc.assert(
      fc.property(wellTypedFilter, (ast) => {
        const text = printFilter(ast);
        expect(parseFilter(text, generous)).toEqual(ast);
        // Printing is canonical: the printed text of the parsed AST is the same text.
        expect(printFilter(parseFilter(text, generous))).toBe(text);
      }),
      { numRuns: 3000 },
    );
  });

  it('generates ASTs of real size (the property is not vacuous)', () => {
    const sizes = fc.sample(wellTypedFilter, { numRuns: 500, seed: 42 }).map(nodeCount);
    expect(Math.max(...sizes)).toBeGreaterThan(20);
  });
});

const TOKENS = [
  ' ', ' ', '(', ')', ',', '/', '-', "'", "''", 'eq', 'ne', 'gt', 'and', 'or', 'not', 'add', 'mul', 'div', 'mod',
  'ProjectID', 'Comment', 'Project', 'Client', 'Name', 'TimeEntries', 'Task', 'Billable', 'StartTime', 'null', 'true',
  '5', '-1', '12.5M', '9L', '1.5d', 'INF', 'NaN', '1e', "datetime'", "guid'", "X'", "time'", "datetimeoffset'",
  '2026-01-01T00:00', 'PT9H', 'substringof', 'startswith', 'concat', 'year', 'round', 'any', 'contains', '$it', 'in',
  ':', '.', '%', '\u00e9', '\ud800', '\u0000', '"', '*', '=',
];
const tokenSoup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((parts) => parts.join(''));

function typedFailureOnly(text: string): void {
  try {
    parseFilter(text, ctx);
  } catch (error) {
    if (!(error instanceof ExpressionError || error instanceof LiteralError || error instanceof LimitError)) throw error;
    expect(error.status).toBe(400);
  }
}

describe('$filter fuzzing', () => {
  it('100 000 random texts throw nothing but ExpressionError, LiteralError or LimitError', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), typedFailureOnly), { numRuns: 40_000 });
    fc.assert(fc.property(tokenSoup, typedFailureOnly), { numRuns: 60_000 });
  }, 60_000);
});
