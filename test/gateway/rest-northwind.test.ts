// A second, unrelated model through the same gateway code: the Northwind fixture's codegen output
// drives the routes, checks and documents, in front of an upstream built from our own OData
// server over in-memory rows. Every operation of its openapi.json runs (upstream JSON and Atom),
// each answer validated against that document: Guid and composite keys, Int64 beyond 2^53,
// Decimal, DateTime, DateTimeOffset with its offset, Time, Binary, ETags without a version
// property, function imports returning entities, collections and complex values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRestSurface } from '../../codegen/rest-surface.js';
import type { RunningGateway } from '../../gateway/start.js';
import { dateTimeOffset, time } from '../../odata/edm.js';
import type { EdmRecord } from '../../odata/edm.js';
import { model } from '../fixtures/northwind/generated/model.js';
import { NORTHWIND_GENERATED_DIR, artefactsOf, startGatewayInFront } from '../helpers/gateway.js';
import type { MemoryUpstream } from '../helpers/memory-data-source.js';
import { startMemoryUpstream } from '../helpers/memory-data-source.js';
import { RestContract } from './rest-contract.js';
import { sweepSelections } from './selection-sweep.js';

const SHIPMENT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

function seed(): Map<string, EdmRecord[]> {
  return new Map<string, EdmRecord[]>([
    ['Categories', [
      { CategoryID: 1, CategoryName: 'Beverages', Description: 'Soft drinks, coffees, teas', Picture: Uint8Array.from([1, 2, 3, 250]) },
      { CategoryID: 2, CategoryName: 'Condiments', Description: null, Picture: null },
    ]],
    ['Suppliers', [{ SupplierID: 1, CompanyName: 'Exotic Liquids', ContactName: 'Charlotte Cooper', Address: null, City: 'London', Country: 'UK', Phone: null, HomePage: null }]],
    ['Products', [
      { ProductID: 1, ProductName: 'Chai', SupplierID: 1, CategoryID: 1, QuantityPerUnit: '10 boxes', UnitPrice: '18', UnitsInStock: 39, UnitsOnOrder: 0, ReorderLevel: 10, Rating: 4, Discontinued: false },
      { ProductID: 2, ProductName: 'Chang', SupplierID: 1, CategoryID: 1, QuantityPerUnit: '24 bottles', UnitPrice: '19.5', UnitsInStock: 17, UnitsOnOrder: 40, ReorderLevel: 25, Rating: null, Discontinued: false },
      { ProductID: 3, ProductName: 'Aniseed Syrup', SupplierID: 1, CategoryID: 2, QuantityPerUnit: null, UnitPrice: '10', UnitsInStock: 13, UnitsOnOrder: 70, ReorderLevel: 25, Rating: -1, Discontinued: false },
    ]],
    ['Orders', [{
      OrderID: 10248, CustomerID: 'VINET', EmployeeID: 5, OrderDate: new Date(Date.UTC(1996, 6, 4)), RequiredDate: new Date(Date.UTC(1996, 7, 1, 12, 30)),
      ShippedDate: null, PreferredDeliveryTime: time(9 * 3600_000 + 30 * 60_000), ShipVia: 3, Freight: '32.38', ShipName: 'Vins et alcools', ShipCity: 'Reims', ShipCountry: 'France', RowVersion: '7',
    }]],
    ['Order_Details', [
      { OrderID: 10248, ProductID: 1, UnitPrice: '14', Quantity: 12, Discount: 0 },
      { OrderID: 10248, ProductID: 2, UnitPrice: '9.8', Quantity: 10, Discount: 0.25 },
    ]],
    ['Shipments', [{
      ShipmentID: SHIPMENT, OrderID: 10248, Carrier: 'DHL', TrackingNumber: '9007199254740993', ShippedAt: dateTimeOffset(new Date(Date.UTC(1996, 6, 10, 8)), 120),
      WeightKg: 2.5, PackageCount: 2, Label: Uint8Array.from([0xde, 0xad, 0xbe, 0xef]),
    }]],
  ]);
}

