// A small OData V2 upstream for any model, built from our own service code: the generic server of
// service/odata-server over a DataSource that keeps rows in memory. Suites use it to put the
// gateway in front of a second model (the Northwind fixture) without a database. It answers the
// questions the server asks (constraints, $filter, $orderby, keyset paging, counts, writes);
// $filter supports comparisons, logic, arithmetic-free expressions, and a few string functions.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { FilterNode } from '../../odata/filter-ast.js';
import type { KeyValues } from '../../odata/key-predicate.js';
import { indexModel } from '../../odata/model-index.js';
import type { EntitySet, FunctionImport, Model, Property } from '../../odata/model.js';
import { ResourceNotFoundError } from '../../odata/errors.js';
import type { DataSource, EntityChange, EntityQuery, EntitySelection, FunctionResult, QueryPage } from '../../service/odata-server/data-source.js';
import { NotImplementedError } from '../../service/odata-server/errors.js';
import { registerODataService } from '../../service/odata-server/plugin.js';

type Caller = string;
type Rows = Map<string, EdmRecord[]>;
export type FunctionHandler = (parameters: Readonly<Record<string, EdmValue>>, rows: Rows) => FunctionResult;

type Comparable = number | string | bigint | boolean | null;

/** A value reduced to something `<` orders the way its Edm type does. */
function comparable(value: unknown, type: string): Comparable {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.getTime();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'object') {
    const v = value as { kind?: string; date?: Date; ms?: number };
    if (v.kind === 'DateTimeOffset') return (v.date as Date).getTime();
    if (v.kind === 'Time') return v.ms as number;
    return JSON.stringify(value);
  }
  if (typeof value === 'string' && (type === 'Edm.Int64')) return BigInt(value);
  if (typeof value === 'string' && (type === 'Edm.Decimal' || type === 'Edm.Double' || type === 'Edm.Single')) return Number(value);
  if (typeof value === 'string' && type === 'Edm.Guid') return value.toLowerCase();
  return value as Comparable;
}

function compare(a: Comparable, b: Comparable): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function evaluate(node: FilterNode, row: EdmRecord, type: string): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'property':
      if (node.path.length !== 1) throw new NotImplementedError('the memory source filters on direct properties only');
      return row[node.path[0] as string] ?? null;
    case 'unary':
      if (node.op === 'not') return !evaluate(node.operand, row, type);
      return -(Number(evaluate(node.operand, row, type)));
    case 'binary': {
      if (node.op === 'and') return Boolean(evaluate(node.left, row, type)) && Boolean(evaluate(node.right, row, type));
      if (node.op === 'or') return Boolean(evaluate(node.left, row, type)) || Boolean(evaluate(node.right, row, type));
      const left = comparable(evaluate(node.left, row, type), node.operandType);
      const right = comparable(evaluate(node.right, row, type), node.operandType);
      const order = compare(left, right);
      switch (node.op) {
        case 'eq': return left === right || order === 0;
        case 'ne': return order !== 0;
        case 'gt': return left !== null && right !== null && order > 0;
        case 'ge': return left !== null && right !== null && order >= 0;
        case 'lt': return left !== null && right !== null && order < 0;
        case 'le': return left !== null && right !== null && order <= 0;
        default: throw new NotImplementedError(`the memory source has no ${node.op}`);
      }
    }
    case 'call': {
      const args = node.args.map((a) => evaluate(a, row, type));
      const text = (i: number) => String(args[i] ?? '');
      switch (node.name) {
        case 'substringof': return text(1).includes(text(0));
        case 'startswith': return text(0).startsWith(text(1));
        case 'endswith': return text(0).endsWith(text(1));
        case 'tolower': return text(0).toLowerCase();
        case 'toupper': return text(0).toUpperCase();
        case 'length': return text(0).length;
        default: throw new NotImplementedError(`the memory source has no ${node.name}()`);
      }
    }
  }
}

function defaultOf(property: Property): EdmValue {
  const text = property.defaultValue;
  if (text === undefined) return null;
  switch (property.type) {
    case 'Edm.Boolean': return text === 'true';
    case 'Edm.Byte': case 'Edm.SByte': case 'Edm.Int16': case 'Edm.Int32': case 'Edm.Double': case 'Edm.Single': return Number(text);
    default: return text;
  }
}

export class MemoryDataSource implements DataSource<Caller> {
  private readonly index;

  constructor(
    readonly model: Model,
    readonly rows: Rows,
    private readonly functions: Readonly<Record<string, FunctionHandler>> = {},
  ) {
    this.index = indexModel(model);
    for (const set of model.entitySets) if (!rows.has(set.name)) rows.set(set.name, []);
  }

  private selected(selection: EntitySelection): EdmRecord[] {
    const types = new Map(selection.type.properties.map((p) => [p.name, p.type]));
    return (this.rows.get(selection.set.name) ?? []).filter((row) =>
      selection.constraints.every((c) => c.values.some((v) => compare(comparable(row[c.property], types.get(c.property) ?? ''), comparable(v, types.get(c.property) ?? '')) === 0)) &&
      (selection.filter === undefined || evaluate(selection.filter, row, '') === true),
    );
  }

