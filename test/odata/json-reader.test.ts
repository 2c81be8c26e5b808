import { describe, expect, it } from 'vitest';
import { readAtomEntry } from '../../odata/atom-reader.js';
import { createAtomWriter } from '../../odata/atom-writer.js';
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import { dateTimeOffset, time } from '../../odata/edm.js';
import { PayloadError } from '../../odata/errors.js';
import { createJsonReader, readJsonEntry, readJsonFeed } from '../../odata/json-reader.js';
import type { ExpandedNavigation } from '../../odata/json-writer.js';
import { createJsonWriter } from '../../odata/json-writer.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EdmPrimitiveType } from '../../odata/model.js';
import { client, golden, northwind, NORTHWIND_ROOT, order, project, ROOT, setOf, shipment, timeTracking } from './fixtures/json/models.js';

/** Values of every type that must survive write -> read unchanged, edge cases included. */
const SAMPLES: Record<EdmPrimitiveType, readonly EdmValue[]> = {
  'Edm.Binary': [new Uint8Array([]), new Uint8Array([0, 255, 128, 62, 63])],
  'Edm.Boolean': [true, false],
  'Edm.Byte': [0, 255],
  'Edm.DateTime': [
    new Date(0),
    new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 999)),
    new Date(Date.UTC(1601, 0, 1)),
    new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)),
    new Date(Date.UTC(2026, 10, 22, 9, 0, 0, 123)),
  ],
  'Edm.DateTimeOffset': [
    dateTimeOffset(new Date(0), 0),
    dateTimeOffset(new Date(Date.UTC(1950, 5, 1, 12)), -300),
    dateTimeOffset(new Date(Date.UTC(9999, 11, 31, 20)), 840),
    dateTimeOffset(new Date(Date.UTC(2026, 10, 22, 9, 0, 0, 5)), 60),
  ],
  'Edm.Decimal': ['0', '-0.5', '95.5', '79228162514264337593543950335', '0.0000000001'],
  'Edm.Double': [0, -1.5, 1e300, 5e-324, Infinity, -Infinity, NaN],
  'Edm.Guid': ['0f8fad5b-d9cb-469f-a165-70867728950e'],
  'Edm.Int16': [-32768, 32767],
  'Edm.Int32': [-2147483648, 2147483647],
  'Edm.Int64': ['-9223372036854775808', '9223372036854775807', '0'],
  'Edm.SByte': [-128, 127],
  'Edm.Single': [0.25, -3.4e38, 1.1],
  'Edm.String': ['', 'Grüße 😀 \u2028\u2029 </script> & <x> "q" \\ \n\t', 'x'.repeat(5000)],
  'Edm.Time': [time(0), time(9 * 3_600_000 + 30 * 60_000), time(23 * 3_600_000 + 59 * 60_000 + 59_500)],
};

/**
 * Round trip of every property of every entity set: each sample value, then null where allowed.
 * The same record also goes through Atom: both readers must give equal typed values.
 */
function roundTripAll(index: ModelIndex, root: string): number {
  let checked = 0;
  for (const set of index.model.entitySets) {
    const type = index.typeOfSet(set);
    const writer = createJsonWriter(index, set);
    const reader = createJsonReader(index, set);
    const atom = createAtomWriter(index, set);
    const base: EdmRecord = {};
    for (const p of type.properties) base[p.name] = (SAMPLES[p.type as EdmPrimitiveType] ?? [null])[0] ?? null;
    for (const p of type.properties) {
      const values = [...(SAMPLES[p.type as EdmPrimitiveType] ?? []), ...(p.nullable ? [null] : [])];
      for (const value of values) {
        const record = { ...base, [p.name]: value };
        const back = reader.entry(writer.entry(record, { serviceRoot: root }));
        expect(back.record, `${set.name}/${p.name}`).toEqual(record);
        const fromAtom = readAtomEntry(atom.entry(record, { serviceRoot: root }), index, set).properties;
        expect(fromAtom, `Atom ${set.name}/${p.name}`).toEqual(back.record);
        checked++;
      }
    }
  }
  return checked;
}

