// Where each entity set of the model lives in SQL. Column names follow from property names
// (`ClientID` -> `client_id`, `TimeEntryCustom1Label` -> `time_entry_custom1_label`), so the
// model is not copied here; only the table of each set and the properties the service computes
// instead of storing are named.
import { compileFunction, loadCode, storeCode } from '../../odata/compiled-access.js';
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
  /** Turns a row selected with `t.column as "Property"` into typed values, in place. */
  readonly readRow: (row: Record<string, unknown>) => EdmRecord;
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

/**
 * The conversions of a row in place, with the property names written into the code
 * (odata/compiled-access.ts): in a loop by name each load and store was megamorphic, about a
 * tenth of turning a page of time entries into records.
 */
function compileReadRow(conversions: readonly (readonly [string, Converter])[]): (row: Record<string, unknown>) => EdmRecord {
  const lines = conversions.map(([name], i) => `${storeCode('row', name, `converters[${i}](${loadCode('row', name)})`)};`);
  const convert = compileFunction<(row: Record<string, unknown>, converters: readonly Converter[]) => EdmRecord>(
    ['row', 'converters'], `${lines.join('\n')}\nreturn row;`);
  const converters = conversions.map(([, c]) => c);
  return (row) => convert(row, converters);
}

function entityTable(index: ModelIndex, set: EntitySet, dialect: StorageDialect): EntityTable {
  const table = TABLE_OF_SET[set.name];
  if (table === undefined) throw new Error(`entity set ${set.name} has no table`);
  const type = index.typeOfSet(set);
  const computed = COMPUTED[set.name] ?? [];
  const stored = type.properties
    .filter((property) => !computed.includes(property.name))
    .map((property) => ({ property, column: columnName(property.name) }));
  const conversions = stored.flatMap(({ property }) => {
    const convert = converter(property, dialect);
    return convert === undefined ? [] : [[property.name, convert] as const];
  });
  const converters = new Map(conversions);
  return {
    set,
    type,
    table,
    stored,
    columns: new Map(stored.map((s) => [s.property.name, s.column])),
    readRow: compileReadRow(conversions),
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