describe.each(['json', 'atom'] as const)('the Northwind model through the gateway (upstream %s)', (format) => {
  let upstream: MemoryUpstream;
  let gateway: RunningGateway;
  let contract: RestContract;
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway.restRoot}${path}`, {
      method,
      headers: { 'x-serviceapikey': 'northwind', ...(body === undefined ? {} : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const check = async (operationId: string, method: string, path: string, status: number, body?: unknown, headers?: Record<string, string>) =>
    (await contract.check(operationId, await call(method, path, body, headers), status)).body as Record<string, unknown> & { items: Record<string, unknown>[] };

  beforeAll(async () => {
    const artefacts = await artefactsOf(NORTHWIND_GENERATED_DIR);
    contract = new RestContract(artefacts.openapi);
    upstream = await startMemoryUpstream(model, seed(), {
      GetProductsAbovePrice: (p, rows) => (rows.get('Products') ?? []).filter((r) => Number(r.UnitPrice) > Number(p.MinUnitPrice) && (p.CategoryID === null || r.CategoryID === p.CategoryID)),
      GetShipmentSummary: (p, rows) => {
        const shipments = (rows.get('Shipments') ?? []).filter((s) => s.OrderID === p.OrderID);
        return { OrderID: p.OrderID ?? null, ShipmentCount: shipments.length, TotalWeightKg: shipments.reduce((sum, s) => sum + Number(s.WeightKg ?? 0), 0), LastShippedAt: shipments[0]?.ShippedAt ?? null } as EdmRecord;
      },
      FindShipment: (p, rows) => (rows.get('Shipments') ?? []).find((s) => s.ShipmentID === p.ShipmentID) as EdmRecord,
      DiscontinueProduct: (p, rows) => {
        const product = (rows.get('Products') ?? []).find((r) => r.ProductID === p.ProductID) as EdmRecord;
        product.Discontinued = true;
        return product;
      },
    });
    gateway = await startGatewayInFront(upstream.root, { format, artefacts, features: [] });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('reads every set in REST shapes: Decimal (with the places of its Scale), Int64 and Guid as strings, RFC 3339 dates, offsets, durations, base64', async () => {
    expect((await check('listCategories', 'GET', '/categories?count=true', 200)).total).toBe(2);
    expect((await check('getCategory', 'GET', '/categories/1', 200)).picture).toBe(Buffer.from([1, 2, 3, 250]).toString('base64'));
    expect((await check('listSuppliers', 'GET', '/suppliers', 200)).items[0]?.companyName).toBe('Exotic Liquids');
    expect((await check('getSupplier', 'GET', '/suppliers/1', 200)).city).toBe('London');
    const pricey = await check('listProducts', 'GET', `/products?filter=${encodeURIComponent('unitPrice gt 15')}&orderBy=${encodeURIComponent('unitPrice desc')}`, 200);
    expect(pricey.items.map((p) => [p.productName, p.unitPrice])).toEqual([['Chang', '19.5000'], ['Chai', '18.0000']]);
    expect((await check('getProduct', 'GET', '/products/3', 200)).rating).toBe(-1);
    const order = await check('getOrder', 'GET', '/orders/10248', 200);
    expect(order).toMatchObject({ orderDate: '1996-07-04T00:00:00Z', requiredDate: '1996-08-01T12:30:00Z', shippedDate: null, preferredDeliveryTime: 'PT9H30M', freight: '32.3800', rowVersion: '7' });
    expect((await check('listOrders', 'GET', '/orders?customerId=VINET', 200)).items).toHaveLength(1);
    expect((await check('listOrderDetails', 'GET', '/order-details?orderId=10248&orderBy=productId', 200)).items.map((d) => d.discount)).toEqual([0, 0.25]);
    expect(await check('getOrderDetail', 'GET', '/order-details/10248/2', 200)).toMatchObject({ orderId: 10248, productId: 2, unitPrice: '9.8000', quantity: 10 });
    const shipment = await check('getShipment', 'GET', `/shipments/${SHIPMENT.toUpperCase()}`, 200);
    expect(shipment).toMatchObject({ shipmentId: SHIPMENT, trackingNumber: '9007199254740993', shippedAt: '1996-07-10T10:00:00+02:00', weightKg: 2.5, packageCount: 2, label: '3q2+7w==' });
    expect((await check('listShipments', 'GET', `/shipments?trackingNumber=9007199254740993`, 200)).items).toHaveLength(1);
  });

  it('follows every navigation, composite and Guid keys included', async () => {
    expect((await check('listCategoryProducts', 'GET', '/categories/1/products', 200)).items.map((p) => p.productId)).toEqual([1, 2]);
    expect((await check('listSupplierProducts', 'GET', '/suppliers/1/products?limit=2', 200)).next).toMatch(/^\/api\/v1\/suppliers\/1\/products\?cursor=/);
    expect((await check('getProductCategory', 'GET', '/products/3/category', 200)).categoryName).toBe('Condiments');
    expect((await check('getProductSupplier', 'GET', '/products/3/supplier', 200)).supplierId).toBe(1);
    expect((await check('listProductOrderDetails', 'GET', '/products/1/order-details', 200)).items.map((d) => d.orderId)).toEqual([10248]);
    expect((await check('listOrderOrderDetails', 'GET', '/orders/10248/order-details?expand=product', 200)).items.map((d) => (d.product as { productName: string }).productName)).toEqual(['Chai', 'Chang']);
    expect((await check('listOrderShipments', 'GET', '/orders/10248/shipments', 200)).items.map((s) => s.shipmentId)).toEqual([SHIPMENT]);
    expect((await check('getOrderDetailOrder', 'GET', '/order-details/10248/1/order', 200)).orderId).toBe(10248);
    expect((await check('getOrderDetailProduct', 'GET', '/order-details/10248/1/product', 200)).productName).toBe('Chai');
    expect((await check('getShipmentOrder', 'GET', `/shipments/${SHIPMENT}/order`, 200)).shipName).toBe('Vins et alcools');
  });

  it('calls function imports returning entities, collections and complex values', async () => {
    const above = (await contract.check('getProductsAbovePrice', await call('GET', '/get-products-above-price?minUnitPrice=15&categoryId=1'), 200)).body as { productName: string }[];
    expect(above.map((p) => p.productName)).toEqual(['Chai', 'Chang']);
    expect(await check('getShipmentSummary', 'GET', '/get-shipment-summary?orderId=10248', 200)).toEqual({ orderId: 10248, shipmentCount: 1, totalWeightKg: 2.5, lastShippedAt: '1996-07-10T10:00:00+02:00' });
    expect((await check('findShipment', 'GET', `/find-shipment?shipmentId=${SHIPMENT}`, 200)).carrier).toBe('DHL');
    expect((await check('discontinueProduct', 'POST', '/discontinue-product', 200, { productId: 3 })).discontinued).toBe(true);
  });

  it('creates, updates and deletes in every set, with Location headers in REST key paths', async () => {
    // The answer holds what was sent, decimals with every place of their Scale (4).
    const created: [string, string, string, Record<string, unknown>, Record<string, unknown>?][] = [
      ['Category', '/categories', '/categories/3', { categoryId: 3, categoryName: 'Produce', picture: 'AAEC' }],
      ['Supplier', '/suppliers', '/suppliers/2', { supplierId: 2, companyName: 'Tokyo Traders', country: 'Japan' }],
      ['Product', '/products', '/products/4', { productId: 4, productName: 'Tofu', unitPrice: '23.25', categoryId: 3, supplierId: 2 }, { unitPrice: '23.2500' }],
      ['Order', '/orders', '/orders/10249', { orderId: 10249, orderDate: '1996-07-05T00:00:00Z', preferredDeliveryTime: 'PT14H', freight: '11.61' }, { freight: '11.6100' }],
      ['OrderDetail', '/order-details', '/order-details/10249/4', { orderId: 10249, productId: 4, unitPrice: '18.6', quantity: 9 }, { unitPrice: '18.6000' }],
      ['Shipment', '/shipments', '/shipments/11111111-2222-3333-4444-555555555555', { shipmentId: '11111111-2222-3333-4444-555555555555', orderId: 10249, carrier: 'UPS', trackingNumber: '-9223372036854775808', shippedAt: '1996-07-06T09:00:00-05:00' }],
    ];
    for (const [type, path, location, body, answered] of created) {
      const response = await call('POST', path, body);
      expect(response.headers.get('location')).toBe(`/api/v1${location}`);
      expect(await contract.check(`create${type}`, response, 201).then((c) => c.body)).toMatchObject({ ...body, ...answered });
    }
    const order = await call('GET', '/orders/10249');
    const etag = order.headers.get('etag') as string;
    await order.text();
    // Order declares a concurrency token (RowVersion, ConcurrencyMode="Fixed"): the upstream's
    // ETag is handed out as it is, and If-Match goes to the upstream, which refuses a stale one.
    expect(etag).toBe('W/"0L"');
    await contract.check('updateOrder', await call('PATCH', '/orders/10249', { shipCity: 'Paris' }, { 'if-match': 'W/"X\'99\'"' }), 412);
    expect(await check('updateOrder', 'PATCH', '/orders/10249', 200, { shipCity: 'Lyon', freight: '12.5' }, { 'if-match': etag })).toMatchObject({ shipCity: 'Lyon', freight: '12.5000' });
    expect(await check('updateCategory', 'PATCH', '/categories/3', 200, { description: 'Fruit' })).toMatchObject({ description: 'Fruit' });
    expect(await check('updateSupplier', 'PATCH', '/suppliers/2', 200, { city: 'Tokyo' })).toMatchObject({ city: 'Tokyo' });
    expect(await check('updateProduct', 'PATCH', '/products/4', 200, { unitsInStock: 35 })).toMatchObject({ unitsInStock: 35 });
    expect(await check('updateOrderDetail', 'PATCH', '/order-details/10249/4', 200, { discount: 0.1 })).toMatchObject({ discount: 0.1 });
    expect(await check('updateShipment', 'PATCH', '/shipments/11111111-2222-3333-4444-555555555555', 200, { weightKg: 1.25 })).toMatchObject({ weightKg: 1.25 });
    for (const [type, , location] of [...created].reverse()) {
      await contract.check(`delete${type}`, await call('DELETE', location), 204);
      await contract.check(`get${type}`, await call('GET', location), 404);
    }
    expect(upstream.source.rows.get('Shipments')).toHaveLength(1);
  });

  it('creates several items of every set at once through one upstream changeset; an invalid item is refused by its index before the upstream', async () => {
    const batches: [string, string, Record<string, unknown>[]][] = [
      ['Categories', '/categories', [{ categoryId: 20, categoryName: 'Grains' }, { categoryId: 21, categoryName: 'Seafood', picture: 'AAEC' }]],
      ['Suppliers', '/suppliers', [{ supplierId: 20, companyName: 'Pavlova' }]],
      ['Products', '/products', [{ productId: 20, productName: 'Ikura', unitPrice: '31', categoryId: 21, supplierId: 20 }]],
      ['Orders', '/orders', [{ orderId: 10300, orderDate: '1996-07-08T00:00:00Z', freight: '1.5' }]],
      ['OrderDetails', '/order-details', [{ orderId: 10300, productId: 20, unitPrice: '31', quantity: 2 }, { orderId: 10300, productId: 1, unitPrice: '14', quantity: 1 }]],
      ['Shipments', '/shipments', [{ shipmentId: '21111111-2222-3333-4444-555555555555', orderId: 10300, carrier: 'UPS', trackingNumber: '12', shippedAt: '1996-07-09T09:00:00+02:00' }]],
    ];
    for (const [name, path, items] of batches) {
      const answer = await check(`batchCreate${name}`, 'POST', `${path}:batch`, 201, items);
      expect(answer.items).toHaveLength(items.length);
      items.forEach((item, i) => expect(answer.items[i]).toMatchObject(Object.fromEntries(Object.entries(item).filter(([key]) => !['unitPrice', 'freight'].includes(key)))));
    }
    // An invalid second item: refused by the gateway, naming it, before the upstream.
    const before = upstream.requestCount();
    const problem = await contract.problem(await call('POST', '/categories:batch', [{ categoryId: 22, categoryName: 'Dairy' }, { categoryId: 'x', categoryName: 'Twice' }]), 422);
    expect(problem.errors?.map((e) => e.pointer)).toEqual(['/1/categoryId']);
    expect(upstream.requestCount()).toBe(before);
  });

  it('refuses bad keys of every kind before the upstream', async () => {
    const before = upstream.requestCount();
    // An encoded colon is part of the key (no Guid), not the `:select` twin of the Guid before it.
    for (const path of ['/shipments/not-a-guid', `/shipments/${SHIPMENT}%3Aselect?select=carrier`, '/order-details/10248', '/order-details/10248/x', '/products/2147483648', '/shipments?trackingNumber=12x']) {
      const response = await call('GET', path);
      expect([400, 404]).toContain(response.status);
      await contract.problem(response, response.status);
    }
    expect(upstream.requestCount()).toBe(before);
  });

  it('answers every `:select` read, composite and Guid keys included, with only what it selected', async () => {
    await sweepSelections(describeRestSurface(model), contract, (path) => call('GET', path));
  });

  it('has exercised every operation of the Northwind openapi.json', () => {
    expect(contract.unexercised()).toEqual([]);
  });
});
