// Row objects built in JavaScript from arrays of column values, by a function compiled per list
// of column names with the names as constants (odata/compiled-access.ts): the objects come out
// as fast objects of one shape, for a few µs a page.
import { compileFunction, storeCode } from '../../odata/compiled-access.js';

export type RowBuilder = (values: readonly unknown[]) => Record<string, unknown>;

export function compileRowBuilder(names: readonly string[]): RowBuilder {
  const stores = names.map((name, i) => `${storeCode('row', name, `values[${i}]`)};`);
  return compileFunction(['values'], `const row = {};\n${stores.join('\n')}\nreturn row;`);
}
