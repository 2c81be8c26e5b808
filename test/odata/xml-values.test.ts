import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dateTimeOffset, time } from '../../odata/edm.js';
import { PayloadError, SerializationError } from '../../odata/errors.js';
import { escapeXmlAttribute, escapeXmlText } from '../../odata/xml-escape.js';
import {
  formatXmlDateTime,
  formatXmlDateTimeOffset,
  formatXmlFloat,
  formatXmlTime,
  xmlParser,
} from '../../odata/xml-values.js';

describe('XML text of Edm values, as Olingo writes it', () => {
  it('DateTime: fraction trimmed, or padded to the Precision facet', () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 10, 22, 9, 0, 0, ms));
    expect(formatXmlDateTime(at(0))).toBe('2026-11-22T09:00:00');
    expect(formatXmlDateTime(at(120))).toBe('2026-11-22T09:00:00.12');
    expect(formatXmlDateTime(at(0), 3)).toBe('2026-11-22T09:00:00.000');
    expect(formatXmlDateTime(at(5), 3)).toBe('2026-11-22T09:00:00.005');
    expect(formatXmlDateTime(new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 999)))).toBe('1969-12-31T23:59:59.999');
  });

  it('DateTimeOffset in the offset it carries', () => {
    expect(formatXmlDateTimeOffset(dateTimeOffset(new Date(0), 0))).toBe('1970-01-01T00:00:00Z');
    expect(formatXmlDateTimeOffset(dateTimeOffset(new Date(0), -90))).toBe('1969-12-31T22:30:00-01:30');
  });

  it('Time with hours, minutes and seconds always written', () => {
    expect(formatXmlTime(time(0))).toBe('PT0H0M0S');
    expect(formatXmlTime(time(9 * 3_600_000 + 30 * 60_000 + 500))).toBe('PT9H30M0.5S');
    expect(formatXmlTime(time(-60_000))).toBe('-PT0H1M0S');
  });

  it('Double and Single as Java prints them', () => {
    expect([1, 1.5, 1e7, 1234567, 0.001, 1e-4, 1e21, -2.5e-10, -0].map((v) => formatXmlFloat(v))).toEqual([
      '1.0', '1.5', '1.0E7', '1234567.0', '0.001', '1.0E-4', '1.0E21', '-2.5E-10', '-0.0',
    ]);
    expect([NaN, Infinity, -Infinity].map((v) => formatXmlFloat(v))).toEqual(['NaN', 'INF', '-INF']);
    expect([0.15, 0.1 + 0.2, 3.4028234663852886e38].map((v) => formatXmlFloat(v, true))).toEqual(['0.15', '0.3', '3.4028235E38']);
  });
});

