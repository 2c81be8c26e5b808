import { describe, expect, it } from 'vitest';
import { parseResourcePath, splitServiceRoot } from '../../odata/resource-path.js';
import type { ResourcePath } from '../../odata/resource-path.js';
import { formatKeyPredicate } from '../../odata/key-predicate.js';
import { LimitError, ResourceNotFoundError, UriSyntaxError } from '../../odata/errors.js';
import { entityType, northwind, timetracking } from './filter-fixtures.js';

/** The path in a compact, readable form: kind, the set/nav chain with keys, and the tail. */
function summary(path: ResourcePath): unknown {
  switch (path.kind) {
    case 'serviceDocument':
    case 'metadata':
    case 'batch':
      return path.kind;
    case 'functionImport':
      return { kind: path.kind, name: path.functionImport.name, value: path.value };
    default: {
      const chain = path.segments.map((s) => ({ step: s.navigation?.name ?? s.set.name, key: s.key, many: s.isCollection }));
      const base = { kind: path.kind, set: path.set.name, type: path.type.fullName, chain };
      if (path.kind === 'collection') return { ...base, count: path.count };
      if (path.kind === 'entity') return { ...base, key: path.key, mediaValue: path.mediaValue };
      if (path.kind === 'property') return { ...base, properties: path.properties.map((p) => p.name), value: path.value };
      return { ...base, link: { step: path.link.navigation?.name, set: path.link.set.name, key: path.link.key, many: path.link.isCollection }, count: path.count };
    }
  }
}

const parse = (path: string) => summary(parseResourcePath(path, timetracking));
const parseNorthwind = (path: string) => summary(parseResourcePath(path, northwind));

describe('service root', () => {
  it('matches the root case-insensitively and returns the rest', () => {
    expect(splitServiceRoot('/v1/API.svc/Projects(7)', '/V1/Api.svc')).toBe('/Projects(7)');
    expect(splitServiceRoot('/V1/Api.svc', '/V1/Api.svc/')).toBe('');
    expect(splitServiceRoot('/V1/Api.svc/', '/V1/Api.svc')).toBe('/');
    expect(splitServiceRoot('/V1/Api.svcx/Projects', '/V1/Api.svc')).toBeUndefined();
    expect(splitServiceRoot('/V2/Api.svc/Projects', '/V1/Api.svc')).toBeUndefined();
  });
});