describe('JSON reader: round trips', () => {
  it('reads back every Edm type of the time-tracking model, nulls and date edge cases included, equal to Atom', () => {
    expect(roundTripAll(timeTracking, ROOT)).toBeGreaterThan(200);
  });

  it('reads back every Edm type of the Northwind fixture (Guid, Int64, DateTimeOffset, Time, Binary, ...), equal to Atom', () => {
    expect(roundTripAll(northwind, NORTHWIND_ROOT)).toBeGreaterThan(50);
  });

  it('reads back a feed with count, next link, etags and inline expansions', () => {
    const projects = setOf(timeTracking, 'Projects');
    const text = createJsonWriter(timeTracking, projects).feed([project, { ...project, ID: 8 }], {
      serviceRoot: ROOT,
      count: 2,
      next: `${ROOT}Projects?$skiptoken=9`,
      etag: () => 'W/"1"',
      expanded: (_r, i): ExpandedNavigation => (i === 0 ? { Client: { record: client }, TimeEntries: [] } : { Client: null }),
    });
    const feed = readJsonFeed(text, timeTracking, projects);
    expect(feed.count).toBe(2);
    expect(feed.next).toBe(`${ROOT}Projects?$skiptoken=9`);
    expect(feed.entries[0]).toMatchObject({ record: project, uri: `${ROOT}Projects(7)`, type: 'Service.Project', etag: 'W/"1"' });
    expect(feed.entries[0]?.expanded.Client).toMatchObject({ record: client });
    expect(feed.entries[0]?.expanded.TimeEntries).toEqual([]);
    expect(feed.entries[1]?.expanded).toEqual({ Client: null });
  });

  it('reads the golden documents into the records they were written from', () => {
    const order = readJsonEntry(golden('order-detail-entry.json'), northwind, setOf(northwind, 'Order_Details'));
    expect(order.expanded.Product).toBeNull();
    const shipments = readJsonEntry(golden('shipment-entry.json'), northwind, setOf(northwind, 'Shipments'));
    expect(shipments.record).toEqual(shipment);
  });
});

