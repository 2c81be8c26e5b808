// Edm.DateTime at the edge of the server: a data source holds instants, the wire carries the
// wall-clock time of the caller's zone (the data source's `wallClock`; none = UTC, as before).
// Out: every Date of a record (entries, inline entries, complex values, function results) is put
// on the wall clock. In: a zone-less value (a Date: payloads, `$filter` literals, parameters) is
// read on the wall clock, and a value written with an offset (a DateTimeOffsetValue, see
// odata/edm.ts) is the instant it names. The conversion and its rule for skipped and repeated
// times are odata/wall-clock.ts; this file only finds the values.
import type { DateTimeOffsetValue, EdmRecord, EdmValue } from '../../odata/edm.js';
import { dateTimeOffset } from '../../odata/edm.js';
import type { FilterNode } from '../../odata/filter-ast.js';
import type { ExpandedNavigation, InlineEntry } from '../../odata/json-writer.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { Property } from '../../odata/model.js';
import type { WallClockZone } from '../../odata/wall-clock.js';

type Value = EdmValue | EdmRecord;

function isPlainRecord(value: unknown): value is EdmRecord {
  return typeof value === 'object' && value !== null && !(value instanceof Date) && !(value instanceof Uint8Array) &&
    !('kind' in value) && !Array.isArray(value);
}

function isOffsetValue(value: unknown): value is DateTimeOffsetValue {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'DateTimeOffset';
}

// ---- out -------------------------------------------------------------------------------------

/** How an instant is written: its wall-clock digits, or (for a client that asked) the instant and its offset. */
export type ShowDateTime = (instant: Date) => Date | DateTimeOffsetValue;

/**
 * The writer of a response's Edm.DateTime values: none (as stored, UTC) without a zone and
 * offsets; wall-clock digits; or, for a client that sent DATE_TIME_OFFSETS_HEADER (the gateway's
 * REST face), the instant with the zone's offset at it, which loses nothing in a repeated hour.
 */
export function dateTimeShower(zone: WallClockZone | undefined, withOffsets: boolean): ShowDateTime | undefined {
  if (withOffsets) {
    return (instant) => dateTimeOffset(instant, zone === undefined ? 0 : Math.round(zone.offsetAt(instant.getTime()) / 60_000));
  }
  return zone === undefined ? undefined : (instant) => new Date(zone.toWallClock(instant.getTime()));
}

/**
 * A record as the wire shows it: Dates (Edm.DateTime, the only Dates a record holds) shown,
 * complex values likewise. A copy: the same record may be written twice in one response (one
 * project expanded under many entries).
 */
export function recordOnWallClock(record: EdmRecord, show: ShowDateTime | undefined): EdmRecord {
  if (show === undefined) return record;
  let copy: Record<string, Value> | undefined;
  for (const name in record) {
    const value = record[name];
    let shown: Value | undefined;
    if (value instanceof Date) shown = show(value);
    else if (isPlainRecord(value)) shown = recordOnWallClock(value, show);
    else continue;
    copy ??= { ...record };
    copy[name] = shown;
  }
  return copy ?? record;
}

export function recordsOnWallClock(records: readonly EdmRecord[], show: ShowDateTime | undefined): readonly EdmRecord[] {
  return show === undefined ? records : records.map((record) => recordOnWallClock(record, show));
}

function inlineOnWallClock(entry: InlineEntry, show: ShowDateTime): InlineEntry {
  return {
    ...entry,
    record: recordOnWallClock(entry.record, show),
    ...(entry.expanded === undefined ? {} : { expanded: expandedOnWallClock(entry.expanded, show) }),
  };
}

export function expandedOnWallClock(expanded: ExpandedNavigation | undefined, show: ShowDateTime | undefined): ExpandedNavigation | undefined {
  if (expanded === undefined || show === undefined) return expanded;
  const out: Record<string, InlineEntry | null | readonly InlineEntry[]> = {};
  for (const [name, inline] of Object.entries(expanded)) {
    out[name] = inline === null ? null : Array.isArray(inline)
      ? (inline as readonly InlineEntry[]).map((e) => inlineOnWallClock(e, show))
      : inlineOnWallClock(inline as InlineEntry, show);
  }
  return out;
}

/** A property's or function's value (a Date, a complex record, a collection of either). */
export function valueOnWallClock(value: Value, show: ShowDateTime | undefined): Value {
  if (show === undefined) return value;
  if (value instanceof Date) return show(value);
  if (Array.isArray(value)) return (value as Value[]).map((v) => valueOnWallClock(v, show)) as never;
  return isPlainRecord(value) ? recordOnWallClock(value, show) : value;
}

// ---- in --------------------------------------------------------------------------------------

/** An Edm.DateTime value as the instant the data source stores. */
export function dateTimeInstant(value: Date | DateTimeOffsetValue, zone: WallClockZone | undefined): Date {
  if (!(value instanceof Date)) return value.date;
  return zone === undefined ? value : new Date(zone.toInstant(value.getTime()));
}

/** A value of `type` from the wire, with its Edm.DateTime values (also inside complex ones) as instants. */
export function valueAsInstants(index: ModelIndex, type: string, value: Value | undefined, zone: WallClockZone | undefined): Value | undefined {
  if (value === null || value === undefined) return value;
  if (type === 'Edm.DateTime' && (value instanceof Date || isOffsetValue(value))) return dateTimeInstant(value, zone);
  const complex = type.startsWith('Edm.') ? undefined : index.complexType(type);
  if (complex === undefined || !isPlainRecord(value)) return value;
  return recordAsInstants(index, complex.properties, value, zone);
}

/** A payload record of properties `properties`, with its Edm.DateTime values as instants. */
export function recordAsInstants(index: ModelIndex, properties: readonly Property[], record: EdmRecord, zone: WallClockZone | undefined): EdmRecord {
  let copy: Record<string, Value> | undefined;
  for (const property of properties) {
    const value = record[property.name];
    if (value === undefined || value === null || property.type.startsWith('Edm.') && property.type !== 'Edm.DateTime') continue;
    const converted = valueAsInstants(index, property.type, value, zone);
    if (converted === value) continue;
    copy ??= { ...record };
    copy[property.name] = converted as Value;
  }
  return copy ?? record;
}

/** A `$filter` with its Edm.DateTime literals as instants (comparisons then agree with what is shown). */
export function filterAsInstants(node: FilterNode | undefined, zone: WallClockZone | undefined): FilterNode | undefined {
  if (node === undefined) return undefined;
  switch (node.kind) {
    case 'literal':
      return node.type === 'Edm.DateTime' && (node.value instanceof Date || isOffsetValue(node.value))
        ? { ...node, value: dateTimeInstant(node.value, zone) }
        : node;
    case 'property':
      return node;
    case 'unary':
      return { ...node, operand: filterAsInstants(node.operand, zone) as FilterNode };
    case 'binary':
      return { ...node, left: filterAsInstants(node.left, zone) as FilterNode, right: filterAsInstants(node.right, zone) as FilterNode };
    case 'call':
      return { ...node, args: node.args.map((arg) => filterAsInstants(arg, zone) as FilterNode) };
  }
}
