// Wall-clock time of an IANA time zone, both ways, from the runtime's own tz database (Intl).
//
// Edm.DateTime carries no zone: a V2 service means the digits as a clock on the wall shows them.
// A wall-clock time is held as the milliseconds of those digits read as UTC (the number that
// `\/Date(ms)\/` carries and `Date.UTC(y, m, d, h, mi, s)` gives); an instant is a real UTC
// epoch millisecond. Converting an instant to the wall clock is exact. The other way is exact
// too, except around a change of offset, where one rule applies (RFC 5545 §3.3.5, java.time's
// ZonedDateTime.ofLocal and Temporal's "compatible"):
// - a wall-clock time that does not exist (the hour skipped when clocks go forward) is read with
//   the offset in force before the change, which moves it forward by the length of the gap:
//   02:30 on the night Berlin goes to summer time is 03:30 CEST (01:30Z);
// - a wall-clock time that exists twice (the hour repeated when clocks go back) is the earlier
//   of the two instants: 02:30 on the night Berlin goes back is 02:30 CEST (00:30Z).
// Pure: no I/O, no clock; the offsets of a zone are cached by UTC day.

const DAY_MS = 86_400_000;
/** Days cached per zone before the cache starts over (a span of years of dates is a few thousand). */
const MAX_CACHED_DAYS = 50_000;
/** The range of `Date` (±8.64e15 ms), less a day for the look-around of `toInstant`. */
const LIMIT_MS = 8.64e15 - 2 * DAY_MS;

/**
 * A request header (value `1`) with which a client that reads offsets (the gateway's REST face)
 * asks for every Edm.DateTime as its instant and the zone's offset at it (`\/Date(ms+0060)\/`,
 * `2026-11-20T22:32:51+01:00`) instead of bare wall-clock digits: exact in a repeated hour too.
 */
export const DATE_TIME_OFFSETS_HEADER = 'x-datetime-offsets';

export interface WallClockZone {
  /** The IANA name, as given. */
  readonly name: string;
  /** The zone's offset from UTC at an instant, in milliseconds (+3,600,000 for CET). */
  offsetAt(instantMs: number): number;
  /** The wall-clock time (its digits as UTC milliseconds) of an instant. */
  toWallClock(instantMs: number): number;
  /** The instant of a wall-clock time, by the rule above for skipped and repeated times. */
  toInstant(wallClockMs: number): number;
}

/** Offsets of one UTC day: `before` up to `changeMs`, `after` from it (one change a day at most). */
interface DayOffsets {
  readonly before: number;
  readonly changeMs: number;
  readonly after: number;
}

const FIELDS = {
  hourCycle: 'h23', era: 'short', year: 'numeric', month: 'numeric', day: 'numeric',
  hour: 'numeric', minute: 'numeric', second: 'numeric',
} as const;

/** Whether the runtime knows `name` as a time zone (`Europe/Berlin`, `UTC`). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return name.length > 0;
  } catch {
    return false;
  }
}

/** The zone of the host this process runs on (`TZ`, else the system's), `UTC` when none is set. */
export function hostTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
}

class IntlZone implements WallClockZone {
  private readonly format: Intl.DateTimeFormat;
  private readonly days = new Map<number, DayOffsets>();

  constructor(readonly name: string) {
    this.format = new Intl.DateTimeFormat('en-US', { timeZone: name, ...FIELDS });
  }

  offsetAt(instantMs: number): number {
    if (!(instantMs > -LIMIT_MS && instantMs < LIMIT_MS)) return 0;
    const day = Math.floor(instantMs / DAY_MS);
    let offsets = this.days.get(day);
    if (offsets === undefined) {
      if (this.days.size >= MAX_CACHED_DAYS) this.days.clear();
      offsets = this.dayOffsets(day);
      this.days.set(day, offsets);
    }
    return instantMs < offsets.changeMs ? offsets.before : offsets.after;
  }

  toWallClock(instantMs: number): number {
    return instantMs + this.offsetAt(instantMs);
  }

  toInstant(wallClockMs: number): number {
    // Offsets are under a day, so the offsets a day either side are those before and after any
    // change that could make this wall-clock time skipped or repeated.
    const before = this.offsetAt(wallClockMs - DAY_MS);
    const after = this.offsetAt(wallClockMs + DAY_MS);
    const early = wallClockMs - before;
    const late = wallClockMs - after;
    const earlyHolds = this.offsetAt(early) === before;
    const lateHolds = this.offsetAt(late) === after;
    if (earlyHolds && lateHolds) return Math.min(early, late);
    if (earlyHolds) return early;
    if (lateHolds) return late;
    // Skipped: read with the offset before the change, i.e. moved forward by the gap.
    return early;
  }

  /** The offset at an instant, from Intl (whole seconds: local mean times have them). */
  private intlOffset(instantMs: number): number {
    const second = Math.floor(instantMs / 1000) * 1000;
    let year = 0, month = 1, day = 1, hour = 0, minute = 0, sec = 0, bc = false;
    for (const part of this.format.formatToParts(second)) {
      switch (part.type) {
        case 'era': bc = part.value.startsWith('B'); break;
        case 'year': year = Number(part.value); break;
        case 'month': month = Number(part.value); break;
        case 'day': day = Number(part.value); break;
        case 'hour': hour = Number(part.value); break;
        case 'minute': minute = Number(part.value); break;
        case 'second': sec = Number(part.value); break;
      }
    }
    const wall = new Date(0);
    wall.setUTCFullYear(bc ? 1 - year : year, month - 1, day);
    wall.setUTCHours(hour, minute, sec, 0);
    return wall.getTime() - second;
  }

  private dayOffsets(day: number): DayOffsets {
    const start = day * DAY_MS;
    const before = this.intlOffset(start);
    const after = this.intlOffset(start + DAY_MS - 1000);
    if (before === after) return { before, changeMs: Infinity, after };
    // The change is on a whole second: the first second of the day with the new offset.
    let low = 0; // seconds into the day known to have `before`
    let high = 86_399; // ... known to have `after`
    while (high - low > 1) {
      const middle = (low + high) >>> 1;
      if (this.intlOffset(start + middle * 1000) === before) low = middle;
      else high = middle;
    }
    return { before, changeMs: start + high * 1000, after };
  }
}

const zones = new Map<string, WallClockZone>();

/** The zone of an IANA name; a RangeError when the runtime does not know it. */
export function wallClockZone(name: string): WallClockZone {
  let zone = zones.get(name);
  if (zone === undefined) {
    if (!isTimeZone(name)) throw new RangeError(`unknown IANA time zone: ${name}`);
    zone = new IntlZone(name);
    // Zone names come from account settings: a handful per process.
    if (zones.size >= 1000) zones.clear();
    zones.set(name, zone);
  }
  return zone;
}
