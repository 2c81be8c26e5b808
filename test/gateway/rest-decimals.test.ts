// Decimals on the REST face carry every place of their Scale, as the service writes them, whatever
// form the upstream reader left them in; places beyond the Scale are kept, never rounded away.
import { describe, expect, it } from 'vitest';
import { decimalWithScale } from '../../gateway/rest/rest-values.js';

describe('decimalWithScale', () => {
  it.each([
    ['95', 2, '95.00'],
    ['192.5', 2, '192.50'],
    ['-0.5', 2, '-0.50'],
    ['0', 4, '0.0000'],
    ['118.75', 2, '118.75'],
    // An upstream that sends more places than its model declares loses none of them.
    ['1.23456', 2, '1.23456'],
    ['7', 0, '7'],
  ] as const)('%s with Scale %i is %s', (text, scale, written) => {
    expect(decimalWithScale(text, scale)).toBe(written);
  });
});
