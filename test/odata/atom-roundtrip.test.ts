import { describe, expect, it } from 'vitest';
import { readAtomEntry, readAtomFeed } from '../../odata/atom-reader.js';
import { createAtomWriter } from '../../odata/atom-writer.js';
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import { dateTimeOffset, time } from '../../odata/edm.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EdmPrimitiveType } from '../../odata/model.js';
import { EDM_PRIMITIVE_TYPES, isEdmPrimitiveType } from '../../odata/model.js';
import { NORTHWIND_ROOT, northwind, ROOT, timeTracking } from './fixtures/atom/models.js';

const utc = (...parts: [number, number, number, number?, number?, number?, number?]) => {
  const d = new Date(0);
  d.setUTCFullYear(parts[0], parts[1], parts[2]);
  d.setUTCHours(parts[3] ?? 0, parts[4] ?? 0, parts[5] ?? 0, parts[6] ?? 0);
  return d;
};

/** Edge values per type; the round trip must give each back unchanged. */
const SAMPLES: Record<EdmPrimitiveType, readonly EdmValue[]> = {
  'Edm.Boolean': [true, false],
  'Edm.Byte': [0, 255, 7],
  'Edm.SByte': [-128, 127, 0],
  'Edm.Int16': [-32768, 32767, 12],
  'Edm.Int32': [-2147483648, 2147483647, 0],
  'Edm.Int64': ['-9223372036854775808', '9223372036854775807', '0'],
  'Edm.Decimal': ['0', '-0.01', '12345678901234567.89', '95.5'],
  'Edm.Double': [0, -1.5, 1e21, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, Infinity, -Infinity, NaN, 123456.789],
  'Edm.Single': [0.15, 1.5, -3.4028235e38, 1e-7],
  'Edm.String': ['', `<&>]]>"'`, 'Grüße 😀 𝄞', '\t tab\nnew line\r\ncrlf\r ', '  spaces  ', 'x'.repeat(4000)],
  'Edm.Guid': ['0f8fad5b-d9cb-469f-a165-70867728950e', '00000000-0000-0000-0000-000000000000'],
  'Edm.DateTime': [
    new Date(0),
    utc(1969, 6, 20, 20, 17, 40),
    utc(9999, 11, 31, 23, 59, 59, 999),
    utc(2026, 10, 22, 9, 0, 0, 1),
    utc(1, 0, 1),
    utc(1600, 1, 29, 12),
  ],
  'Edm.DateTimeOffset': [
    dateTimeOffset(utc(2026, 10, 22, 9, 30, 0, 500), 120),
    dateTimeOffset(utc(1969, 11, 31, 23, 59, 59), -330),
    dateTimeOffset(new Date(0), 0),
    dateTimeOffset(utc(9999, 11, 31, 9), 14 * 60),
  ],
  'Edm.Time': [time(0), time(9.5 * 3_600_000), time(86_399_999), time(100 * 3_600_000 + 1)],
  'Edm.Binary': [new Uint8Array(0), Uint8Array.from({ length: 256 }, (_, i) => i), new Uint8Array([0xff])],
};

/** `count` records of a set, cycling through the samples; nullable properties null in some. */
function records(index: ModelIndex, setName: string, count: number): EdmRecord[] {
  const set = index.entitySet(setName);
  if (!set) throw new Error(setName);
  const type = index.typeOfSet(set);
  return Array.from({ length: count }, (_, i) => {
    const record: EdmRecord = {};
    type.properties.forEach((p, j) => {
      if (!isEdmPrimitiveType(p.type)) throw new Error(`entity property ${p.name} is complex`);
      const samples = SAMPLES[p.type];
      record[p.name] = p.nullable && (i + j) % 4 === 3 ? null : (samples[(i + j) % samples.length] ?? null);
    });
    return record;
  });
}

const cases: [string, ModelIndex, string][] = [
  ...timeTracking.model.entitySets.map((s): [string, ModelIndex, string] => ['time tracking', timeTracking, s.name]),
  ...northwind.model.entitySets.map((s): [string, ModelIndex, string] => ['Northwind', northwind, s.name]),
];

describe('Atom round trip: write -> read gives the same typed values', () => {
  it('the two models together use every Edm primitive type', () => {
    const used = new Set(
      [timeTracking, northwind].flatMap((i) => i.model.entityTypes.flatMap((t) => t.properties.map((p) => p.type))),
    );
    expect(EDM_PRIMITIVE_TYPES.filter((t) => !used.has(t))).toEqual([]);
  });

  it.each(cases)('%s %s: entries one by one', (_, index, setName) => {
    const set = index.entitySet(setName);
    if (!set) throw new Error(setName);
    const writer = createAtomWriter(index, set);
    const root = index === northwind ? NORTHWIND_ROOT : ROOT;
    for (const record of records(index, setName, 12)) {
      const xml = writer.entry(record, { serviceRoot: root, etag: 'W/"1"' });
      const entry = readAtomEntry(xml, index, set);
      expect(entry.properties).toEqual(record);
      expect(entry.etag).toBe('W/"1"');
      expect(entry.id).toBe(root + entry.editLink);
    }
  });

  it.each(cases)('%s %s: a feed with count and next link', (_, index, setName) => {
    const set = index.entitySet(setName);
    if (!set) throw new Error(setName);
    const rows = records(index, setName, 9);
    const xml = createAtomWriter(index, set).feed(rows, { serviceRoot: ROOT, count: 1234, next: `${ROOT}${setName}?$skiptoken=9` });
    const feed = readAtomFeed(new TextEncoder().encode(xml), index, set);
    expect(feed.entries.map((e) => e.properties)).toEqual(rows);
    expect(feed.count).toBe(1234);
    expect(feed.next).toBe(`${ROOT}${setName}?$skiptoken=9`);
  });

  it('expanded navigation comes back inline: to-one entry, null, and to-many feed', () => {
    const set = timeTracking.entitySet('Projects');
    if (!set) throw new Error('Projects');
    const [project = {}] = records(timeTracking, 'Projects', 1);
    const [client = {}] = records(timeTracking, 'Clients', 1);
    const entries = records(timeTracking, 'TimeEntries', 3);
    const writer = createAtomWriter(timeTracking, set);
    const xml = writer.entry(project, {
      serviceRoot: ROOT,
      expanded: { Client: { record: client }, TimeEntries: entries.map((record) => ({ record })) },
    });
    const entry = readAtomEntry(xml, timeTracking, set);
    const clientLink = entry.navigation.Client;
    const entriesLink = entry.navigation.TimeEntries;
    expect(clientLink?.href).toBe('Projects(-2147483648)/Client');
    expect(clientLink?.inline && 'properties' in clientLink.inline ? clientLink.inline.properties : undefined).toEqual(client);
    expect(entriesLink?.inline && 'entries' in entriesLink.inline ? entriesLink.inline.entries.map((e) => e.properties) : undefined).toEqual(entries);

    const none = readAtomEntry(writer.entry(project, { serviceRoot: ROOT, expanded: { Client: null } }), timeTracking, set);
    expect(none.navigation.Client).toEqual({ href: 'Projects(-2147483648)/Client', inline: null });
    expect(none.navigation.TimeEntries).toEqual({ href: 'Projects(-2147483648)/TimeEntries' });
  });
});
