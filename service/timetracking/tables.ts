// Each entity set of the model as the service stores it: the set's definition (sets/) joined
// with what the model says. Column names follow from property names (`ClientID` -> `client_id`,
// `TimeEntryCustom1Label` -> `time_entry_custom1_label`), and the sets whose rows refer to a set
// from the model's associations, so neither is copied anywhere.
import { sql } from 'kysely';
import { compileFunction, keyCode, loadCode } from '../../odata/compiled-access.js';
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntitySet, EntityType, Property } from '../../odata/model.js';
import type { StorageDialect } from '../storage/dialect.js';
import type { TableName } from '../storage/schema.js';
import type { Caller } from './caller.js';
import type { EntitySetDefinition, Sql } from './sets/entity-set.js';
import { ENTITY_SETS } from './sets/registry.js';

export interface StoredProperty {
  readonly property: Property;
  readonly column: string;
}

/** Rows of another set that refer to an entity of this one (`time_entries.project_id`). */
export interface Dependant {
  readonly table: EntityTable;
  readonly column: string;
}

export interface EntityTable {
  readonly set: EntitySet;
  readonly type: EntityType;
  readonly definition: EntitySetDefinition;
  readonly table: TableName;
  /** Stored properties in model order. */
  readonly stored: readonly StoredProperty[];
  /** EDMX property name -> column, for stored properties only. */
  readonly columns: ReadonlyMap<string, string>;
  /** The record of a row that selects the stored columns first (`t.column as "Property"`, or packed). */
  readonly recordOf: (layout: RowLayout) => (row: unknown) => EdmRecord;
  /** One stored value of a property, typed. */
  readonly readValue: (property: string, raw: unknown) => EdmValue;
  /** The sets whose rows refer to this one, by the model's referential constraints. */
  readonly dependants: readonly Dependant[];
  /**
   * The row versions: the stored properties the model marks `ConcurrencyMode="Fixed"` (the
   * entity's ETag), integer counters every change of the row bumps.
   */
  readonly versions: readonly StoredProperty[];
  /**
   * Fills in the computed properties of a record of every property (the set's
   * ComputedValues.complete), `helper` being the helper column's value as selected.
   */
  complete(record: EdmRecord, caller: Caller, now: number, helper: unknown): void;
  /**
   * The rows the caller may read, as the condition every query of the set carries (reads,
   * counts, navigation, `$expand`, filter paths): whatever the caller cannot read does not exist
   * for them, so it answers 404 alike. Rows of the caller's account only; for standard users,
   * what the set's definition allows them.
   */
  visibleRows(caller: Caller, alias: string): Sql;
}