  async query(_caller: Caller, query: EntityQuery): Promise<QueryPage> {
    const order = (row: EdmRecord) => query.orderBy.map((item) => comparable(row[item.path[0] as string], item.type));
    const tuple = (a: readonly Comparable[], b: readonly Comparable[]) => {
      for (const [i, item] of query.orderBy.entries()) {
        const c = compare(a[i] ?? null, b[i] ?? null);
        if (c !== 0) return item.direction === 'desc' ? -c : c;
      }
      return 0;
    };
    let rows = this.selected(query).map((row) => ({ row, key: order(row) })).sort((a, b) => tuple(a.key, b.key));
    if (query.from !== undefined) {
      const from = query.from.map((v, i) => comparable(v, query.orderBy[i]?.type ?? ''));
      rows = rows.filter((r) => tuple(r.key, from) >= 0);
    }
    rows = rows.slice(query.skip ?? 0);
    if (query.limit === undefined || rows.length <= query.limit) return { records: rows.map((r) => r.row) };
    const next = rows[query.limit]?.row as EdmRecord;
    return { records: rows.slice(0, query.limit).map((r) => r.row), next: query.orderBy.map((item) => next[item.path[0] as string] as EdmValue) };
  }

  async count(_caller: Caller, selection: EntitySelection): Promise<number> {
    return this.selected(selection).length;
  }

  async create(_caller: Caller, set: EntitySet, values: EdmRecord): Promise<EdmRecord> {
    const type = this.index.typeOfSet(set);
    const rows = this.rows.get(set.name) as EdmRecord[];
    const row: EdmRecord = {};
    for (const p of type.properties) row[p.name] = values[p.name] !== undefined ? values[p.name] as EdmValue : defaultOf(p);
    for (const name of type.key) {
      if (row[name] !== null) continue;
      const property = this.index.property(type, name) as Property;
      row[name] = property.type === 'Edm.Guid' ? randomUUID() : Math.max(0, ...rows.map((r) => Number(r[name]))) + 1;
    }
    rows.push(row);
    return row;
  }

  private find(set: EntitySet, key: KeyValues): EdmRecord {
    const type = this.index.typeOfSet(set);
    const types = new Map(type.properties.map((p) => [p.name, p.type]));
    const row = (this.rows.get(set.name) ?? []).find((r) => Object.entries(key).every(([name, v]) => compare(comparable(r[name], types.get(name) ?? ''), comparable(v, types.get(name) ?? '')) === 0));
    if (row === undefined) throw new ResourceNotFoundError(`no ${set.name} with that key`);
    return row;
  }

  async update(_caller: Caller, set: EntitySet, change: EntityChange): Promise<undefined> {
    Object.assign(this.find(set, change.key), change.values);
    return undefined;
  }

  async remove(_caller: Caller, set: EntitySet, key: KeyValues): Promise<void> {
    const rows = this.rows.get(set.name) as EdmRecord[];
    rows.splice(rows.indexOf(this.find(set, key)), 1);
  }

  /** A changeset: every row as it was before is put back when `work` throws. */
  async atomically<T>(work: (source: DataSource<Caller>) => Promise<T>): Promise<T> {
    const saved = [...this.rows].map(([name, rows]) => [name, rows.map((row) => ({ ...row }))] as const);
    try {
      return await work(this);
    } catch (error) {
      for (const [name, rows] of saved) this.rows.set(name, rows);
      throw error;
    }
  }

  async invoke(_caller: Caller, fn: FunctionImport, parameters: Readonly<Record<string, EdmValue>>): Promise<FunctionResult> {
    const handler = this.functions[fn.name];
    if (handler === undefined) throw new NotImplementedError(`${fn.name} is not served by this memory source`);
    return handler(parameters, this.rows);
  }
}

export interface MemoryUpstream {
  /** `http://127.0.0.1:<port>/odata` */
  readonly root: string;
  readonly source: MemoryDataSource;
  readonly requestCount: () => number;
  close(): Promise<void>;
}

/** `model` served as an OData V2 service over in-memory rows, on a free loopback port. */
export async function startMemoryUpstream(model: Model, rows: Rows, functions: Readonly<Record<string, FunctionHandler>> = {}): Promise<MemoryUpstream> {
  const source = new MemoryDataSource(model, rows, functions);
  const app = Fastify({ logger: false });
  let requests = 0;
  app.addHook('onRequest', async () => {
    requests++;
  });
  registerODataService(app, { model, rootPath: '/odata', dataSource: source, authenticate: async (request) => String(request.headers['x-serviceapikey'] ?? '') });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { root: `http://127.0.0.1:${address.port}/odata`, source, requestCount: () => requests, close: () => app.close() };
}
