// The two models the URI and $filter suites run against, read from their EDMX once per file.
import { readFileSync } from 'node:fs';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { indexModel } from '../../odata/model-index.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntityType } from '../../odata/model.js';

function load(path: string): ModelIndex {
  return indexModel(readEdmx(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')));
}

export const timetracking = load('spec/timetracking.edmx');
export const northwind = load('test/fixtures/northwind/northwind.edmx');

export function entityType(index: ModelIndex, fullName: string): EntityType {
  const type = index.entityType(fullName);
  if (!type) throw new Error(`no entity type ${fullName}`);
  return type;
}
