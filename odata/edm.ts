// Typed values of the Edm primitive types, as every odata/ reader produces them and every
// writer consumes them. One representation for all wire formats, so Atom and JSON readers
// give equal values for equal data.
//
//   Edm.Boolean                          boolean
//   Edm.Byte SByte Int16 Int32           number (integer)
//   Edm.Double Edm.Single                number
//   Edm.Int64 Edm.Decimal                string, canonical decimal text (exact; no float loss)
//   Edm.String                           string
//   Edm.Guid                             string, lowercase 8-4-4-4-12
//   Edm.DateTime                         Date: the wall-clock time, its digits read as UTC
//                                        (millisecond precision); a value read with an offset
//                                        (`/Date(ms+0060)/`, ISO 8601 with `Z` or `+01:00`)
//                                        is a DateTimeOffsetValue of its instant instead, for
//                                        the server to put on its wall clock (wall-clock.ts)
//   Edm.DateTimeOffset                   DateTimeOffsetValue (instant + original offset)
//   Edm.Time                             TimeValue (a duration, milliseconds)
//   Edm.Binary                           Uint8Array
//   null                                 null, for any type

export interface DateTimeOffsetValue {
  readonly kind: 'DateTimeOffset';
  /** The instant. */
  readonly date: Date;
  /** Offset from UTC in minutes that the value was written with (0 for `Z`). */
  readonly offsetMinutes: number;
}

export interface TimeValue {
  readonly kind: 'Time';
  /** Duration in milliseconds (`PT9H` = 32 400 000). */
  readonly ms: number;
}

export type EdmValue =
  | null
  | boolean
  | number
  | string
  | Date
  | Uint8Array
  | DateTimeOffsetValue
  | TimeValue;

/** One entity's (or complex value's) properties, by EDMX name. */
export interface EdmRecord {
  [property: string]: EdmValue | EdmRecord;
}

export function dateTimeOffset(date: Date, offsetMinutes = 0): DateTimeOffsetValue {
  return { kind: 'DateTimeOffset', date, offsetMinutes };
}

export function time(ms: number): TimeValue {
  return { kind: 'Time', ms };
}
