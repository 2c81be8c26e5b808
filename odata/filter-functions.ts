// Signatures of the V2 `$filter` functions (MS-ODATA 2.2.3.6.1.1.3; Olingo's method table),
// and the check of one call against them.
import type { EdmPrimitiveType } from './model.js';
import type { FilterFunction, FilterNode } from './filter-ast.js';
import { ExpressionError } from './errors.js';

/** What an argument accepts. */
type Param = 'string' | 'int32' | 'date' | 'dateOrTime' | 'number';

interface Signature {
  readonly params: readonly Param[];
  /** Fewest arguments; the rest of `params` are optional. */
  readonly min: number;
  /** Further arguments of the last parameter's kind are allowed (concat). */
  readonly variadic?: boolean;
  readonly result: EdmPrimitiveType | 'sameNumber';
}

const fixed = (result: Signature['result'], ...params: Param[]): Signature => ({ params, min: params.length, result });

const SIGNATURES: Readonly<Record<FilterFunction, Signature>> = {
  substringof: fixed('Edm.Boolean', 'string', 'string'),
  startswith: fixed('Edm.Boolean', 'string', 'string'),
  endswith: fixed('Edm.Boolean', 'string', 'string'),
  length: fixed('Edm.Int32', 'string'),
  indexof: fixed('Edm.Int32', 'string', 'string'),
  replace: fixed('Edm.String', 'string', 'string', 'string'),
  substring: { params: ['string', 'int32', 'int32'], min: 2, result: 'Edm.String' },
  tolower: fixed('Edm.String', 'string'),
  toupper: fixed('Edm.String', 'string'),
  trim: fixed('Edm.String', 'string'),
  concat: { params: ['string', 'string'], min: 2, variadic: true, result: 'Edm.String' },
  year: fixed('Edm.Int32', 'date'),
  month: fixed('Edm.Int32', 'date'),
  day: fixed('Edm.Int32', 'date'),
  hour: fixed('Edm.Int32', 'dateOrTime'),
  minute: fixed('Edm.Int32', 'dateOrTime'),
  second: fixed('Edm.Int32', 'dateOrTime'),
  round: fixed('sameNumber', 'number'),
  floor: fixed('sameNumber', 'number'),
  ceiling: fixed('sameNumber', 'number'),
};

const ACCEPTS: Readonly<Record<Param, readonly string[]>> = {
  string: ['Edm.String'],
  int32: ['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32'],
  date: ['Edm.DateTime', 'Edm.DateTimeOffset'],
  dateOrTime: ['Edm.DateTime', 'Edm.DateTimeOffset', 'Edm.Time'],
  number: ['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.Single', 'Edm.Double', 'Edm.Decimal'],
};

const DESCRIBE: Readonly<Record<Param, string>> = {
  string: 'Edm.String',
  int32: 'Edm.Int32',
  date: 'Edm.DateTime',
  dateOrTime: 'Edm.DateTime or Edm.Time',
  number: 'a number',
};

/** round/floor/ceiling keep floating types in Double and everything else in Decimal. */
function roundingType(arg: FilterNode): EdmPrimitiveType {
  return arg.type === 'Edm.Double' || arg.type === 'Edm.Single' ? 'Edm.Double' : 'Edm.Decimal';
}

export function checkCall(name: FilterFunction, args: readonly FilterNode[], pos: number): FilterNode {
  const signature = SIGNATURES[name];
  const max = signature.variadic ? Infinity : signature.params.length;
  if (args.length < signature.min || args.length > max) {
    const count = signature.min === max ? `${max}` : max === Infinity ? `at least ${signature.min}` : `${signature.min} to ${max}`;
    throw new ExpressionError(`${name}() takes ${count} argument(s), not ${args.length}`, pos);
  }
  args.forEach((arg, i) => {
    const param = signature.params[Math.min(i, signature.params.length - 1)] as Param;
    if (arg.type === null || !ACCEPTS[param].includes(arg.type)) {
      throw new ExpressionError(
        `argument ${i + 1} of ${name}() must be ${DESCRIBE[param]}, not ${arg.type ?? 'null'}`,
        pos,
      );
    }
  });
  const type = signature.result === 'sameNumber' ? roundingType(args[0] as FilterNode) : signature.result;
  return { kind: 'call', name, args, type };
}
