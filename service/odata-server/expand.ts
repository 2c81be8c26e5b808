// `$expand`: the related entities of a whole page, one query per navigation path (never one per
// entity), grouped back under their entities through the referential constraint. A request may
// expand at most `maxExpandedEntities` entities in all: a to-many expansion is not paged, so an
// unbounded one could pull a whole table into one response.
import type { EdmRecord } from '../../odata/edm.js';
import { LimitError } from '../../odata/errors.js';
import type { ExpandedNavigation, InlineEntry } from '../../odata/json-writer.js';
import type { EntitySet } from '../../odata/model.js';
import type { ExpandItem } from '../../odata/select-expand.js';
import type { MemberOf } from './data-source.js';
import type { Operation } from './operation.js';
import { keyOrder } from './operation.js';
import { constraintsFromAll, relationOf, tupleKey } from './relations.js';

/** The inline content of each record, aligned with `records`. */
export async function expandRecords<C>(
  op: Operation<C>,
  records: readonly EdmRecord[],
  items: readonly ExpandItem[],
): Promise<ExpandedNavigation[]> {
  const budget = { left: op.parts.maxExpandedEntities };
  return expandLevel(op, records, items, budget);
}

async function expandLevel<C>(
  op: Operation<C>,
  records: readonly EdmRecord[],
  items: readonly ExpandItem[],
  budget: { left: number },
): Promise<ExpandedNavigation[]> {
  const expanded: Record<string, InlineEntry | null | InlineEntry[]>[] = records.map(() => ({}));
  if (records.length === 0) return expanded;
  for (const item of items) {
    const relation = relationOf(op.parts.index, item.navigation);
    const constraints = constraintsFromAll(relation, records);
    const toMany = item.navigation.multiplicity === '*';
    const related = constraints.some((c) => c.values.length === 0) ? [] : await fetchRelated(op, item.set, constraints, budget);
    const nested = item.expand.length > 0 ? await expandLevel(op, related, item.expand, budget) : undefined;
    const groups = new Map<string, InlineEntry[]>();
    related.forEach((record, i) => {
      const key = tupleKey(record, relation.target);
      if (key === undefined) return;
      const etag = op.parts.representations.etagOf(item.set, record);
      const entry: InlineEntry = { record, ...(etag === undefined ? {} : { etag }), ...(nested === undefined ? {} : { expanded: nested[i] }) };
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [entry]);
      else group.push(entry);
    });
    records.forEach((record, i) => {
      const key = tupleKey(record, relation.source);
      const group = key === undefined ? undefined : groups.get(key);
      (expanded[i] as Record<string, InlineEntry | null | InlineEntry[]>)[item.navigation.name] = toMany ? (group ?? []) : (group?.[0] ?? null);
    });
  }
  return expanded;
}

async function fetchRelated<C>(
  op: Operation<C>,
  set: EntitySet,
  constraints: readonly MemberOf[],
  budget: { left: number },
): Promise<readonly EdmRecord[]> {
  const type = op.parts.index.typeOfSet(set);
  const page = await op.parts.dataSource.query(op.caller, {
    set,
    type,
    constraints,
    orderBy: keyOrder(op.parts.index, type),
    limit: budget.left,
  });
  if (page.next !== undefined) {
    throw new LimitError(`$expand would inline more than ${op.parts.maxExpandedEntities} entities; read the related entities by navigation, page by page`, '$expand');
  }
  budget.left -= page.records.length;
  return page.records;
}