/** `ClientID` -> `client_id`, `Custom1` -> `custom1`, `ProjectCustom1Label` -> `project_custom1_label`. */
export function columnName(property: string): string {
  return property.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

type Converter = (value: unknown) => EdmValue;

function converter(property: Property, dialect: StorageDialect): Converter | undefined {
  switch (property.type) {
    case 'Edm.Boolean':
      return (value) => (value === null || value === undefined ? null : Number(value) === 1);
    case 'Edm.DateTime':
      return (value) => (value === null || value === undefined ? null : new Date(Number(value)));
    case 'Edm.Decimal': {
      const scale = property.scale ?? 0;
      return (value) => dialect.readDecimal(value, scale);
    }
    default:
      return undefined;
  }
}

/** How a read's rows hold their values: arrays in select-list order, or objects by column name. */
export type RowLayout = 'values' | 'names';

/**
 * Records from rows whose first columns are the stored properties, by a function compiled per
 * set and layout with the names written into the code (odata/compiled-access.ts): one object
 * literal of every property in model order, stored values typed, computed ones null until
 * the set's definition fills them in. Converting a row object in place, in a loop by name, made
 * each load and store megamorphic and every record a second object.
 */
function compileRecordBuilder(
  type: EntityType,
  stored: readonly StoredProperty[],
  converters: ReadonlyMap<string, Converter>,
  layout: RowLayout,
): (row: unknown) => EdmRecord {
  const position = new Map(stored.map((s, i) => [s.property.name, i]));
  const used: Converter[] = [];
  const parts = type.properties.map((property) => {
    const key = keyCode(property.name);
    const i = position.get(property.name);
    if (i === undefined) return `${key}: null`;
    const load = layout === 'values' ? `row[${i}]` : loadCode('row', property.name);
    const convert = converters.get(property.name);
    if (convert === undefined) return `${key}: ${load}`;
    used.push(convert);
    return `${key}: converters[${used.length - 1}](${load})`;
  });
  const build = compileFunction<(row: unknown, converters: readonly Converter[]) => EdmRecord>(
    ['row', 'converters'], `return {\n${parts.join(',\n')}\n};`);
  return (row) => build(row, used);
}

function entityTable(index: ModelIndex, set: EntitySet, definition: EntitySetDefinition, dialect: StorageDialect): EntityTable & { dependants: Dependant[] } {
  const type = index.typeOfSet(set);
  const computed = definition.computed;
  const stored = type.properties
    .filter((property) => !(computed?.properties.includes(property.name) ?? false))
    .map((property) => ({ property, column: columnName(property.name) }));
  const converters = new Map(stored.flatMap(({ property }) => {
    const convert = converter(property, dialect);
    return convert === undefined ? [] : [[property.name, convert] as const];
  }));
  const builders = new Map<RowLayout, (row: unknown) => EdmRecord>();
  const versions = stored.filter(({ property }) => property.concurrencyMode === 'Fixed');
  for (const { property } of versions) {
    if (property.type !== 'Edm.Int32' && property.type !== 'Edm.Int64') {
      throw new Error(`${set.name}.${property.name} is a concurrency property but not an integer the service can count up`);
    }
  }
  const visibleToStandardUser = definition.visibleToStandardUser;
  return {
    set,
    type,
    definition,
    table: definition.table,
    stored,
    columns: new Map(stored.map((s) => [s.property.name, s.column])),
    recordOf(layout) {
      let build = builders.get(layout);
      if (build === undefined) builders.set(layout, (build = compileRecordBuilder(type, stored, converters, layout)));
      return build;
    },
    readValue(property, raw) {
      const convert = converters.get(property);
      return convert === undefined ? (raw as EdmValue) : convert(raw);
    },
    dependants: [],
    versions,
    complete(record, caller, now, helper) {
      if (computed === undefined) return;
      const scale = computed.helper?.decimalScale;
      computed.complete(record, caller, now, scale === undefined ? helper : dialect.readDecimal(helper, scale));
    },
    visibleRows(caller, alias) {
      const ofAccount = sql`${sql.ref(`${alias}.account_id`)} = ${caller.accountId}`;
      if (caller.isAdmin || visibleToStandardUser === undefined) return ofAccount;
      return sql`${ofAccount} and ${visibleToStandardUser(caller, alias)}`;
    },
  };
}

export class EntityTables {
  private readonly tables = new Map<string, EntityTable>();

  constructor(readonly index: ModelIndex, dialect: StorageDialect, definitions: readonly EntitySetDefinition[] = ENTITY_SETS) {
    const built = new Map<string, EntityTable & { dependants: Dependant[] }>();
    for (const set of index.model.entitySets) {
      const definition = definitions.find((candidate) => candidate.name === set.name);
      if (definition === undefined) throw new Error(`entity set ${set.name} has no definition in service/timetracking/sets`);
      built.set(set.name, entityTable(index, set, definition, dialect));
    }
    for (const association of index.model.associationSets) {
      const constraint = index.model.associations.find((a) => a.fullName === association.association)?.referentialConstraint;
      if (constraint === undefined) continue;
      const setOf = (role: string) => built.get(association.ends.find((end) => end.role === role)?.entitySet ?? '');
      const principal = setOf(constraint.principal.role);
      const dependent = setOf(constraint.dependent.role);
      const [property] = constraint.dependent.properties;
      // Single-column references to the principal's ID, the only kind the schema has.
      if (principal === undefined || dependent === undefined || property === undefined || constraint.dependent.properties.length !== 1) continue;
      principal.dependants.push({ table: dependent, column: columnName(property) });
    }
    for (const [name, table] of built) this.tables.set(name, table);
  }

  of(set: EntitySet | string): EntityTable {
    const table = this.tables.get(typeof set === 'string' ? set : set.name);
    if (table === undefined) throw new Error(`entity set ${typeof set === 'string' ? set : set.name} is not stored`);
    return table;
  }

  /** The table of the one set of an entity type. */
  ofType(type: EntityType): EntityTable {
    for (const table of this.tables.values()) if (table.type === type) return table;
    throw new Error(`entity type ${type.name} has no set`);
  }

  /** The column of a stored property; undefined for a computed one. */
  column(set: EntitySet, property: string): string | undefined {
    return this.of(set).columns.get(property);
  }
}