describe('resource paths of the time-tracking service', () => {
  it('addresses the service document, $metadata and $batch', () => {
    expect(parse('')).toBe('serviceDocument');
    expect(parse('/')).toBe('serviceDocument');
    expect(parse('/$metadata')).toBe('metadata');
    expect(parse('$batch')).toBe('batch');
  });

  it('addresses a collection and one entity by key, with or without the key name', () => {
    const collection = { kind: 'collection', set: 'Projects', type: 'Service.Project', chain: [{ step: 'Projects', key: undefined, many: true }], count: false };
    expect(parse('/Projects')).toEqual(collection);
    expect(parse('/Projects/')).toEqual(collection);
    expect(parse('/Projects()')).toEqual(collection);
    expect(parse('/TimeTrackingService.Projects')).toEqual(collection);
    const entity = { kind: 'entity', set: 'Projects', type: 'Service.Project', chain: [{ step: 'Projects', key: { ID: 7 }, many: false }], key: { ID: 7 }, mediaValue: false };
    expect(parse('/Projects(7)')).toEqual(entity);
    expect(parse('/Projects(ID=7)')).toEqual(entity);
    expect(parse('/Projects(%37)')).toEqual(entity);
  });

  it('follows navigation to one and to many, with keys on to-many steps', () => {
    expect(parse('/Projects(7)/TimeEntries')).toMatchObject({ kind: 'collection', set: 'TimeEntries', chain: [{ step: 'Projects' }, { step: 'TimeEntries', many: true }] });
    expect(parse('/Projects(7)/Client')).toMatchObject({ kind: 'entity', set: 'Clients', key: undefined, chain: [{}, { step: 'Client', many: false }] });
    expect(parse('/Projects(7)/TimeEntries(3)/Task')).toMatchObject({
      kind: 'entity',
      type: 'Service.Task',
      chain: [{ key: { ID: 7 } }, { step: 'TimeEntries', key: { ID: 3 }, many: false }, { step: 'Task' }],
    });
  });

  it('addresses a property, its $value, and $count of collections', () => {
    expect(parse('/Projects(7)/Name')).toMatchObject({ kind: 'property', properties: ['Name'], value: false });
    expect(parse('/Projects(7)/Client/Name/$value')).toMatchObject({ kind: 'property', set: 'Clients', properties: ['Name'], value: true });
    expect(parse('/Projects/$count')).toMatchObject({ kind: 'collection', set: 'Projects', count: true });
    expect(parse('/Projects(7)/TimeEntries/$count')).toMatchObject({ kind: 'collection', set: 'TimeEntries', count: true });
  });

  it('addresses links', () => {
    expect(parse('/Projects(7)/$links/Client')).toMatchObject({ kind: 'links', set: 'Projects', link: { step: 'Client', set: 'Clients', many: false }, count: false });
    expect(parse('/Projects(7)/$links/TimeEntries')).toMatchObject({ kind: 'links', link: { set: 'TimeEntries', many: true } });
    expect(parse('/Projects(7)/$links/TimeEntries(3)')).toMatchObject({ kind: 'links', link: { key: { ID: 3 }, many: false } });
    expect(parse('/Projects(7)/$links/TimeEntries/$count')).toMatchObject({ kind: 'links', count: true });
  });

  it('addresses function imports by name', () => {
    expect(parse('/StartStopWatch')).toEqual({ kind: 'functionImport', name: 'StartStopWatch', value: false });
    expect(parse('/CurrentStopWatch()')).toEqual({ kind: 'functionImport', name: 'CurrentStopWatch', value: false });
  });
});

describe('keys of every V2 literal type (Northwind fixture)', () => {
  it('reads composite keys in any order, and Guid keys', () => {
    const detail = { kind: 'entity', set: 'Order_Details', key: { OrderID: 10248, ProductID: 11 } };
    expect(parseNorthwind('/Order_Details(OrderID=10248,ProductID=11)')).toMatchObject(detail);
    expect(parseNorthwind('/Order_Details(ProductID=11,OrderID=10248)')).toMatchObject(detail);
    expect(parseNorthwind("/Shipments(guid'6F9619FF-8B86-D011-B42D-00C04FC964FF')")).toMatchObject({
      key: { ShipmentID: '6f9619ff-8b86-d011-b42d-00c04fc964ff' },
    });
    expect(parseNorthwind("/Shipments(ShipmentID=guid'6f9619ff-8b86-d011-b42d-00c04fc964ff')/Order/Order_Details(OrderID=1,ProductID=2)/Product")).toMatchObject({
      kind: 'entity',
      set: 'Products',
    });
  });

  it('writes key predicates that read back', () => {
    const detail = entityType(northwind, 'NorthwindModel.Order_Detail');
    expect(formatKeyPredicate(detail, northwind, { OrderID: 1, ProductID: 2 })).toBe('(OrderID=1,ProductID=2)');
    const shipment = entityType(northwind, 'NorthwindModel.Shipment');
    const text = formatKeyPredicate(shipment, northwind, { ShipmentID: '6f9619ff-8b86-d011-b42d-00c04fc964ff' });
    expect(text).toBe("(guid'6f9619ff-8b86-d011-b42d-00c04fc964ff')");
    expect(parseNorthwind(`/Shipments${text}`)).toMatchObject({ key: { ShipmentID: '6f9619ff-8b86-d011-b42d-00c04fc964ff' } });
  });

  it('addresses Int64 and Time properties of a keyed entity', () => {
    expect(parseNorthwind('/Orders(10248)/RowVersion/$value')).toMatchObject({ kind: 'property', properties: ['RowVersion'], value: true });
    expect(parseNorthwind('/Orders(10248)/PreferredDeliveryTime')).toMatchObject({ kind: 'property', properties: ['PreferredDeliveryTime'] });
  });
});

