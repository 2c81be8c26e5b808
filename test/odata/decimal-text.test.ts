// Decimal text made canonical (no sign for zero, no leading or trailing zeros, no exponent), the
// form every reader gives a Decimal in: the one-scan reading of plain text and the general one
// must agree with a plain statement of the rule, for any text, well-formed or not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalDecimal } from '../../odata/json-values.js';

/** The rule for `-?digits(.digits)?`, written out with regular expressions. */
function expected(text: string): string {
  const [, sign, whole, fraction] = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text) as RegExpExecArray;
  const int = (whole as string).replace(/^0+(?=\d)/, '');
  const frac = (fraction ?? '').replace(/0+$/, '');
  const body = frac === '' ? int : `${int}.${frac}`;
  return body === '0' ? '0' : `${sign}${body}`;
}

const digits = fc.string({ unit: fc.constantFrom('0', '0', '0', '1', '5', '9'), minLength: 1, maxLength: 12 });

describe('canonicalDecimal', () => {
  it.each([
    ['110.00', '110'],
    ['192.50', '192.5'],
    ['-0.50', '-0.5'],
    ['-0.00', '0'],
    ['-0', '0'],
    ['0.0', '0'],
    ['100', '100'],
    ['007.10', '7.1'],
    ['1e3', '1000'],
    ['.5', '0.5'],
    ['5.', '5'],
    ['+2.50', '2.5'],
  ])('%s is %s', (text, canonical) => {
    expect(canonicalDecimal(text)).toBe(canonical);
  });

  it.each(['', '-', '.', '1.2.3', '1,5', ' 1', '1 ', '--1', '0x10', 'NaN', '1.5M'])('refuses %j', (text) => {
    expect(canonicalDecimal(text)).toBeUndefined();
  });

  it('reads any plain decimal text by the rule', () => {
    fc.assert(fc.property(fc.boolean(), digits, fc.option(digits), (negative, whole, fraction) => {
      const text = `${negative ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}`;
      expect(canonicalDecimal(text)).toBe(expected(text));
    }), { seed: 20261126, numRuns: 5000 });
  });

  it('keeps the limit of 80 digits on either side of the point', () => {
    expect(canonicalDecimal(`${'9'.repeat(80)}.5`)).toBe(`${'9'.repeat(80)}.5`);
    expect(canonicalDecimal(`${'9'.repeat(81)}.50`)).toBeUndefined();
    // Places are counted as written, trailing zeros included.
    expect(canonicalDecimal(`0.${'1'.repeat(79)}0`)).toBe(`0.${'1'.repeat(79)}`);
    expect(canonicalDecimal(`0.${'1'.repeat(80)}0`)).toBeUndefined();
  });
});