describe('JSON reader: what other V2 servers send', () => {
  const clients = setOf(timeTracking, 'Clients');
  const orders = setOf(northwind, 'Orders');
  const shipments = setOf(northwind, 'Shipments');

  it('accepts a V1 feed (bare array in d), a feed without d, and __count as a number', () => {
    expect(readJsonFeed('{"d":[{"ID":1},{"ID":2}]}', timeTracking, clients).entries).toHaveLength(2);
    const feed = readJsonFeed('{"results":[{"ID":1}],"__count":7,"__next":{"uri":"http://x/Clients?$skiptoken=2"}}', timeTracking, clients);
    expect(feed).toMatchObject({ count: 7, next: 'http://x/Clients?$skiptoken=2' });
  });

  it('accepts an entry with or without d, the minimal create payload, and ignores __deferred and unknown __metadata keys', () => {
    const entry = readJsonEntry(
      '{"__metadata":{"id":"x","uri":"Clients(1)","type":"Service.Client","content_type":"x"},"Name":"A","Projects":{"__deferred":{"uri":"u"}}}',
      timeTracking,
      clients,
    );
    expect(entry).toEqual({ record: { Name: 'A' }, uri: 'Clients(1)', type: 'Service.Client', expanded: {} });
    expect(readJsonEntry({ d: { Name: 'B' } }, timeTracking, clients).record).toEqual({ Name: 'B' });
  });

  it('reads numbers or strings for numeric types and normalises them to the canonical typed value', () => {
    const e = readJsonEntry(
      '{"OrderID":"10248","Freight":32.380,"RowVersion":42,"EmployeeID":5}',
      northwind,
      orders,
    ).record;
    expect(e).toEqual({ OrderID: 10248, Freight: '32.38', RowVersion: '42', EmployeeID: 5 });
    expect(readJsonEntry('{"Freight":"+001.50e1"}', northwind, orders).record.Freight).toBe('15');
    expect(readJsonEntry('{"WeightKg":"1.0E20","ShipmentID":"0F8FAD5B-D9CB-469F-A165-70867728950E"}', northwind, shipments).record).toEqual({
      WeightKg: 1e20,
      ShipmentID: '0f8fad5b-d9cb-469f-a165-70867728950e',
    });
  });

  it('reads every date form: \\/Date(ms)\\/, negative ms, and ISO 8601 with or without fraction as wall-clock Dates; with an offset, as the instant and its offset', () => {
    const read = (text: string): unknown => readJsonEntry(`{"OrderDate":${JSON.stringify(text)}}`, northwind, orders).record.OrderDate;
    expect(read('/Date(1700000000000)/')).toEqual(new Date(1700000000000));
    expect(read('/Date(-86400000)/')).toEqual(new Date(Date.UTC(1969, 11, 31)));
    expect(read('/Date(1700000000000+0060)/')).toEqual(dateTimeOffset(new Date(1700000000000), 60));
    expect(read('2026-11-22T09:00')).toEqual(new Date(Date.UTC(2026, 10, 22, 9)));
    expect(read('2026-11-22T09:00:00.1234567')).toEqual(new Date(Date.UTC(2026, 10, 22, 9, 0, 0, 123)));
    expect(read('2026-11-22T09:00:00+01:00')).toEqual(dateTimeOffset(new Date(Date.UTC(2026, 10, 22, 8)), 60));
    expect(readJsonEntry('{"OrderDate":"\\/Date(0)\\/"}', northwind, orders).record.OrderDate).toEqual(new Date(0));
    const offset = (text: string): unknown => readJsonEntry(`{"ShippedAt":${JSON.stringify(text)}}`, northwind, shipments).record.ShippedAt;
    // The four digits are minutes (ODataLib writes {offsetMinutes:D4}): -0210 is UTC-03:30.
    expect(offset('/Date(1700000000000-0210)/')).toEqual(dateTimeOffset(new Date(1700000000000), -210));
    expect(offset('2026-11-22T09:00:00+02:00')).toEqual(dateTimeOffset(new Date(Date.UTC(2026, 10, 22, 7)), 120));
  });

  it('writes a Single as the shortest text of its 32-bit value, so a float read from storage reads back as in Atom', () => {
    const details = setOf(northwind, 'Order_Details');
    const stored = Math.fround(0.1);
    const text = createJsonWriter(northwind, details).entry(
      { OrderID: 1, ProductID: 2, UnitPrice: '1', Quantity: 1, Discount: stored },
      { serviceRoot: NORTHWIND_ROOT },
    );
    expect(text).toContain('"Discount":"0.1"');
    expect(readJsonEntry(text, northwind, details).record.Discount).toBe(0.1);
  });

  it('reads an inline to-many expansion in V1 (array) and V2 ({"results":[...]}) form', () => {
    const projects = setOf(timeTracking, 'Projects');
    const v1 = readJsonEntry('{"ID":1,"TimeEntries":[{"ID":5}]}', timeTracking, projects);
    const v2 = readJsonEntry('{"ID":1,"TimeEntries":{"results":[{"ID":5}],"__count":"1"}}', timeTracking, projects);
    expect(v1.expanded.TimeEntries).toEqual([{ record: { ID: 5 }, expanded: {} }]);
    expect(v2.expanded).toEqual(v1.expanded);
  });
});