describe('resource path errors carry 404 or 400 and say where', () => {
  function failure(path: string, index = timetracking): Error {
    try {
      parseResourcePath(path, index);
    } catch (error) {
      return error as Error;
    }
    throw new Error(`accepted: ${path}`);
  }

  it.each([
    ['/Nope', 'the service has no entity set or function import named "Nope"'],
    ['/projects', 'named "projects"'],
    ['/Projects(7)/Nope', 'Service.Project has no property or navigation property named "Nope"'],
    ['/Projects(7)/$links/Name', 'Service.Project has no navigation property named "Name"'],
    ['/Other.Projects', 'named "Other.Projects"'],
  ])('404 for %s', (path, message) => {
    const error = failure(path);
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as ResourceNotFoundError).status).toBe(404);
    expect(error.message).toContain(message);
  });

  it.each([
    ["/Projects('7')", 'key ID of Projects(\'7\'): literal \'7\' is Edm.String, not a value of Edm.Int32'],
    ['/Projects(7L)', 'is Edm.Int64, not a value of Edm.Int32'],
    ['/Projects(null)', 'key ID of Projects(null) must not be null'],
    ['/Projects(1,2)', 'key values of Projects(1,2) must all be named'],
    ['/Projects(Name=1)', 'Name is not a key property of Service.Project'],
    ['/Projects(ID=1,ID=2)', 'key ID of Projects(ID=1,ID=2) is given twice'],
    ['/Projects(7', "does not end with ')'"],
    ['/Projects(ID=)', 'empty key value'],
    ['/Projects//Name', 'segment 2 of the resource path is empty'],
    ['/Projects/Name', 'follows a collection: address one entity by its key first'],
    ['/Projects(7)/Client(3)', 'leads to one entity and takes no key'],
    ['/Projects(7)/$count', '$count applies to a collection of entities'],
    ['/Projects(7)/$value', '$value applies to a media entity'],
    ['/Projects(7)/Name/$value/x', 'nothing may follow $value'],
    ['/Projects(7)/Name/Length', 'Name is a primitive property; only $value may follow it'],
    ['/$metadata/Projects', 'nothing may follow $metadata'],
    ['/StartStopWatch(1)', 'takes its parameters in the query string'],
    ['/StartStopWatch/$value', '$value applies to a function import returning a primitive value'],
    ['/Projects(%E0%A4%A)', 'invalid percent-encoding or UTF-8'],
    ['/Projects(%C0%AF)', 'invalid percent-encoding or UTF-8'],
    ['/Projects(%FF)', 'invalid percent-encoding or UTF-8'],
  ])('400 for %s', (path, message) => {
    const error = failure(path);
    expect(error).toBeInstanceOf(UriSyntaxError);
    expect((error as UriSyntaxError).status).toBe(400);
    expect(error.message).toContain(message);
  });

  it.each([
    ['/Order_Details(10248)', 'Order_Details(10248) has a key of 2 properties: name each as OrderID=...,ProductID=...'],
    ['/Order_Details(OrderID=1)', 'key ProductID of Order_Details(OrderID=1) is missing'],
    ["/Shipments('6f9619ff-8b86-d011-b42d-00c04fc964ff')", 'not a value of Edm.Guid'],
    ["/Shipments(guid'6f9619ff')", 'a Guid has 32 hex digits'],
  ])('400 for Northwind %s', (path, message) => {
    const error = failure(path, northwind);
    expect(error).toBeInstanceOf(UriSyntaxError);
    expect(error.message).toContain(message);
  });

  it('refuses a 10 MB key literal with a LimitError', () => {
    expect(() => parseResourcePath(`/Clients('${'x'.repeat(10 * 1024 * 1024)}')`, timetracking)).toThrow(LimitError);
  });
});
