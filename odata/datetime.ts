// Text forms of Edm.DateTime, Edm.DateTimeOffset and Edm.Time shared by every codec:
// Atom writes and reads ISO 8601; verbose JSON writes `\/Date(ms)\/` and also reads ISO 8601.
import type { DateTimeOffsetValue, TimeValue } from './edm.js';
import { dateTimeOffset, time } from './edm.js';

const ISO =
  /^(-?\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * The calendar of Edm.DateTime: 0001-01-01T00:00:00 to 9999-12-31T23:59:59.999, the years its
 * four-digit text can write, as the milliseconds of those digits read as UTC (`\/Date(ms)\/`).
 */
export const EDM_DATETIME_FIRST_MS = -62_135_596_800_000;
export const EDM_DATETIME_LAST_MS = 253_402_300_799_999;

/** Whether the digits of `ms` (a wall-clock time, see wall-clock.ts) are in Edm.DateTime's calendar. */
export function isInEdmCalendar(ms: number): boolean {
  return ms >= EDM_DATETIME_FIRST_MS && ms <= EDM_DATETIME_LAST_MS;
}

export interface ParsedIso {
  readonly date: Date;
  /** Offset written in the text, in minutes; undefined when the text had none. */
  readonly offsetMinutes: number | undefined;
}

/** The number of the digits from..to-1 of `text`, or -1 when one is not a digit. */
function digitsAt(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * `yyyy-mm-ddThh:mm:ss` and `yyyy-mm-ddThh:mm:ss.fff`, what every V2 server writes in Atom,
 * read without the general expression: three of them are on every time entry of a feed.
 */
function commonDateTime(text: string): Date | undefined {
  const length = text.length;
  if (length !== 19 && !(length === 23 && text.charCodeAt(19) === 46 /* . */)) return undefined;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84 ||
    text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 7);
  const day = digitsAt(text, 8, 10);
  const hour = digitsAt(text, 11, 13);
  const minute = digitsAt(text, 14, 16);
  const second = digitsAt(text, 17, 19);
  const ms = length === 23 ? digitsAt(text, 20, 23) : 0;
  // Years below 1000 go the general way (Date.UTC reads 0 to 99 as 1900 to 1999).
  if (year < 1000 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 ||
    second < 0 || second > 59 || ms < 0) return undefined;
  const leap = month === 2 && (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0));
  if (day > (DAYS_IN_MONTH[month - 1] as number) + (leap ? 1 : 0)) return undefined;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
}

/** ISO 8601 date-time with or without seconds, fraction (up to 7 digits) and offset. */
export function parseIsoDateTime(text: string): ParsedIso | undefined {
  const common = commonDateTime(text);
  if (common !== undefined) return { date: common, offsetMinutes: undefined };
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '0', frac = '', zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    return undefined;
  }
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000 + 1e-9) : 0;
  let offsetMinutes: number | undefined;
  if (zone === 'Z') offsetMinutes = 0;
  else if (zone) {
    const sign = zone[0] === '-' ? -1 : 1;
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = sign * (oh * 60 + om);
  }
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, ms);
  // Reject dates that rolled over (2026-02-30 becomes March 2nd in Date arithmetic).
  if (utc.getUTCDate() !== day || utc.getUTCMonth() !== month - 1) return undefined;
  const date = new Date(utc.getTime() - (offsetMinutes ?? 0) * 60_000);
  if (Number.isNaN(date.getTime())) return undefined;
  return { date, offsetMinutes };
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function formatYear(year: number): string {
  return year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
}

/** `00`..`99`: date-times are written on every entry of every page, and padStart was a third of that. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => (n < 10 ? `0${n}` : String(n)));

const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/**
 * An integral number of milliseconds as decimal text, as `String(ms)` writes it. A time of this
 * century is above 2^31, so V8 holds it as a double and writes it by its general algorithm (about
 * 100 ns here); split into small integers, which V8 converts from a cache, it takes half that.
 */
