// The wall clock of the pages: instants (what the data layer holds) shown and read as dates and
// times of the account's time zone. Every conversion the web interface makes goes through here,
// so the rule of data-model.md (DateTimes are the account's wall-clock time) has one place in it,
// on the conversion the OData faces use (odata/wall-clock.ts).
import { isInEdmCalendar } from '../../odata/datetime.js';
import { wallClockZone } from '../../odata/wall-clock.js';

const DAY_MS = 86_400_000;

export interface WallClock {
  /** `YYYY-MM-DD` */
  readonly date: string;
  /** `HH:MM` */
  readonly time: string;
}

/** `YYYY-MM-DD` of wall-clock milliseconds; beyond year 9999 the ISO form (`+010000-01-01`), which is no date of isDate. */
function dateText(wallClockMs: number): string {
  const iso = new Date(wallClockMs).toISOString();
  return iso.slice(0, iso.indexOf('T'));
}

/** The instant as the account's clock shows it. */
export function wallClock(instant: number, timeZone: string): WallClock {
  const iso = new Date(wallClockZone(timeZone).toWallClock(instant)).toISOString();
  const at = iso.indexOf('T');
  return { date: iso.slice(0, at), time: iso.slice(at + 1, at + 6) };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{1,2}):(\d{2})$/;

/**
 * Midnight of a date (`YYYY-MM-DD`, or what addDays gives past year 9999) as wall-clock
 * milliseconds. Not Date.UTC: it reads the years 0 to 99 as 1900 to 1999.
 */
function midnightOf(date: string): number {
  const [y, m, d] = date.replace(/^\+/, '').split('-').map(Number) as [number, number, number];
  const day = new Date(0);
  day.setUTCFullYear(y, m - 1, d);
  return day.getTime();
}

/** Whether the text is a real calendar date `YYYY-MM-DD` of Edm.DateTime's calendar (0001-01-01 to 9999-12-31). */
export function isDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const midnight = midnightOf(text);
  return isInEdmCalendar(midnight) && dateText(midnight) === text;
}

/** `HH:MM` as minutes since midnight; undefined when it is no time of day. */
export function minutesOf(text: string): number | undefined {
  const match = TIME.exec(text.trim());
  if (match === null) return undefined;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  return hours < 24 && minutes < 60 ? hours * 60 + minutes : undefined;
}

/**
 * The instant the account's clock shows `minutes` past midnight of `date` (a skipped time is read
 * with the offset before the change, a repeated one is the earlier: odata/wall-clock.ts's rule).
 */
export function instantOf(date: string, minutes: number, timeZone: string): number {
  return wallClockZone(timeZone).toInstant(midnightOf(date) + minutes * 60_000);
}

/** `date` plus `days` calendar days; past either end of the calendar no date of isDate. */
export function addDays(date: string, days: number): string {
  return dateText(midnightOf(date) + days * DAY_MS);
}

/** The Monday of the week of `date` (ISO weeks). */
export function mondayOf(date: string): string {
  const weekday = (new Date(midnightOf(date)).getUTCDay() + 6) % 7;
  return addDays(date, -weekday);
}
