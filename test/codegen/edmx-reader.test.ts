import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { indexModel } from '../../odata/model-index.js';

const model = readEdmx(readFileSync('spec/timetracking.edmx', 'utf8'));
const index = indexModel(model);

function entityType(name: string) {
  const type = index.entityType(`Service.${name}`);
  if (!type) throw new Error(`no entity type ${name}`);
  return type;
}

describe('readEdmx on spec/timetracking.edmx', () => {
  it('reads the schema and container names and the data service version', () => {
    expect(model.namespace).toBe('Service');
    expect(model.containerNamespace).toBe('Service');
    expect(model.containerName).toBe('TimeTrackingService');
    expect(model.dataServiceVersion).toBe('2.0');
  });

  it('reads six entity sets with their REST paths and SAP capabilities', () => {
    expect(model.entitySets.map((s) => [s.name, s.restPath, s.entityType])).toEqual([
      ['Projects', 'projects', 'Service.Project'],
      ['Clients', 'clients', 'Service.Client'],
      ['Tasks', 'tasks', 'Service.Task'],
      ['TimeEntries', 'time-entries', 'Service.TimeEntry'],
      ['Users', 'users', 'Service.User'],
      ['AccountSettings', 'account-settings', 'Service.AccountSetting'],
    ]);
    expect(index.entitySet('Users')?.capabilities).toEqual({
      creatable: false, updatable: false, deletable: false, pageable: true, addressable: true,
    });
    expect(index.entitySet('Projects')?.capabilities.creatable).toBe(true);
  });

  it('reads properties with facets, defaults, capabilities and REST names', () => {
    const project = entityType('Project');
    expect(project.key).toEqual(['ID']);
    const byName = Object.fromEntries(project.properties.map((p) => [p.name, p]));
    expect(byName.ID).toMatchObject({ restName: 'id', type: 'Edm.Int32', nullable: false, capabilities: { creatable: false, updatable: false } });
    expect(byName.Name).toMatchObject({ restName: 'name', maxLength: 50, nullable: false });
    expect(byName.Active).toMatchObject({ defaultValue: 'false' });
    expect(byName.HourlyRate).toMatchObject({ type: 'Edm.Decimal', precision: 18, scale: 2, nullable: true });
    expect(byName.ClientID?.restName).toBe('clientId');
    expect(byName.LastChangeTime).toMatchObject({ restName: 'lastChangeTime', precision: 3 });
    expect(byName.Comment?.capabilities).toEqual({ creatable: true, updatable: true, filterable: true, sortable: false });
  });

  it('keeps foreign annotations in document order, by prefixed name', () => {
    const typeId = entityType('TimeEntry').properties.find((p) => p.name === 'TypeID');
    expect(Object.keys(typeId?.annotations ?? {})).toEqual(['sap:creatable', 'sap:updatable', 'sap:filterable', 'sap:sortable', 'tg:enum']);
    expect(typeId?.annotations['tg:enum']).toBe('Duration=1,StartEnd=2');
    expect(model.annotationNamespaces).toEqual({ sap: 'http://www.sap.com/Protocols/SAPData', tg: 'urn:timegate:annotations:v1' });
  });

  it('resolves navigation properties to their target type and multiplicity', () => {
    const navs = (name: string) => entityType(name).navigationProperties.map((n) => [n.name, n.restName, n.targetType, n.multiplicity]);
    expect(navs('Project')).toEqual([
      ['Client', 'client', 'Service.Client', '0..1'],
      ['TimeEntries', 'timeEntries', 'Service.TimeEntry', '*'],
    ]);
    expect(navs('TimeEntry')).toEqual([
      ['Project', 'project', 'Service.Project', '1'],
      ['Task', 'task', 'Service.Task', '0..1'],
      ['User', 'user', 'Service.User', '1'],
    ]);
    expect(index.navigationTarget(index.entitySet('Projects')!, entityType('Project').navigationProperties[1]!).name).toBe('TimeEntries');
  });

  it('reads associations with referential constraints and association sets', () => {
    expect(model.associations).toHaveLength(4);
    expect(model.associationSets).toHaveLength(4);
    const projectClient = model.associations.find((a) => a.name === 'Project_Client');
    expect(projectClient?.referentialConstraint).toEqual({
      principal: { role: 'Client', properties: ['ID'] },
      dependent: { role: 'Project', properties: ['ClientID'] },
    });
  });

  it('reads the complex type ChangeSet', () => {
    const changeSet = index.complexType('Service.ChangeSet');
    expect(changeSet?.properties).toHaveLength(12);
    expect(changeSet?.properties.find((p) => p.name === 'DeletedTimeEntryIDs')?.restName).toBe('deletedTimeEntryIds');
  });

  it('reads function imports with parameters and their REST operations from tg:rest', () => {
    expect(model.functionImports.map((f) => [f.name, f.restName, f.httpMethod, `${f.rest.method} ${f.rest.path}`, f.returnType, f.entitySet])).toEqual([
      ['CurrentStopWatch', 'currentStopWatch', 'GET', 'GET /stopwatch', 'Service.TimeEntry', 'TimeEntries'],
      ['StartStopWatch', 'startStopWatch', 'GET', 'POST /stopwatch', 'Service.TimeEntry', 'TimeEntries'],
      ['HaltStopWatch', 'haltStopWatch', 'GET', 'POST /stopwatch/halt', 'Service.TimeEntry', 'TimeEntries'],
      ['GetChangesDigest', 'getChangesDigest', 'GET', 'GET /changes-digest', 'Service.ChangeSet', undefined],
    ]);
    const start = index.functionImport('StartStopWatch');
    expect(start?.parameters[0]).toEqual({ name: 'ProjectID', restName: 'projectId', type: 'Edm.Int32', nullable: false, mode: 'In' });
    expect(start?.parameters.find((p) => p.name === 'Comment')).toMatchObject({ nullable: true, maxLength: 1500 });
    expect(index.functionImport('GetChangesDigest')?.parameters).toEqual([
      { name: 'LastSynchronizationTime', restName: 'lastSynchronizationTime', type: 'Edm.DateTime', nullable: false, mode: 'In', precision: 3 },
    ]);
  });

  it('is deterministic: the same document gives the same model', () => {
    expect(readEdmx(readFileSync('spec/timetracking.edmx', 'utf8'))).toEqual(model);
  });
});