export function millisecondsText(ms: number): string {
  if (!(ms >= 1e6 && ms < 1e15)) return String(ms);
  const high = Math.floor(ms / 1e6);
  const low = ms - high * 1e6;
  const thousands = Math.floor(low / 1000);
  return String(high) + THREE_DIGITS[thousands] + THREE_DIGITS[low - thousands * 1000];
}

function clock(date: Date): string {
  const ms = date.getUTCMilliseconds();
  const base = `${TWO_DIGITS[date.getUTCHours()]}:${TWO_DIGITS[date.getUTCMinutes()]}:${TWO_DIGITS[date.getUTCSeconds()]}`;
  return ms === 0 ? base : `${base}.${THREE_DIGITS[ms]}`;
}

/** 1000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the years written with four digits as they are. */
const FOUR_DIGIT_YEARS_FROM = -30_610_224_000_000;
const FOUR_DIGIT_YEARS_TO = 253_402_300_800_000;
const MS_PER_DAY = 86_400_000;

/**
 * The text of an instant of the years 1000 to 9999 from its milliseconds, the calendar date by
 * days-to-civil arithmetic (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"): the
 * Date object's seven UTC getters cost about 1.5 times this, and every date of every page in
 * Atom and on the REST face is written so.
 */
function epochText(t: number): string {
  const days = Math.floor(t / MS_PER_DAY);
  let rest = t - days * MS_PER_DAY;
  // Days counted from 0000-03-01, in eras of 400 years, so that the leap day ends each year.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const ms = rest - seconds * 1000;
  const text = `${year}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}`;
  return ms === 0 ? text : `${text}.${THREE_DIGITS[ms]}`;
}

/** Edm.DateTime as Atom/XML text: UTC, no offset, fraction only when non-zero. */
export function formatDateTime(date: Date): string {
  const t = date.getTime();
  if (t >= FOUR_DIGIT_YEARS_FROM && t < FOUR_DIGIT_YEARS_TO) return epochText(t);
  const year = date.getUTCFullYear();
  return `${year >= 1000 && year <= 9999 ? year : formatYear(year)}-${TWO_DIGITS[date.getUTCMonth() + 1]}-${TWO_DIGITS[date.getUTCDate()]}T${clock(date)}`;
}

/** Edm.DateTimeOffset as text, in the offset it was written with (`Z` for 0). */
export function formatDateTimeOffset(value: DateTimeOffsetValue): string {
  const local = new Date(value.date.getTime() + value.offsetMinutes * 60_000);
  const off = value.offsetMinutes;
  const zone =
    off === 0 ? 'Z' : `${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return `${formatDateTime(local)}${zone}`;
}

export function parseDateTimeOffset(text: string): DateTimeOffsetValue | undefined {
  const parsed = parseIsoDateTime(text);
  if (!parsed || parsed.offsetMinutes === undefined) return undefined;
  return dateTimeOffset(parsed.date, parsed.offsetMinutes);
}

const DURATION = /^(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,7})?)S)?)?$/;

/** Edm.Time: an xsd:duration such as `PT9H30M` or `PT13H20M15.5S`. */
export function parseTime(text: string): TimeValue | undefined {
  const m = DURATION.exec(text);
  if (!m || text === 'P' || text.endsWith('T')) return undefined;
  const [, neg, d = '0', h = '0', mi = '0', s = '0'] = m;
  const ms =
    Number(d) * 86_400_000 + Number(h) * 3_600_000 + Number(mi) * 60_000 + Math.round(Number(s) * 1000);
  return time(neg ? -ms : ms);
}

export function formatTime(value: TimeValue): string {
  let rest = Math.abs(value.ms);
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = rest / 1000;
  const sign = value.ms < 0 ? '-' : '';
  if (h === 0 && m === 0 && s === 0) return 'PT0S';
  return `${sign}PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s ? `${s}S` : ''}`;
}
