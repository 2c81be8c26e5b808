// Kept apart from client.test.ts: codegen/format.ts formats a second text under the same
// file name wrongly within one process (reported), and types.ts is emitted for each model.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { emitClient } from '../../codegen/emit-client.js';
import { emitTypes } from '../../codegen/emit-types.js';
import { lintMessages, tempFolders, typeErrors } from '../helpers/emitted-code.js';

const freshDir = tempFolders();

async function emitInto(edmx: string, extra: Record<string, string>): Promise<string> {
  const dir = freshDir('client-northwind-');
  const model = readEdmx(readFileSync(edmx, 'utf8'));
  for (const file of [...(await emitTypes(model)), ...(await emitClient(model))]) {
    writeFileSync(path.join(dir, file.path), file.contents);
  }
  for (const [name, text] of Object.entries(extra)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const northwindUsage = `
import { createClient } from './client.js';
import type * as T from './types.js';

const client = createClient({ baseUrl: 'http://localhost:8080/api/v1', fetch: (input, init) => fetch(input, init) });

export async function use(): Promise<string> {
  const line: T.OrderDetail = await client.orderDetails.get({ orderId: 10248, productId: 11 });
  // @ts-expect-error a composite key needs every key property
  await client.orderDetails.get({ orderId: 10248 });
  // @ts-expect-error a composite key is no single value
  await client.orderDetails.get(10248);
  await client.orderDetails.update({ orderId: 10248, productId: 11 }, { quantity: 3 });
  const shipment: T.Shipment = await client.shipments.get('0f8fad5b-d9cb-469f-a165-70867728950e');
  const product: T.Product = await client.orderDetails.product({ orderId: 10248, productId: 11 });
  const cheap: T.Product[] = await client.getProductsAbovePrice({ minUnitPrice: '10.00' });
  const quantity: number = line.quantity;
  const selected: T.OrderDetailSelection = await client.orderDetails.get({ orderId: 10248, productId: 11 }, { select: 'quantity' });
  // @ts-expect-error a selected line may lack its quantity
  const selectedQuantity: number = selected.quantity;
  const lines: T.OrderDetail[] = await client.orderDetails.createAll([{ orderId: 10248, productId: 11, unitPrice: '14.00' }]);
  // @ts-expect-error unitPrice is required on create, in bulk too
  await client.orderDetails.createAll([{ orderId: 10248, productId: 11 }]);
  return line.unitPrice + shipment.shipmentId + product.productName + cheap.length + quantity + selectedQuantity + lines.length;
}
`;

describe('client.ts of the Northwind fixture', () => {
  it('type-checks and lints clean, composite keys as objects', async () => {
    const dir = await emitInto('test/fixtures/northwind/northwind.edmx', { 'usage.ts': northwindUsage });
    const files = ['types.ts', 'client.ts', 'usage.ts'].map((f) => path.join(dir, f));
    expect(typeErrors(files)).toEqual([]);
    expect(await lintMessages([path.join(dir, 'client.ts')])).toEqual([]);
  }, 60_000);

});
