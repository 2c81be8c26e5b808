// The REST face's date-time text (RFC 3339, UTC), as a client sees it, whatever the year or
// fraction: four-digit years take the fast table path of odata/datetime.ts, the others do not.
import { describe, expect, it } from 'vitest';
import { restDateTime } from '../../gateway/rest/rest-values.js';

describe('restDateTime', () => {
  it('writes UTC with a Z, and a fraction only when there is one', () => {
    expect(restDateTime(new Date(Date.UTC(2026, 10, 19, 7, 52, 0)))).toBe('2026-11-19T07:52:00Z');
    expect(restDateTime(new Date(Date.UTC(2026, 10, 19, 7, 52, 0, 5)))).toBe('2026-11-19T07:52:00.005Z');
    expect(restDateTime(new Date(Date.UTC(1999, 0, 1, 23, 59, 59, 990)))).toBe('1999-01-01T23:59:59.990Z');
  });

  it('writes years beyond four digits and before year 0 the way the OData side does', () => {
    const far = new Date(Date.UTC(2026, 0, 1));
    far.setUTCFullYear(12026);
    expect(restDateTime(far)).toBe('12026-01-01T00:00:00Z');
    const early = new Date(Date.UTC(2026, 0, 1));
    early.setUTCFullYear(-44);
    expect(restDateTime(early)).toBe('-0044-01-01T00:00:00Z');
    const small = new Date(Date.UTC(2026, 5, 30, 12));
    small.setUTCFullYear(476);
    expect(restDateTime(small)).toBe('0476-06-30T12:00:00Z');
  });
});
