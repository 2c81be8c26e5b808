// How a navigation property maps onto property values, from its association's referential
// constraint: following `Project/TimeEntries` means "TimeEntries whose ProjectID is the
// project's ID", following `TimeEntry/Project` "the Project whose ID is the entry's ProjectID".
// Navigation paths, `$expand` and creates below a parent all reduce to such constraints, so a
// data source only ever answers queries on one entity set.
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { NavigationProperty } from '../../odata/model.js';
import type { MemberOf } from './data-source.js';
import { NotImplementedError } from './errors.js';

export interface Relation {
  /** Properties of the entity navigated from, in constraint order. */
  readonly source: readonly string[];
  /** The properties of the target that must equal them, in the same order. */
  readonly target: readonly string[];
}

const relations = new WeakMap<NavigationProperty, Relation>();

export function relationOf(index: ModelIndex, nav: NavigationProperty): Relation {
  let relation = relations.get(nav);
  if (relation === undefined) {
    const association = index.model.associations.find((a) => a.fullName === nav.relationship);
    const constraint = association?.referentialConstraint;
    if (constraint === undefined) {
      throw new NotImplementedError(`navigation ${nav.name} has no referential constraint in the model, so it cannot be followed`);
    }
    const fromPrincipal = constraint.principal.role === nav.fromRole;
    relation = fromPrincipal
      ? { source: constraint.principal.properties, target: constraint.dependent.properties }
      : { source: constraint.dependent.properties, target: constraint.principal.properties };
    relations.set(nav, relation);
  }
  return relation;
}

/** Constraints selecting what `nav` leads to from one entity; undefined when a source value is null. */
export function constraintsFrom(relation: Relation, record: EdmRecord): MemberOf[] | undefined {
  const constraints: MemberOf[] = [];
  for (let i = 0; i < relation.source.length; i++) {
    const value = record[relation.source[i] as string];
    if (value === null || value === undefined || isRecord(value)) return undefined;
    constraints.push({ property: relation.target[i] as string, values: [value] });
  }
  return constraints;
}

/** Constraints selecting (a superset of) what `nav` leads to from any of `records`. */
export function constraintsFromAll(relation: Relation, records: readonly EdmRecord[]): MemberOf[] {
  return relation.source.map((name, i) => {
    const seen = new Map<string, EdmValue>();
    for (const record of records) {
      const value = record[name];
      if (value === null || value === undefined || isRecord(value)) continue;
      seen.set(valueKey(value), value);
    }
    return { property: relation.target[i] as string, values: [...seen.values()] };
  });
}

/** A string equal for equal tuples of values, to group targets under their sources. */
export function tupleKey(record: EdmRecord, names: readonly string[]): string | undefined {
  let key = '';
  for (const name of names) {
    const value = record[name];
    if (value === null || value === undefined || isRecord(value)) return undefined;
    key += `${valueKey(value)}\u0000`;
  }
  return key;
}

function valueKey(value: EdmValue): string {
  if (value instanceof Date) return `d${value.getTime()}`;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return `${typeof value}${String(value)}`;
}

function isRecord(value: EdmValue | EdmRecord): value is EdmRecord {
  return typeof value === 'object' && value !== null && !(value instanceof Date) && !(value instanceof Uint8Array) && !('kind' in value);
}