describe('JSON reader: refusals', () => {
  const clients = setOf(timeTracking, 'Clients');
  const projects = setOf(timeTracking, 'Projects');
  const refuse = (text: unknown, message: RegExp): void => {
    expect(() => readJsonEntry(text, timeTracking, projects)).toThrow(PayloadError);
    expect(() => readJsonEntry(text, timeTracking, projects)).toThrow(message);
  };

  it('names the property that is unknown or has a value of the wrong type', () => {
    refuse('{"Nope":1}', /Nope is not a property of Service\.Project/);
    refuse('{"TimeBudget":"12x"}', /property TimeBudget: "12x" is not a valid Edm\.Int32/);
    refuse('{"TimeBudget":2147483648}', /TimeBudget/);
    refuse('{"Active":1}', /Active/);
    refuse('{"LastChangeTime":"yesterday"}', /LastChangeTime/);
    refuse('{"HourlyRate":"1e99999"}', /HourlyRate/);
    refuse('{"__metadata":{"type":"Service.Client"}}', /not the entity type Service\.Project/);
    refuse('{"Client":[{"ID":1}]}', /Client/);
  });

  it('refuses malformed JSON and non-object entries', () => {
    refuse('{"ID":', /JSON/);
    refuse('[1]', /must be a JSON object/);
    expect(() => readJsonFeed('{"d":{"results":{}}}', timeTracking, clients)).toThrow(PayloadError);
  });

  it('refuses __proto__, constructor and prototype keys, escaped spellings and parsed objects included', () => {
    refuse('{"__proto__":{"admin":true}}', /"__proto__" is not allowed/);
    refuse('{"Name":"x","Client":{"constructor":{"prototype":1}}}', /not allowed/);
    refuse('{"\\u005f_proto__":1}', /"__proto__" is not allowed/);
    refuse(JSON.parse('{"ID":1,"__proto__":{"x":1}}'), /"__proto__" is not allowed/);
    refuse(JSON.parse('{"__metadata":{"__proto__":{}}}'), /not allowed/);
  });

  it('refuses 10 000-deep nesting', () => {
    const deep = `{"Name":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    refuse(deep, /nesting deeper than 64/);
    const deepExpansion = `${'{"Client":{"Projects":['.repeat(40)}{}${']}}'.repeat(40)}`;
    refuse(deepExpansion, /nesting deeper/);
  });

  it('refuses a 10 MB string literal with a typed error, and honours a custom limit', () => {
    refuse(`{"Name":"${'a'.repeat(10 * 1024 * 1024)}"}`, /exceeds the limit of 1048576/);
    const reader = createJsonReader(timeTracking, projects, { maxDepth: 64, maxStringLength: 10 });
    expect(() => reader.entry('{"Name":"12345678901"}')).toThrow(PayloadError);
    expect(reader.entry('{"Name":"1234567890"}').record).toEqual({ Name: '1234567890' });
  });

  it('refuses invalid Guid, base64, Int64 range and time values', () => {
    const shipments = setOf(northwind, 'Shipments');
    for (const body of ['{"ShipmentID":"xyz"}', '{"Label":"@@@="}', '{"TrackingNumber":"9223372036854775808"}', '{"PackageCount":256}']) {
      expect(() => readJsonEntry(body, northwind, shipments), body).toThrow(PayloadError);
    }
    expect(() => readJsonEntry('{"PreferredDeliveryTime":"9:30"}', northwind, setOf(northwind, 'Orders'))).toThrow(PayloadError);
  });
});

describe('JSON reader: same typed values as the write side', () => {
  it('carries control characters that XML cannot (U+0001, U+001F) and lone surrogates', () => {
    const clients = setOf(timeTracking, 'Clients');
    const record = { ID: 1, Name: '\u0001\u001f\ud800x' };
    const text = createJsonWriter(timeTracking, clients).entry(record, { serviceRoot: ROOT });
    expect(text).toContain('"Name":"\\u0001\\u001f\\ud800x"');
    expect(readJsonEntry(text, timeTracking, clients).record.Name).toBe(record.Name);
  });

  it('gives an Order of Northwind exactly back, Time and Int64 edge included', () => {
    const orders = setOf(northwind, 'Orders');
    const text = createJsonWriter(northwind, orders).entry(order, { serviceRoot: NORTHWIND_ROOT });
    expect(readJsonEntry(text, northwind, orders).record).toEqual(order);
  });
});
