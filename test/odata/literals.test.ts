import { describe, expect, it } from 'vitest';
import { formatLiteral, parseLiteral, parseLiteralAs } from '../../odata/literals.js';
import { dateTimeOffset, time } from '../../odata/edm.js';
import { LiteralError } from '../../odata/errors.js';
import type { EdmValue } from '../../odata/edm.js';
import type { EdmPrimitiveType } from '../../odata/model.js';

describe('V2 URI literals: text to typed value', () => {
  const cases: Array<[string, EdmPrimitiveType | null, EdmValue]> = [
    ['null', null, null],
    ['true', 'Edm.Boolean', true],
    ['false', 'Edm.Boolean', false],
    ['123', 'Edm.Int32', 123],
    ['-2147483648', 'Edm.Int32', -2147483648],
    ['123L', 'Edm.Int64', '123'],
    ['-9223372036854775808L', 'Edm.Int64', '-9223372036854775808'],
    ['007l', 'Edm.Int64', '7'],
    ['12.5M', 'Edm.Decimal', '12.5'],
    ['12.50m', 'Edm.Decimal', '12.5'],
    ['-0.000M', 'Edm.Decimal', '0'],
    ['1.5d', 'Edm.Double', 1.5],
    ['1.5', 'Edm.Double', 1.5],
    ['1E+10D', 'Edm.Double', 1e10],
    ['2e-3', 'Edm.Double', 0.002],
    ['1.5f', 'Edm.Single', 1.5],
    ['NaN', 'Edm.Double', NaN],
    ['-INF', 'Edm.Double', -Infinity],
    ['INFf', 'Edm.Single', Infinity],
    ["'it''s'", 'Edm.String', "it's"],
    ["''", 'Edm.String', ''],
    ["'Grüße, 日本'", 'Edm.String', 'Grüße, 日本'],
    ["guid'12345678-ABCD-ef01-2345-6789ABCDEF01'", 'Edm.Guid', '12345678-abcd-ef01-2345-6789abcdef01'],
    ["datetime'2026-11-22T09:00'", 'Edm.DateTime', new Date(Date.UTC(2026, 10, 22, 9, 0))],
    ["datetime'2026-11-22T09:00:05.123'", 'Edm.DateTime', new Date(Date.UTC(2026, 10, 22, 9, 0, 5, 123))],
    // With an offset, the instant it names (for the server to put on its wall clock).
    ["datetime'1969-07-20T20:17:40Z'", 'Edm.DateTime', dateTimeOffset(new Date(Date.UTC(1969, 6, 20, 20, 17, 40)), 0)],
    ["datetime'2026-11-22T09:00:00+01:00'", 'Edm.DateTime', dateTimeOffset(new Date(Date.UTC(2026, 10, 22, 8)), 60)],
    ["datetimeoffset'2026-11-22T09:00:00Z'", 'Edm.DateTimeOffset', dateTimeOffset(new Date(Date.UTC(2026, 10, 22, 9)), 0)],
    ["datetimeoffset'2026-11-22T10:30:00+01:30'", 'Edm.DateTimeOffset', dateTimeOffset(new Date(Date.UTC(2026, 10, 22, 9)), 90)],
    ["time'PT9H'", 'Edm.Time', time(9 * 3_600_000)],
    ["time'PT13H20M15.5S'", 'Edm.Time', time(48_015_500)],
    ["X'0aFF'", 'Edm.Binary', new Uint8Array([10, 255])],
    ["binary'00'", 'Edm.Binary', new Uint8Array([0])],
  ];
  it.each(cases)('%s', (text, type, value) => {
    expect(parseLiteral(text)).toEqual({ type, value });
  });

  it.each([
    ['2147483648', 'Edm.Int32 range'],
    ['9223372036854775808L', 'Edm.Int64 range'],
    ['1.5L', 'integer'],
    ['1e3M', 'no exponent'],
    ['1e999d', 'out of range'],
    ['1e39f', 'out of range'],
    ["'unclosed", 'not closed'],
    ["'a'b'", 'lone quote'],
    ["guid'1234'", 'Guid'],
    ["guid'12345678-abcd-ef01-2345-6789abcdef0g'", 'Guid'],
    ["datetime'2026-02-30T00:00'", 'yyyy-mm-dd'],
    ["datetime'2026-11-22'", 'yyyy-mm-dd'],
    ["datetime'2026-11-22'", 'yyyy-mm-dd'],
    ["datetimeoffset'2026-11-22T09:00:00'", 'Z|'],
    ["time'9:00'", 'duration'],
    ["X'ABC'", 'even'],
    ["X'GG'", 'hex'],
    ["duration'P1D'", 'OData V4 only'],
    ["date'2026-01-01'", 'unknown literal prefix'],
    ['True', 'not a literal'],
    ['12abc', 'not a number'],
  ])('refuses %s (%s)', (text, why) => {
    expect(() => parseLiteral(text)).toThrow(LiteralError);
    expect(() => parseLiteral(text)).toThrow(why);
  });

  it('never echoes more than a short prefix of a huge literal', () => {
    const huge = `'${'x'.repeat(100_000)}`;
    try {
      parseLiteral(huge);
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(200);
    }
  });
});

