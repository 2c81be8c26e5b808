// Reads of the DataSource contract as SQL: one statement per query, with the caller's visibility,
// the constraints of keys and navigation, the client's `$filter`, keyset paging and the order.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import { UriSyntaxError } from '../../odata/errors.js';
import type { EntitySet, Property } from '../../odata/model.js';
import type { EntityQuery, EntitySelection, QueryPage } from '../odata-server/data-source.js';
import type { StorageDialect } from '../storage/dialect.js';
import type { Database } from '../storage/schema.js';
import type { Caller } from './caller.js';
import { keysetCondition, orderByClause } from './order-sql.js';
import type { OrderTerm } from './order-sql.js';
import type { Scope, Sql } from './sql-expressions.js';
import { SqlExpressions } from './sql-expressions.js';
import type { EntityTable, EntityTables } from './tables.js';

const ALIAS = 't';

function integerOf(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a row count: ${value}`);
  return value;
}
const ORDER_COLUMN = '__order';
/** The name of a set's helper column (ComputedValues.helper). */
const HELPER_COLUMN = '__helper';
/** The name of the one column of a packed row. */
const PACKED_ROW = '__row';
// At most this many values in one packed row: SQLite's limit on a function's arguments is 127
// in builds older than 3.48 (1,000 since), PostgreSQL's 100.
const MAX_PACKED_VALUES = 100;
/** Most statement parts kept compiled (EntityReader.fixed). */
const MAX_FIXED_PARTS = 500;

interface Column {
  readonly expression: Sql;
  readonly name: string;
}

interface StoredColumns {
  /** `t.id as "ID", ...` */
  readonly aliased: Sql;
  /** `t.id, ...`, for StorageDialect.packRow. */
  readonly values: Sql;
  readonly names: readonly string[];
  /** Positions in packed rows of these columns followed by extra ones, by the extra columns' names. */
  readonly positions: Map<string, ReadonlyMap<string, number>>;
}

/** A row as a read holds it: its values in select-list order (packed), or an object by column name. */
type Row = readonly unknown[] | Readonly<Record<string, unknown>>;

interface SelectList {
  readonly list: Sql;
  readonly rowsOf: (rows: Record<string, unknown>[]) => Row[];
  /** The record of a row, computed properties still null. */
  readonly recordOf: (row: Row) => EdmRecord;
  /** The value of a column of a row as stored (a property, a helper or an order column). */
  readonly valueOf: (row: Row, column: string) => unknown;
}

export class EntityReader {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly tables: EntityTables,
    private readonly dialect: StorageDialect,
    private readonly storedColumnLists = new Map<EntityTable, StoredColumns>(),
    private readonly fixedParts = new Map<string, Sql>(),
  ) {}

  /** This reader with its statements run on `db` (a transaction), its compiled parts shared. */
  on(db: Kysely<Database>): EntityReader {
    return new EntityReader(db, this.tables, this.dialect, this.storedColumnLists, this.fixedParts);
  }

  async query(caller: Caller, query: EntityQuery, now = Date.now()): Promise<QueryPage> {
    const table = this.tables.of(query.set);
    const expressions = this.expressions(caller);
    const scope: Scope = { set: query.set, alias: ALIAS };
    const terms = query.orderBy.map((item) => this.orderTerm(expressions, scope, item.path, item.direction === 'desc'));
    const conditions = this.conditions(caller, expressions, query, scope);
    if (query.from !== undefined) conditions.push(keysetCondition(terms, query.from));
    // Order values of navigation paths are selected, to name the next page's first entity. They
    // are numbered among themselves, so a select list's names depend on how many there are, not
    // on where they stand in the $orderby (one map of positions per count, not per arrangement).
    const orderColumns: Column[] = [];
    const orderColumnOf = terms.map((term, i) => {
      if ((query.orderBy[i]?.path.length ?? 0) <= 1) return undefined;
      const name = `${ORDER_COLUMN}${orderColumns.length}`;
      orderColumns.push({ expression: term.expression, name });
      return name;
    });
    const extra = [...this.computedColumns(table, caller), ...orderColumns];
    const select = this.selectList(table, extra);
    // The parts around the conditions hold no values: compiled once per shape, they save
    // building and compiling them on every read. Extra columns may hold values (a client's
    // assignment to the caller); `$skip` is left out, each of its values would be a shape.
    const headOf = () => sql`select ${select.list} from ${this.from(table)} where `;
    const tailOf = () => this.tail(terms, query);
    const head = extra.length === 0 ? this.fixed(`head ${query.set.name}`, headOf) : headOf();
    const tail = orderColumns.length === 0 && !query.skip
      ? this.fixed(`tail ${query.set.name} ${query.orderBy.map((item) => `${item.path[0]} ${item.direction}`).join(',')} ${query.limit}`, tailOf)
      : tailOf();
    const statement = sql<Record<string, unknown>>`${head}${sql.join(conditions, sql` and `)}${tail}`;
    const rows = select.rowsOf((await this.execute(statement)).rows);
    let next: EdmValue[] | undefined;
    if (query.limit !== undefined && rows.length > query.limit) {
      const first = rows[query.limit] as Row;
      rows.length = query.limit;
      next = query.orderBy.map((item, i) => {
        if (item.path.length === 1) return table.readValue(item.path[0] as string, select.valueOf(first, item.path[0] as string));
        const { set, property } = this.propertyAt(query.set, item.path);
        return this.tables.of(set).readValue(property.name, select.valueOf(first, orderColumnOf[i] as string));
      });
    }
    const computed = table.definition.computed;
    const hasHelper = computed?.helper !== undefined;
    const records = rows.map((row) => {
      const record = select.recordOf(row);
      if (computed !== undefined) table.complete(record, caller, now, hasHelper ? select.valueOf(row, HELPER_COLUMN) : undefined);
      return record;
    });
    return next === undefined ? { records } : { records, next };
  }

  private tail(terms: readonly OrderTerm[], query: EntityQuery): Sql {
    // Literals, not bound parameters: SQLite re-plans a statement on every run when its LIMIT is
    // a parameter, which made a read by key take 27 µs instead of 7 µs (a quarter of a
    // single-entity request). Both are integers the service computed, never request text.
    const limit = query.limit === undefined ? sql`` : sql` limit ${sql.lit(integerOf(query.limit + 1))}`;
    const offset = query.skip ? sql` offset ${sql.lit(integerOf(query.skip))}` : sql``;
    return sql`${terms.length === 0 ? sql`` : sql` order by ${orderByClause(terms)}`}${limit}${offset}`;
  }

  /**
   * A part of a statement that holds no values, as SQL text compiled on its first use under
   * `key`, which must name everything the part depends on. A part that compiles with parameters
   * is a bug: a value would be frozen into the text of every later read.
   */
  private fixed(key: string, build: () => Sql): Sql {
    let part = this.fixedParts.get(key);
    if (part === undefined) {
      const compiled = build().compile(this.db);
      if (compiled.parameters.length > 0) throw new Error(`the statement part ${key} holds values`);
      part = sql.raw(compiled.sql);
      // Oldest out first: `$top` and `$orderby` come from clients, and so do the shapes.
      if (this.fixedParts.size >= MAX_FIXED_PARTS) this.fixedParts.delete(this.fixedParts.keys().next().value as string);
      this.fixedParts.set(key, part);
    }
    return part;
  }

  async count(caller: Caller, selection: EntitySelection): Promise<number> {
    const table = this.tables.of(selection.set);
    const conditions = this.conditions(caller, this.expressions(caller), selection, { set: selection.set, alias: ALIAS });
    const statement = sql<{ n: number | string }>`select count(*) as n from ${this.from(table)} where ${sql.join(conditions, sql` and `)}`;
    return Number((await this.execute(statement)).rows[0]?.n ?? 0);
  }

  private expressions(caller: Caller): SqlExpressions {
    return new SqlExpressions(this.tables, this.dialect.sql, caller);
  }

  private from(table: EntityTable): Sql {
    const base = sql`${sql.table(table.table)} as ${sql.raw(ALIAS)}`;
    const join = table.definition.computed?.helper?.join;
    return join === undefined ? base : sql`${base} ${join(ALIAS)}`;
  }

  /** The set's helper column when it holds values of the caller (else it is a stored column's neighbour). */
  private computedColumns(table: EntityTable, caller: Caller): Column[] {
    const helper = table.definition.computed?.helper;
    if (helper === undefined || !('ofCaller' in helper.value)) return [];
    return [{ expression: helper.value.ofCaller(ALIAS, caller), name: HELPER_COLUMN }];
  }

  /**
   * The select list of a read, and how its rows become objects with the select list's names: the
   * stored columns, then `extra`, as columns of their own or packed into one text per row where
   * the dialect reads that faster (StorageDialect.packRow).
   */
  private selectList(table: EntityTable, extra: readonly Column[]): SelectList {
    const stored = this.storedColumns(table);
    const pack = this.dialect.packRow;
    if (pack === undefined || stored.names.length + extra.length > MAX_PACKED_VALUES) {
      return {
        list: sql.join([stored.aliased, ...extra.map(({ expression, name }) => sql`${expression} as ${sql.ref(name)}`)]),
        rowsOf: (rows) => rows,
        recordOf: table.recordOf('names'),
        valueOf: (row, column) => (row as Readonly<Record<string, unknown>>)[column],
      };
    }
    const values = extra.length === 0 ? stored.values : sql`${stored.values}, ${sql.join(extra.map((column) => column.expression))}`;
    const positions = this.positions(stored, extra);
    return {
      list: sql`${pack(values)} as ${sql.ref(PACKED_ROW)}`,
      rowsOf: (rows) => rows.map((row) => JSON.parse(row[PACKED_ROW] as string) as unknown[]),
      recordOf: table.recordOf('values'),
      valueOf: (row, column) => (row as readonly unknown[])[positions.get(column) as number],
    };
  }

  private positions(stored: StoredColumns, extra: readonly Column[]): ReadonlyMap<string, number> {
    const extraNames = extra.map((column) => column.name);
    const key = extraNames.join(',');
    let positions = stored.positions.get(key);
    if (positions === undefined) {
      positions = new Map([...stored.names, ...extraNames].map((name, i) => [name, i]));
      stored.positions.set(key, positions);
    }
    return positions;
  }

  /**
   * The stored properties of a set (and its helper column, when the caller does not change it),
   * as SQL text compiled once: building and compiling the same twenty references on every request was about a
   * twentieth of a single-entity read. The names come from the model, never from a request.
   */
  private storedColumns(table: EntityTable): StoredColumns {
    let columns = this.storedColumnLists.get(table);
    if (columns === undefined) {
      const list: Column[] = table.stored.map(({ property, column }) => ({ expression: sql.ref(`${ALIAS}.${column}`), name: property.name }));
      const helper = table.definition.computed?.helper?.value;
      if (helper !== undefined && 'fixed' in helper) list.push({ expression: helper.fixed(ALIAS), name: HELPER_COLUMN });
      const compiled = (parts: Sql[]): Sql => sql.raw(sql.join(parts).compile(this.db).sql);
      columns = {
        aliased: compiled(list.map(({ expression, name }) => sql`${expression} as ${sql.ref(name)}`)),
        values: compiled(list.map(({ expression }) => expression)),
        names: list.map((column) => column.name),
        positions: new Map(),
      };
      this.storedColumnLists.set(table, columns);
    }
    return columns;
  }

  private conditions(caller: Caller, expressions: SqlExpressions, selection: EntitySelection, scope: Scope): Sql[] {
    const conditions = [this.tables.of(selection.set).visibleRows(caller, ALIAS)];
    for (const constraint of selection.constraints) {
      const { property } = this.propertyAt(selection.set, [constraint.property]);
      const column = expressions.path([constraint.property], scope);
      const values = constraint.values.filter((value) => value !== null);
      const parameters = values.map((value) => expressions.parameter(value, property.type));
      const matches = parameters.length === 0 ? [] : [parameters.length === 1 ? sql`${column} = ${parameters[0]}` : sql`${column} in (${sql.join(parameters)})`];
      if (values.length < constraint.values.length) matches.push(sql`${column} is null`);
      conditions.push(matches.length === 0 ? sql`1 = 0` : matches.length === 1 ? (matches[0] as Sql) : sql`(${sql.join(matches, sql` or `)})`);
    }
    if (selection.filter !== undefined) conditions.push(expressions.predicate(selection.filter, scope));
    return conditions;
  }

  private orderTerm(expressions: SqlExpressions, scope: Scope, path: readonly string[], descending: boolean): OrderTerm {
    const { property } = this.propertyAt(scope.set, path);
    const value = expressions.path(path, scope);
    return {
      expression: property.type === 'Edm.String' ? this.dialect.sql.binaryCollation(value) : value,
      descending,
      nullable: property.nullable || path.length > 1,
      parameter: (v) => expressions.parameter(v, property.type),
    };
  }

  /** The property (and its set) a path of navigation properties and a last property name ends on. */
  private propertyAt(set: EntitySet, path: readonly string[]): { set: EntitySet; property: Property } {
    const index = this.tables.index;
    let current = set;
    for (const name of path.slice(0, -1)) {
      const navigation = index.navigation(index.typeOfSet(current), name);
      if (navigation === undefined) throw new UriSyntaxError(`${name} is not a navigation property`, name);
      current = index.navigationTarget(current, navigation);
    }
    const last = path[path.length - 1] as string;
    const property = index.property(index.typeOfSet(current), last);
    if (property === undefined) throw new UriSyntaxError(`${last} is not a property`, last);
    return { set: current, property };
  }

  /** Runs a read; a value the database cannot compute (division by zero, overflow) is the client's 400. */
  private async execute<R>(statement: ReturnType<typeof sql<R>>): Promise<{ rows: R[] }> {
    try {
      return await statement.execute(this.db);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && code.startsWith('22')) {
        throw new UriSyntaxError(`the $filter or $orderby cannot be evaluated: ${(error as Error).message}`, '$filter');
      }
      throw error;
    }
  }
}
