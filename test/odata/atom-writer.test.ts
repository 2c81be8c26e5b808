import { describe, expect, it } from 'vitest';
import { createAtomWriter } from '../../odata/atom-writer.js';
import { dateTimeOffset } from '../../odata/edm.js';
import { SerializationError } from '../../odata/errors.js';
import { golden, NORTHWIND_ROOT, northwind, ROOT, setOf, timeTracking } from './fixtures/atom/models.js';

const updated = new Date(Date.UTC(2026, 10, 22, 10, 15, 30));
const projects = createAtomWriter(timeTracking, setOf(timeTracking, 'Projects'));

const project = {
  ID: 7,
  Name: 'Website <relaunch> & SEO',
  Active: true,
  Comment: null,
  TimeBudget: 36000,
  ClientID: 3,
  HourlyRate: '95.5',
  AssignedToCurrentUser: false,
  AssignedUsers: '1,2',
  AssignedTasks: null,
  Custom1: 'Grüße 😀',
  Custom2: '',
  LastChangeTime: new Date(Date.UTC(2026, 10, 22, 9, 0, 0)),
  LastChangeAuthor: 1,
  Version: 3,
};

describe('Atom writer: entry', () => {
  it('writes a Project as Olingo does: namespaces, etag, links in model order, every property typed', () => {
    const xml = projects.entry(project, {
      serviceRoot: ROOT,
      updated,
      etag: "W/\"datetime'2026-11-22T09%3A00%3A00'\"",
    });
    expect(xml).toBe(golden('project-entry.xml'));
  });

  it('writes expanded navigation inline (entry, empty to-one) and honours $select at each level', () => {
    const xml = createAtomWriter(timeTracking, setOf(timeTracking, 'TimeEntries')).entry(
      {
        ID: 42,
        StartTime: new Date(Date.UTC(1969, 6, 20, 20, 17, 40)),
        EndTime: new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)),
        RevenueTotal: '-0.01',
      },
      {
        serviceRoot: ROOT,
        updated,
        select: ['ID', 'StartTime', 'EndTime', 'RevenueTotal', 'Project/Name', 'Project/Client', 'User'],
        expanded: { Project: { record: { ID: 7, Name: 'Website' }, expanded: { Client: null } } },
      },
    );
    expect(xml).toBe(golden('timeentry-expanded.xml'));
  });

  it('writes composite keys as Name=value pairs (Northwind Order_Details)', () => {
    const writer = createAtomWriter(northwind, setOf(northwind, 'Order_Details'));
    const xml = writer.entry(
      { OrderID: 10248, ProductID: 11, UnitPrice: '14.0000', Quantity: 12, Discount: 0.15 },
      { serviceRoot: NORTHWIND_ROOT, updated: new Date(0) },
    );
    expect(xml).toBe(golden('order-detail-entry.xml'));
  });

  it('writes Guid keys, Int64, DateTimeOffset with its offset, Double in Java notation, Binary, CR', () => {
    const writer = createAtomWriter(northwind, setOf(northwind, 'Shipments'));
    const xml = writer.entry(
      {
        ShipmentID: '0f8fad5b-d9cb-469f-a165-70867728950e',
        OrderID: 10248,
        Carrier: 'DHL\r\nExpress',
        TrackingNumber: '-9223372036854775808',
        ShippedAt: dateTimeOffset(new Date(Date.UTC(2026, 10, 22, 9, 30, 0, 500)), 120),
        WeightKg: 1e21,
        PackageCount: 255,
        Label: new Uint8Array([0, 1, 2, 255]),
      },
      { serviceRoot: NORTHWIND_ROOT, updated: new Date(0) },
    );
    expect(xml).toBe(golden('shipment-entry.xml'));
  });

  it('percent-encodes string keys as Olingo does, keeping quotes', () => {
    const model = northwind;
    const writer = createAtomWriter(model, setOf(model, 'Orders'));
    const xml = writer.entry({ OrderID: 1, RowVersion: '0' }, { serviceRoot: NORTHWIND_ROOT, updated, select: ['OrderID'] });
    expect(xml).toContain('<link href="Orders(1)" rel="edit" title="Order"/>');
    expect(xml).toContain('<content type="application/xml"><m:properties><d:OrderID m:type="Edm.Int32">1</d:OrderID></m:properties></content>');
    expect(xml).not.toContain('Order_Details"'); // not selected: no link
  });

  it('writes an empty content element when $select names navigation only', () => {
    const xml = projects.entry(project, { serviceRoot: ROOT, updated, select: ['Client'] });
    expect(xml).toContain('title="Client" type="application/atom+xml;type=entry"/><content type="application/xml"/></entry>');
    expect(xml).not.toContain('TimeEntries');
  });
});