describe('XML text to Edm values', () => {
  it('accepts what other servers write', () => {
    expect(xmlParser('Edm.Boolean', 'x')('1')).toBe(true);
    expect(xmlParser('Edm.Double', 'x')('1.0E21')).toBe(1e21);
    expect(xmlParser('Edm.Double', 'x')('-INF')).toBe(-Infinity);
    expect(xmlParser('Edm.Decimal', 'x')('+012.500')).toBe('12.5');
    expect(xmlParser('Edm.Int64', 'x')('+007')).toBe('7');
    expect(xmlParser('Edm.Guid', 'x')('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(xmlParser('Edm.DateTime', 'x')('2026-11-22T10:00:00+01:00')).toEqual(dateTimeOffset(new Date(Date.UTC(2026, 10, 22, 9)), 60));
    expect(xmlParser('Edm.DateTime', 'x')('2026-11-22T10:00:00')).toEqual(new Date(Date.UTC(2026, 10, 22, 10)));
    expect(xmlParser('Edm.DateTimeOffset', 'x')('2026-11-22T10:00:00')).toEqual(dateTimeOffset(new Date(Date.UTC(2026, 10, 22, 10)), 0));
    expect(xmlParser('Edm.Time', 'x')('PT9H30M')).toEqual(time(34_200_000));
    expect(xmlParser('Edm.Binary', 'x')('AAEC\n/w==')).toEqual(new Uint8Array([0, 1, 2, 255]));
  });

  it('reads the common date-time forms exactly, leap days included, and early years by the general rules', () => {
    const read = xmlParser('Edm.DateTime', 'x');
    expect(read('2026-11-22T09:05:07')).toEqual(new Date(Date.UTC(2026, 10, 22, 9, 5, 7)));
    expect(read('2026-11-22T09:05:07.045')).toEqual(new Date(Date.UTC(2026, 10, 22, 9, 5, 7, 45)));
    expect(read('2024-02-29T23:59:59.999')).toEqual(new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 999)));
    expect(read('2000-02-29T00:00:00')).toEqual(new Date(Date.UTC(2000, 1, 29)));
    expect((read('0099-12-31T00:00:00') as Date).getUTCFullYear()).toBe(99);
    for (const bad of ['2026-02-29T00:00:00', '1900-02-29T00:00:00', '2026-04-31T00:00:00', '2026-11-22T24:00:00',
      '2026-11-22T09:60:00', '2026-11-22T09:00:60', '2026-11-22T09:00:00.0x5', '2026-1a-22T09:00:00', '2026-11-22 09:00:00']) {
      expect(() => read(bad), bad).toThrow(PayloadError);
    }
  });

  it('reads every integer text as the expression and Number() did, and refuses the rest', () => {
    const text = fc.string({ unit: fc.constantFrom('0', '1', '7', '9', '-', '+', ' ', 'x', '.', 'e'), maxLength: 14 });
    const edge = fc.constantFrom('', '-', '+', '-0', '+0', '007', '2147483647', '-2147483648', '2147483648', '-2147483649', '+2147483647', '32767', '-32768', '255', '-1');
    const reference = (type: 'Edm.Byte' | 'Edm.SByte' | 'Edm.Int16' | 'Edm.Int32', t: string): number | 'refused' => {
      const [min, max] = ({ 'Edm.Byte': [0, 255], 'Edm.SByte': [-128, 127], 'Edm.Int16': [-32768, 32767], 'Edm.Int32': [-2147483648, 2147483647] } as const)[type];
      const n = /^[+-]?\d{1,20}$/.test(t.trim()) ? Number(t) : NaN; // xmlParser trims what is not a string
      return n >= min && n <= max ? n : 'refused';
    };
    fc.assert(
      fc.property(fc.constantFrom('Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32' as const), fc.oneof(text, edge), (type, t) => {
        let read: number | 'refused';
        try {
          read = xmlParser(type, 'x')(t) as number;
        } catch (error) {
          expect(error).toBeInstanceOf(PayloadError);
          read = 'refused';
        }
        expect(read, JSON.stringify(t)).toStrictEqual(reference(type, t));
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses values out of range or malformed, naming the property', () => {
    const bad: [Parameters<typeof xmlParser>[0], string][] = [
      ['Edm.Byte', '256'], ['Edm.SByte', '-129'], ['Edm.Int16', '32768'], ['Edm.Int64', '9223372036854775808'],
      ['Edm.Decimal', '1.2.3'], ['Edm.Double', '1,5'], ['Edm.Guid', 'not-a-guid'], ['Edm.Boolean', 'TRUE'],
      ['Edm.DateTime', '2026-13-01T00:00:00'], ['Edm.Time', 'P'], ['Edm.Binary', 'A'],
    ];
    for (const [type, text] of bad) {
      expect(() => xmlParser(type, 'Prop')(text), `${type} ${text}`).toThrow(PayloadError);
      expect(() => xmlParser(type, 'Prop')(text)).toThrow(/property Prop/);
    }
  });
});

describe('XML escaping', () => {
  it('escapes markup in text and attributes, keeping carriage returns and attribute white space', () => {
    expect(escapeXmlText('a<b>&]]>\r\n"\'')).toBe('a&lt;b&gt;&amp;]]&gt;&#xD;\n"\'');
    expect(escapeXmlAttribute('a"b\t\n\r<')).toBe('a&quot;b&#x9;&#xA;&#xD;&lt;');
    expect(escapeXmlText('Grüße 😀')).toBe('Grüße 😀');
  });

  it('refuses characters no XML 1.0 document can carry', () => {
    expect(() => escapeXmlText('\u0000')).toThrow(SerializationError);
    expect(() => escapeXmlText('\uffff')).toThrow(/U\+FFFF/);
    expect(() => escapeXmlAttribute('\udc00', 'etag')).toThrow(/etag/);
  });
});
