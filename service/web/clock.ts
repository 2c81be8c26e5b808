// The wall clock of the pages: instants (what the data layer holds) shown and read as dates and
// times of the account's time zone. Every conversion the web interface makes goes through here,
// so the rule of data-model.md (DateTimes are the account's wall-clock time) has one place in it,
// on the conversion the OData faces use (odata/wall-clock.ts).
import { wallClockZone } from '../../odata/wall-clock.js';

export interface WallClock {
  /** `YYYY-MM-DD` */
  readonly date: string;
  /** `HH:MM` */
  readonly time: string;
}

/** The instant as the account's clock shows it. */
export function wallClock(instant: number, timeZone: string): WallClock {
  const iso = new Date(wallClockZone(timeZone).toWallClock(instant)).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{1,2}):(\d{2})$/;

/** Whether the text is a real calendar date `YYYY-MM-DD`. */
export function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const probe = new Date(Date.UTC(y, m - 1, d));
  return y >= 1900 && y <= 9999 && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
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
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return wallClockZone(timeZone).toInstant(Date.UTC(y, m - 1, d) + minutes * 60_000);
}

/** `date` plus `days` calendar days. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** The Monday of the week of `date` (ISO weeks). */
export function mondayOf(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const weekday = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
  return addDays(date, -weekday);
}