describe('Atom writer: feed', () => {
  it('writes a feed with author, self link, m:count, entries without xml:base, next link last', () => {
    const xml = createAtomWriter(timeTracking, setOf(timeTracking, 'Clients')).feed(
      [
        { ID: 1, Name: 'ACME' },
        { ID: 2, Name: '"Quotes" ]]> Ltd' },
      ],
      {
        serviceRoot: ROOT,
        updated: new Date(Date.UTC(2026, 10, 22, 10, 15, 30, 250)),
        select: ['ID', 'Name', 'Projects'],
        count: 101,
        next: `${ROOT}Clients?$skiptoken=2&$top=2`,
      },
    );
    expect(xml).toBe(golden('clients-feed.xml'));
  });

  it('writes an inline feed for expanded to-many navigation, with its own xml:base and self link', () => {
    const xml = projects.entry(
      { ID: 7 },
      {
        serviceRoot: ROOT,
        updated,
        select: ['ID', 'TimeEntries/ID'],
        expanded: { TimeEntries: [{ record: { ID: 1 } }, { record: { ID: 2 }, etag: 'W/"2"' }] },
      },
    );
    expect(xml).toContain(
      '<link href="Projects(7)/TimeEntries" rel="http://schemas.microsoft.com/ado/2007/08/dataservices/related/TimeEntries" title="TimeEntries" type="application/atom+xml;type=feed"><m:inline>' +
        `<feed xml:base="${ROOT}"><id>${ROOT}TimeEntries</id><title type="text">TimeEntries</title>` +
        '<updated>2026-11-22T10:15:30Z</updated><author><name/></author>' +
        '<link href="Projects(7)/TimeEntries" rel="self" title="TimeEntries"/><entry><id>',
    );
    expect(xml).toContain('<entry m:etag="W/&quot;2&quot;"><id>http://localhost:8080/V1/Api.svc/TimeEntries(2)</id>');
    expect(xml).toContain('</entry></feed></m:inline></link><content');
  });

  it('writes an empty feed and uses a given self link', () => {
    const xml = projects.feed([], { serviceRoot: ROOT, updated, selfLink: 'Clients(3)/Projects' });
    expect(xml).toBe(
      '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices" xml:base="http://localhost:8080/V1/Api.svc/">' +
        '<id>http://localhost:8080/V1/Api.svc/Projects</id><title type="text">Projects</title><updated>2026-11-22T10:15:30Z</updated>' +
        '<author><name/></author><link href="Clients(3)/Projects" rel="self" title="Projects"/></feed>',
    );
  });
});

describe('Atom writer: values it cannot write', () => {
  it('refuses control characters XML 1.0 cannot carry, naming the property', () => {
    const write = () => projects.entry({ ...project, Comment: 'bell\u0007' }, { serviceRoot: ROOT, updated });
    expect(write).toThrow(SerializationError);
    expect(write).toThrow(/U\+0007.*Comment/);
  });

  it('refuses a lone surrogate', () => {
    expect(() => projects.entry({ ...project, Name: 'x\ud800y' }, { serviceRoot: ROOT, updated })).toThrow(SerializationError);
  });

  it('refuses a value of the wrong JavaScript type and a missing key', () => {
    expect(() => projects.entry({ ...project, TimeBudget: '10' }, { serviceRoot: ROOT, updated })).toThrow(/TimeBudget/);
    expect(() => projects.entry({ Name: 'x' }, { serviceRoot: ROOT, updated })).toThrow(/key property ID/);
  });

  it('refuses a negative inline count', () => {
    expect(() => projects.feed([], { serviceRoot: ROOT, updated, count: -1 })).toThrow(SerializationError);
  });
});
