// Where each entity set of the model lives in SQL. Column names follow from property names
// (`ClientID` -> `client_id`, `TimeEntryCustom1Label` -> `time_entry_custom1_label`), so the
// model is not copied here; only the table of each set and the properties the service computes
// instead of storing are named.
import { compileFunction, keyCode, loadCode } from '../../odata/compiled-access.js';
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntitySet, EntityType, Property } from '../../odata/model.js';
import type { StorageDialect } from '../storage/dialect.js';
import type { TableName } from '../storage/schema.js';

const TABLE_OF_SET: Readonly<Record<string, TableName>> = {
  Projects: 'projects',
  Clients: 'clients',
  Tasks: 'tasks',
  TimeEntries: 'time_entries',
  Users: 'users',
  AccountSettings: 'account_settings',
};

/** Properties whose values the service derives when reading (computed-values.ts). */
const COMPUTED: Readonly<Record<string, readonly string[]>> = {
  Projects: ['AssignedToCurrentUser'],
  Clients: ['AssignedToCurrentUser'],
  TimeEntries: ['DurationSeconds', 'DurationString', 'IsEditable', 'RevenuePerHour', 'RevenueTotal'],
};

export interface StoredProperty {
  readonly property: Property;
  readonly column: string;
}

export interface EntityTable {
  readonly set: EntitySet;
  readonly type: EntityType;
  readonly table: TableName;
  /** Stored properties in model order. */
  readonly stored: readonly StoredProperty[];
  /** EDMX property name -> column, for stored properties only. */
  readonly columns: ReadonlyMap<string, string>;
  /** The record of a row that selects the stored columns first (`t.column as "Property"`, or packed). */
  readonly recordOf: (layout: RowLayout) => (row: unknown) => EdmRecord;
  /** One stored value of a property, typed. */
  readonly readValue: (property: string, raw: unknown) => EdmValue;
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
 * computed-values.ts fills them in. Converting a row object in place, in a loop by name, made
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

function entityTable(index: ModelIndex, set: EntitySet, dialect: StorageDialect): EntityTable {
  const table = TABLE_OF_SET[set.name];
  if (table === undefined) throw new Error(`entity set ${set.name} has no table`);
  const type = index.typeOfSet(set);
  const computed = COMPUTED[set.name] ?? [];
  const stored = type.properties
    .filter((property) => !computed.includes(property.name))
    .map((property) => ({ property, column: columnName(property.name) }));
  const converters = new Map(stored.flatMap(({ property }) => {
    const convert = converter(property, dialect);
    return convert === undefined ? [] : [[property.name, convert] as const];
  }));
  const builders = new Map<RowLayout, (row: unknown) => EdmRecord>();
  return {
    set,
    type,
    table,
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
  };
}

export class EntityTables {
  private readonly tables = new Map<string, EntityTable>();

  constructor(readonly index: ModelIndex, dialect: StorageDialect) {
    for (const set of index.model.entitySets) this.tables.set(set.name, entityTable(index, set, dialect));
  }

  of(set: EntitySet | string): EntityTable {
    const table = this.tables.get(typeof set === 'string' ? set : set.name);
    if (table === undefined) throw new Error(`entity set ${typeof set === 'string' ? set : set.name} is not stored`);
    return table;
  }

  /** The column of a stored property; undefined for a computed one. */
  column(set: EntitySet, property: string): string | undefined {
    return this.of(set).columns.get(property);
  }
}
