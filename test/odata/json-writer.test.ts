import { describe, expect, it } from 'vitest';
import { SerializationError } from '../../odata/errors.js';
import { createJsonWriter } from '../../odata/json-writer.js';
import { client, golden, northwind, NORTHWIND_ROOT, order, project, ROOT, setOf, shipment, timeTracking } from './fixtures/json/models.js';

const projects = createJsonWriter(timeTracking, setOf(timeTracking, 'Projects'));
const clients = createJsonWriter(timeTracking, setOf(timeTracking, 'Clients'));

describe('JSON writer: entry', () => {
  it('writes a Project as Olingo V2 does: d wrapper, __metadata with etag, typed values, __deferred links', () => {
    const json = projects.entry(project, { serviceRoot: ROOT, etag: `W/"datetime'2026-11-22T09%3A00%3A00'"` });
    expect(json).toBe(golden('project-entry.json'));
  });

  it('writes every exotic Edm type of Northwind: Guid key, Int64, DateTimeOffset with offset, Double, Byte, Binary', () => {
    const json = createJsonWriter(northwind, setOf(northwind, 'Shipments')).entry(shipment, { serviceRoot: NORTHWIND_ROOT });
    expect(json).toBe(golden('shipment-entry.json'));
    expect(json).toContain('"ShippedAt":"\\/Date(1795332600000+0120)\\/"');
  });

  it('writes a composite key, an expanded to-one entry and an expanded empty to-one as null', () => {
    const json = createJsonWriter(northwind, setOf(northwind, 'Order_Details')).entry(
      { OrderID: 10248, ProductID: 11, UnitPrice: '14', Quantity: 12, Discount: 0.25 },
      { serviceRoot: NORTHWIND_ROOT, expanded: { Order: { record: order }, Product: null } },
    );
    expect(json).toBe(golden('order-detail-entry.json'));
  });

  it('honours $select (properties, navigation, nested paths) and writes to-many expansions as {"results":[...]}', () => {
    const json = projects.entry(project, {
      serviceRoot: ROOT,
      select: ['ID', 'Name', 'Client', 'TimeEntries/ID'],
      expanded: { Client: { record: client }, TimeEntries: [] },
    });
    expect(json).toBe(golden('project-expanded.json'));
  });

  it('selects everything with *, and only the named properties of an expanded entry with Nav/Prop', () => {
    const all = JSON.parse(projects.entry(project, { serviceRoot: ROOT, select: ['*'] })).d;
    expect(Object.keys(all)).toHaveLength(1 + 18 + 2);
    const nested = JSON.parse(
      projects.entry(project, { serviceRoot: ROOT, select: ['Client/Name'], expanded: { Client: { record: client } } }),
    ).d;
    expect(Object.keys(nested)).toEqual(['__metadata', 'Client']);
    expect(Object.keys(nested.Client)).toEqual(['__metadata', 'Name']);
  });

  it('writes missing properties as null (as Olingo does for absent map entries)', () => {
    const json = JSON.parse(clients.entry({ ID: 9 }, { serviceRoot: ROOT })).d;
    expect(json.Name).toBeNull();
    expect(json.LastChangeTime).toBeNull();
  });

  it('writes the guid key literal unencoded and escapes a service root with quotes for JSON', () => {
    const shipments = createJsonWriter(northwind, setOf(northwind, 'Shipments'));
    const uri = JSON.parse(shipments.entry(shipment, { serviceRoot: 'http://h/a "b"/' })).d.__metadata.uri;
    expect(uri).toBe(`http://h/a "b"/Shipments(guid'0f8fad5b-d9cb-469f-a165-70867728950e')`);
  });

  it('refuses to write a value of the wrong type rather than emitting broken JSON', () => {
    expect(() => projects.entry({ ...project, TimeBudget: '1,"x":2' }, { serviceRoot: ROOT })).toThrow(SerializationError);
    expect(() => projects.entry({ ...project, HourlyRate: '1"' }, { serviceRoot: ROOT })).toThrow(SerializationError);
    expect(() => projects.entry({ ...project, ID: null }, { serviceRoot: ROOT })).toThrow(SerializationError);
  });
});

describe('JSON writer: feed', () => {
  it('writes __count (a string) before results and __next after them; escapes U+2028 and keeps </script> in strings', () => {
    const json = clients.feed([client, { ...client, ID: 4, Name: 'Line\u2028Sep </script>' }], {
      serviceRoot: ROOT,
      count: 42,
      next: `${ROOT}Clients?$skiptoken=5`,
    });
    expect(json).toBe(golden('clients-feed.json'));
  });

  it('writes an empty feed without __count and __next when none is asked', () => {
    expect(clients.feed([], { serviceRoot: ROOT })).toBe('{"d":{"results":[]}}');
  });

  it('takes etags and expansions per record', () => {
    const json = JSON.parse(
      projects.feed([project, { ...project, ID: 8 }], {
        serviceRoot: ROOT,
        etag: (r) => `W/"${String(r.ID)}"`,
        expanded: (_r, i) => (i === 0 ? { Client: null } : undefined),
      }),
    ).d.results;
    expect(json.map((e: { __metadata: { etag: string } }) => e.__metadata.etag)).toEqual(['W/"7"', 'W/"8"']);
    expect(json[0].Client).toBeNull();
    expect(json[1].Client).toEqual({ __deferred: { uri: `${ROOT}Projects(8)/Client` } });
  });

  it('refuses a count that is not a non-negative integer', () => {
    expect(() => clients.feed([], { serviceRoot: ROOT, count: -1 })).toThrow(RangeError);
  });
});