describe('V2 URI literals: typed value to canonical text', () => {
  const cases: Array<[EdmPrimitiveType, EdmValue, string]> = [
    ['Edm.Boolean', true, 'true'],
    ['Edm.Int32', -5, '-5'],
    ['Edm.Byte', 255, '255'],
    ['Edm.Int64', '9007199254740993', '9007199254740993L'],
    ['Edm.Decimal', '12.5', '12.5M'],
    ['Edm.Double', 2, '2d'],
    ['Edm.Double', 1e21, '1e+21d'],
    ['Edm.Double', -0, '-0d'],
    ['Edm.Double', NaN, 'NaN'],
    ['Edm.Double', -Infinity, '-INF'],
    ['Edm.Single', 0.5, '0.5f'],
    ['Edm.String', "it's", "'it''s'"],
    ['Edm.Guid', '12345678-abcd-ef01-2345-6789abcdef01', "guid'12345678-abcd-ef01-2345-6789abcdef01'"],
    ['Edm.DateTime', new Date(Date.UTC(2026, 10, 22, 9)), "datetime'2026-11-22T09:00:00'"],
    ['Edm.DateTime', new Date('0001-01-01T00:00:00Z'), "datetime'0001-01-01T00:00:00'"],
    ['Edm.DateTime', new Date(0), "datetime'1970-01-01T00:00:00'"],
    ['Edm.DateTime', new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)), "datetime'9999-12-31T23:59:59.999'"],
    ['Edm.DateTimeOffset', dateTimeOffset(new Date(Date.UTC(2026, 10, 22, 9)), -300), "datetimeoffset'2026-11-22T04:00:00-05:00'"],
    ['Edm.Time', time(9 * 3_600_000 + 30 * 60_000), "time'PT9H30M'"],
    ['Edm.Binary', new Uint8Array([1, 171]), "X'01AB'"],
    ['Edm.String', null, 'null'],
  ];
  it.each(cases)('%s %s', (type, value, text) => {
    expect(formatLiteral(value, type)).toBe(text);
    expect(parseLiteralAs(text, type)).toEqual(value);
  });

  it('refuses to write a value of the wrong JavaScript type', () => {
    expect(() => formatLiteral('5', 'Edm.Int32')).toThrow(TypeError);
    expect(() => formatLiteral(5, 'Edm.DateTime')).toThrow(TypeError);
  });
});

describe('literals read as a known type (keys, function-import parameters)', () => {
  it('widens integers and Int64 the way Olingo does', () => {
    expect(parseLiteralAs('5', 'Edm.Int64')).toBe('5');
    expect(parseLiteralAs('5', 'Edm.Decimal')).toBe('5');
    expect(parseLiteralAs('5', 'Edm.Double')).toBe(5);
    expect(parseLiteralAs('200', 'Edm.Byte')).toBe(200);
    expect(parseLiteralAs('5L', 'Edm.Decimal')).toBe('5');
    expect(parseLiteralAs('1', 'Edm.Boolean')).toBe(true);
    expect(parseLiteralAs('null', 'Edm.Int32')).toBeNull();
  });

  it.each([
    ['256', 'Edm.Byte'],
    ['-129', 'Edm.SByte'],
    ['40000', 'Edm.Int16'],
    ["'7'", 'Edm.Int32'],
    ['7', 'Edm.String'],
    ['1.5d', 'Edm.Decimal'],
    ['2', 'Edm.Boolean'],
    ["'12345678-abcd-ef01-2345-6789abcdef01'", 'Edm.Guid'],
    ["datetime'2026-01-01T00:00'", 'Edm.DateTimeOffset'],
  ] as Array<[string, EdmPrimitiveType]>)('refuses %s as %s', (text, type) => {
    expect(() => parseLiteralAs(text, type)).toThrow(LiteralError);
  });
});
