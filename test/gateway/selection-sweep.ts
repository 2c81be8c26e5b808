// Every `:select` read of a REST surface once, checked against the contract: a list, an item and
// each navigation of every set, each selecting the first key property of what it reads. The
// answer holds that property and nothing else; the plain read of the same item holds them all.
import { expect } from 'vitest';
import type { RestSurface, SetResource } from '../../codegen/rest-surface.js';
import { selectionPathOf } from '../../codegen/rest-surface.js';
import type { RestContract } from './rest-contract.js';

type Json = Record<string, unknown>;

function keyName(resource: SetResource): string {
  return resource.keys[0]?.restName as string;
}

/** `/order-details/{orderId}/{productId}` with the item's key values. */
function filled(path: string, item: Json): string {
  return path.replace(/\{([^}]+)\}/g, (_all, name: string) => encodeURIComponent(String(item[name])));
}

function expectOnly(body: unknown, property: string): void {
  expect(Object.keys(body as Json)).toEqual([property]);
}

export async function sweepSelections(surface: RestSurface, contract: RestContract, get: (path: string) => Promise<Response>): Promise<void> {
  for (const resource of surface.sets) {
    const ids = resource.operationIds;
    const key = keyName(resource);
    const page = await contract.check(ids.list as string, await get(`${resource.collectionPath}?limit=1`), 200);
    const item = (page.body as { items: Json[] }).items[0];
    expect(item, `${resource.set.name} has an item to select from`).toBeDefined();
    const whole = item as Json;
    expect(Object.keys(whole).length).toBeGreaterThan(1);

    const list = await contract.check(ids.listSelection as string, await get(`${selectionPathOf(resource.collectionPath)}?select=${key}&limit=2`), 200);
    for (const selected of (list.body as { items: Json[] }).items) expectOnly(selected, key);

    const one = await contract.check(ids.getSelection, await get(`${filled(selectionPathOf(resource.itemPath), whole)}?select=${key}`), 200);
    expect(one.body).toEqual({ [key]: whole[key] });

    for (const navigation of resource.navigations) {
      const targetKey = keyName(navigation.target);
      const response = await get(`${filled(selectionPathOf(navigation.path), whole)}?select=${targetKey}`);
      if (navigation.isCollection) {
        const related = await contract.check(navigation.selectionOperationId, response, 200);
        for (const selected of (related.body as { items: Json[] }).items) expectOnly(selected, targetKey);
      } else {
        // A link to one may be empty for this item: 404, as the plain read answers.
        const related = await contract.check(navigation.selectionOperationId, response, response.status === 404 ? 404 : 200);
        if (related.status === 200) expectOnly(related.body, targetKey);
      }
    }
  }
}