describe('readEdmx on the Northwind fixture (no sap: or tg: annotations)', () => {
  const northwind = readEdmx(readFileSync('test/fixtures/northwind/northwind.edmx', 'utf8'));
  const nw = indexModel(northwind);
  const type = (name: string) => {
    const found = nw.entityType(`NorthwindModel.${name}`);
    if (!found) throw new Error(`no entity type ${name}`);
    return found;
  };

  it('reads the namespace, container and sets, with REST paths from the set names', () => {
    expect(northwind.namespace).toBe('NorthwindModel');
    expect(northwind.containerName).toBe('NorthwindEntities');
    expect(northwind.entitySets.map((s) => s.restPath)).toEqual(['categories', 'suppliers', 'products', 'orders', 'order-details', 'shipments']);
    expect(northwind.annotationNamespaces).toEqual({});
  });

  it('applies SAP defaults when there are no sap: annotations: everything allowed', () => {
    expect(nw.entitySet('Order_Details')?.capabilities).toEqual({ creatable: true, updatable: true, deletable: true, pageable: true, addressable: true });
    expect(type('Product').properties.every((p) => Object.values(p.capabilities).every(Boolean))).toBe(true);
  });

  it('reads the composite key and the Guid key', () => {
    expect(type('Order_Detail').key).toEqual(['OrderID', 'ProductID']);
    expect(type('Shipment').key).toEqual(['ShipmentID']);
    expect(type('Shipment').properties[0]).toMatchObject({ name: 'ShipmentID', restName: 'shipmentId', type: 'Edm.Guid', nullable: false });
  });

  it('reads every primitive kind with its facets', () => {
    const types = new Map([...northwind.entityTypes, ...northwind.complexTypes].flatMap((t) => t.properties.map((p) => [p.type, p])));
    expect([...types.keys()].sort()).toEqual([
      'Edm.Binary', 'Edm.Boolean', 'Edm.Byte', 'Edm.DateTime', 'Edm.DateTimeOffset', 'Edm.Decimal', 'Edm.Double',
      'Edm.Guid', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.SByte', 'Edm.Single', 'Edm.String', 'Edm.Time',
    ]);
    const product = Object.fromEntries(type('Product').properties.map((p) => [p.name, p]));
    expect(product.UnitPrice).toMatchObject({ type: 'Edm.Decimal', precision: 19, scale: 4, defaultValue: '0' });
    const order = Object.fromEntries(type('Order').properties.map((p) => [p.name, p]));
    expect(order.CustomerID).toMatchObject({ maxLength: 5, fixedLength: true, unicode: true });
    expect(order.RowVersion).toMatchObject({ type: 'Edm.Int64', concurrencyMode: 'Fixed' });
    expect(type('Category').properties.find((p) => p.name === 'Description')?.maxLength).toBe('Max');
  });

  it('navigates both ways with the right multiplicities, through the association sets', () => {
    expect(type('Product').navigationProperties.map((n) => [n.restName, n.multiplicity])).toEqual([
      ['category', '0..1'], ['supplier', '0..1'], ['orderDetails', '*'],
    ]);
    expect(type('Order_Detail').navigationProperties.map((n) => [n.restName, n.multiplicity])).toEqual([['order', '1'], ['product', '1']]);
    const orders = nw.entitySet('Orders')!;
    expect(nw.navigationTarget(orders, nw.navigation(type('Order'), 'Order_Details')!).name).toBe('Order_Details');
    expect(northwind.associations.find((a) => a.name === 'FK_Shipments_Orders')?.ends[0].onDelete).toBe('Cascade');
  });

  it('derives REST operations of function imports from m:HttpMethod and the name', () => {
    expect(northwind.functionImports.map((f) => [f.restName, `${f.rest.method} ${f.rest.path}`, f.returnType])).toEqual([
      ['getProductsAbovePrice', 'GET /get-products-above-price', 'Collection(NorthwindModel.Product)'],
      ['getShipmentSummary', 'GET /get-shipment-summary', 'NorthwindModel.ShipmentSummary'],
      ['findShipment', 'GET /find-shipment', 'NorthwindModel.Shipment'],
      ['discontinueProduct', 'POST /discontinue-product', 'NorthwindModel.Product'],
    ]);
    expect(nw.functionImport('GetProductsAbovePrice')?.parameters).toEqual([
      { name: 'MinUnitPrice', restName: 'minUnitPrice', type: 'Edm.Decimal', nullable: false, mode: 'In', precision: 19, scale: 4 },
      { name: 'CategoryID', restName: 'categoryId', type: 'Edm.Int32', nullable: true, mode: 'In' },
    ]);
  });
});
