// Who a request acts for, as the time-tracking rules see it: the user, their account and role,
// and the account settings every read and write consults (closed booking period, rates).
import type { WallClockZone } from '../../odata/wall-clock.js';
import { wallClockZone } from '../../odata/wall-clock.js';

export interface Caller {
  readonly accountId: number;
  readonly userId: number;
  /** AccessRights 20: reads and writes everything in the account. */
  readonly isAdmin: boolean;
  /** Entries starting before it are closed for standard users (UTC epoch ms); null = none. */
  readonly bookingCloseDate: number | null;
  /** Whether time entries show revenue (RevenuePerHour, RevenueTotal). */
  readonly hourlyRatesEnabled: boolean;
  /** The account's IANA zone: Edm.DateTime values are its wall-clock time on the wire. */
  readonly timeZone: string;
}

/** The account's wall clock; a zone name the runtime does not know (set outside the admin commands) reads as UTC. */
export function wallClockOf(caller: Caller): WallClockZone | undefined {
  try {
    return wallClockZone(caller.timeZone);
  } catch {
    return undefined;
  }
}
