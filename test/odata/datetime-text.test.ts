// Edm.DateTime as text (Atom, XML, the REST face): the calendar arithmetic of the years 1000 to
// 9999 writes what the Date object's UTC fields say, and the years around it keep their forms.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDateTime } from '../../odata/datetime.js';

/** What Date's own ISO text says, without the zone and without a zero fraction. */
function expected(date: Date): string {
  const iso = date.toISOString();
  return date.getUTCMilliseconds() === 0 ? iso.slice(0, 19) : iso.slice(0, 23);
}

describe('formatDateTime', () => {
  it.each([
    [Date.UTC(2026, 10, 22, 9, 0, 0), '2026-11-22T09:00:00'],
    [Date.UTC(2024, 1, 29, 23, 59, 59, 7), '2024-02-29T23:59:59.007'],
    [Date.UTC(2000, 1, 29, 12, 0, 0, 120), '2000-02-29T12:00:00.120'],
    [Date.UTC(1900, 2, 1), '1900-03-01T00:00:00'],
    [Date.UTC(1000, 0, 1), '1000-01-01T00:00:00'],
    [Date.UTC(9999, 11, 31, 23, 59, 59, 999), '9999-12-31T23:59:59.999'],
    [Date.UTC(1969, 11, 31, 23, 59, 59, 999), '1969-12-31T23:59:59.999'],
    [Date.UTC(999, 11, 31, 23, 59, 59), '0999-12-31T23:59:59'],
    [Date.UTC(10000, 0, 1), '10000-01-01T00:00:00'],
  ])('%d is %s', (ms, text) => {
    expect(formatDateTime(new Date(ms))).toBe(text);
  });

  it('writes every instant of the years 1000 to 9999 as the Date object reads it', () => {
    fc.assert(fc.property(fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(10000, 0, 1) - 1 }), (ms) => {
      const date = new Date(ms);
      expect(formatDateTime(date)).toBe(expected(date));
    }), { seed: 20261126, numRuns: 20_000 });
  });
});
