// The properties the service derives instead of storing (data-model.md):
//   Project.AssignedToCurrentUser   AssignedUsers is null or lists the caller
//   Client.AssignedToCurrentUser    one of its projects is assigned to the caller (selected in SQL)
//   TimeEntry.DurationSeconds       EndTime - StartTime; for a running stopwatch, the time so far
//   TimeEntry.DurationString        hh:mm, rounded down
//   TimeEntry.IsEditable            whether the caller may change it now
//   TimeEntry.RevenuePerHour        the project's HourlyRate (null when none or rates are off)
//   TimeEntry.RevenueTotal          RevenuePerHour x hours when Billable, to the cent; else null
import type { EdmRecord } from '../../odata/edm.js';
import type { Caller } from './caller.js';

/** Helper columns some sets select beside their properties, for their computed values. */
export const HOURLY_RATE_COLUMN = '__hourly_rate';
export const ASSIGNED_COLUMN = '__assigned';

/** The helper column each set reads, if any. */
export const HELPER_COLUMNS: Readonly<Record<string, string>> = { TimeEntries: HOURLY_RATE_COLUMN, Clients: ASSIGNED_COLUMN };

/**
 * Fills in the computed properties of a record read with every property of its type. `helper`
 * is the value of its set's helper column: the project's rate of a time entry (a decimal text
 * or null), whether a client is assigned to the caller.
 */
export function completeRecord(set: string, record: EdmRecord, caller: Caller, now: number, helper: unknown): void {
  switch (set) {
    case 'Projects':
      record.AssignedToCurrentUser = isListed(record.AssignedUsers, caller.userId);
      return;
    case 'Clients':
      record.AssignedToCurrentUser = Number(helper) === 1 || helper === true;
      return;
    case 'TimeEntries':
      completeTimeEntry(record, caller, now, typeof helper === 'string' ? helper : null);
  }
}

function isListed(list: EdmRecord[string] | undefined, userId: number): boolean {
  if (list === null || list === undefined) return true;
  return typeof list === 'string' && list.split(',').includes(String(userId));
}

function completeTimeEntry(record: EdmRecord, caller: Caller, now: number, projectRate: string | null): void {
  const start = (record.StartTime as Date).getTime();
  const rate = caller.hourlyRatesEnabled ? projectRate : null;
  const end = record.EndTime instanceof Date ? record.EndTime.getTime() : Math.max(now, start);
  const seconds = Math.max(0, Math.floor((end - start) / 1000));
  record.DurationSeconds = seconds;
  record.DurationString = durationString(seconds);
  record.IsEditable = caller.isAdmin || (
    record.UserID === caller.userId
    && record.Locked !== true
    && (caller.bookingCloseDate === null || start >= caller.bookingCloseDate)
  );
  record.RevenuePerHour = rate;
  record.RevenueTotal = rate !== null && record.Billable === true ? revenue(rate, seconds) : null;
}

/** `hh:mm`, hours not limited to two digits. */
export function durationString(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return `${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
}

/**
 * Below this, cents x seconds is an exact double and so is the floor of its quotient by 3600
 * (the quotient's rounding error stays far below the 1/3600 between candidate results).
 */
const EXACT_PRODUCT_LIMIT = 2 ** 45;

/** rate (a decimal with two places) x seconds / 3600, rounded half away from zero to the cent. */
export function revenue(rate: string, seconds: number): string {
  // Plain numbers are exact while the product stays below EXACT_PRODUCT_LIMIT (any real rate and
  // duration); BigInt only beyond it, because it cost more than all other computed values of an
  // entry together, on every entry of every page.
  const centsNumber = Number(rate.replace('.', ''));
  const scaledNumber = centsNumber * seconds;
  if (Number.isInteger(centsNumber) && Math.abs(scaledNumber) < EXACT_PRODUCT_LIMIT) {
    const roundedNumber = Math.floor((Math.abs(scaledNumber) + 1800) / 3600);
    const digits = String(roundedNumber).padStart(3, '0');
    return `${scaledNumber < 0 && roundedNumber !== 0 ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
  }
  const cents = BigInt(rate.replace('.', ''));
  const scaled = cents * BigInt(seconds);
  const negative = scaled < 0n;
  const magnitude = negative ? -scaled : scaled;
  const rounded = (magnitude + 1800n) / 3600n;
  const text = rounded.toString().padStart(3, '0');
  return `${negative && rounded !== 0n ? '-' : ''}${text.slice(0, -2)}.${text.slice(-2)}`;
}
