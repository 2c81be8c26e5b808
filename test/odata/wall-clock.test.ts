// Wall-clock time of an IANA zone both ways, and the one rule for times skipped or repeated
// when the clocks change (odata/wall-clock.ts).
import { describe, expect, it } from 'vitest';
import { hostTimeZone, isTimeZone, wallClockZone } from '../../odata/wall-clock.js';

const utc = (text: string) => Date.parse(`${text}Z`);
const wall = (text: string) => Date.parse(`${text}Z`);
const text = (ms: number) => new Date(ms).toISOString().slice(0, 19);

describe('wall-clock time of a zone', () => {
  const berlin = wallClockZone('Europe/Berlin');
  const newYork = wallClockZone('America/New_York');

  it('the runtime knows the zones accounts use', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone(hostTimeZone())).toBe(true);
    expect(() => wallClockZone('Europe/Nowhere')).toThrow(RangeError);
  });

  it('an instant reads as Berlin shows it, in winter and in summer', () => {
    expect(text(berlin.toWallClock(utc('2026-11-20T21:32:51')))).toBe('2026-11-20T22:32:51');
    expect(text(berlin.toWallClock(utc('2026-07-20T21:32:51')))).toBe('2026-07-20T23:32:51');
    expect(text(newYork.toWallClock(utc('2026-11-20T21:32:51')))).toBe('2026-11-20T16:32:51');
    expect(berlin.toWallClock(utc('2026-11-20T21:32:51') + 123) % 1000).toBe(123);
  });

  it('ordinary wall-clock times go back to the instant they came from', () => {
    for (let t = utc('2026-01-01T00:00:00'); t < utc('2027-01-01T00:00:00'); t += 3_599_000) {
      for (const zone of [berlin, newYork, wallClockZone('Asia/Kathmandu'), wallClockZone('Australia/Lord_Howe')]) {
        const back = zone.toInstant(zone.toWallClock(t));
        // Only the first of a repeated hour comes back for the second one.
        if (back !== t) expect(zone.toWallClock(back)).toBe(zone.toWallClock(t));
        if (back !== t) expect(back).toBeLessThan(t);
      }
    }
  });

  it('a skipped time moves forward by the gap: 02:30 on 2026-03-29 in Berlin is 03:30 CEST', () => {
    expect(text(berlin.toInstant(wall('2026-03-29T02:30:00')))).toBe('2026-03-29T01:30:00');
    expect(text(berlin.toWallClock(berlin.toInstant(wall('2026-03-29T02:30:00'))))).toBe('2026-03-29T03:30:00');
    expect(text(newYork.toInstant(wall('2026-03-08T02:15:00')))).toBe('2026-03-08T07:15:00');
  });

  it('a repeated time is the earlier instant: 02:30 on 2026-10-25 in Berlin is 02:30 CEST', () => {
    expect(text(berlin.toInstant(wall('2026-10-25T02:30:00')))).toBe('2026-10-25T00:30:00');
    expect(text(berlin.toWallClock(utc('2026-10-25T01:30:00')))).toBe('2026-10-25T02:30:00');
    expect(text(newYork.toInstant(wall('2026-11-01T01:30:00')))).toBe('2026-11-01T05:30:00');
  });

  it('01:30 to 03:30 across the night the clocks go forward is one hour', () => {
    const start = berlin.toInstant(wall('2026-03-29T01:30:00'));
    const end = berlin.toInstant(wall('2026-03-29T03:30:00'));
    expect(end - start).toBe(3_600_000);
  });

  it('the change is found to the second, and local mean time keeps its seconds', () => {
    expect(berlin.offsetAt(utc('2026-03-29T00:59:59'))).toBe(3_600_000);
    expect(berlin.offsetAt(utc('2026-03-29T01:00:00'))).toBe(7_200_000);
    expect(berlin.offsetAt(utc('1870-06-01T12:00:00'))).toBe((53 * 60 + 28) * 1000);
    expect(wallClockZone('UTC').toWallClock(utc('2026-03-29T01:00:00'))).toBe(utc('2026-03-29T01:00:00'));
  });
});
