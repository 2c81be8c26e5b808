// The time-tracking service as a DataSource of the generic OData server: reads through
// EntityReader, writes through the rules each set's definition brings (sets/), each write one
// transaction, and the service operations of the model (stopwatch, changes digest).
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { KeyValues } from '../../odata/key-predicate.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { WallClockZone } from '../../odata/wall-clock.js';
import type { EntitySet, FunctionImport } from '../../odata/model.js';
import type { DataSource, EntityChange, EntityQuery, EntitySelection, FunctionResult, QueryPage, WriteCondition } from '../odata-server/data-source.js';
import { ForbiddenError, NotImplementedError } from '../odata-server/errors.js';
import type { ValidationMessages } from '../odata-server/messages.js';
import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import { withTransaction } from '../storage/transaction.js';
import type { Caller } from './caller.js';
import { wallClockOf } from './caller.js';
import { changesDigest, countedSets } from './changes-digest.js';
import { EntityReader } from './entity-reader.js';
import { LANG, messages, validationMessages } from './messages.js';
import type { SetWrites } from './sets/entity-set.js';
import { timeEntries } from './sets/time-entries.js';
import { currentStopwatch, haltStopwatch, startStopwatch } from './stopwatch.js';
import type { StopwatchStore } from './stopwatch.js';
import type { EntityTable } from './tables.js';
import { EntityTables } from './tables.js';
import type { WriteContext } from './write-support.js';
import { asClientError } from './write-support.js';

type ServiceOperation = (caller: Caller, fn: FunctionImport, parameters: Readonly<Record<string, EdmValue>>) => Promise<FunctionResult>;

/** The row versions (by column) a write condition names; undefined for none. */
function expectedVersions(table: EntityTable, condition: WriteCondition | undefined): Record<string, unknown> | undefined {
  if (condition === undefined || table.versions.length === 0) return undefined;
  return Object.fromEntries(table.versions.map(({ property, column }) => [column, condition[property.name] ?? null]));
}

export class TimeTrackingDataSource implements DataSource<Caller> {
  /** The texts of the generic server's payload checks, naming entities as the sets do. */
  readonly messages: ValidationMessages;
  private readonly tables: EntityTables;
  private readonly reader: EntityReader;
  private readonly operations: ReadonlyMap<string, ServiceOperation>;

  constructor(private readonly database: DatabaseHandle, private readonly index: ModelIndex, shared?: { tables: EntityTables; reader: EntityReader }) {
    this.tables = shared?.tables ?? new EntityTables(index, database.dialect);
    this.reader = shared?.reader ?? new EntityReader(database.db, this.tables, database.dialect);
    this.messages = validationMessages((type) => this.tables.ofType(type).definition.noun);
    const stopwatch = this.stopwatchStore(this.tables.of(timeEntries.name));
    const changeSet = index.complexType(`${index.model.namespace}.ChangeSet`);
    const counted = changeSet === undefined ? [] : countedSets(changeSet, this.tables);
    this.operations = new Map<string, ServiceOperation>([
      ['CurrentStopWatch', (caller) => currentStopwatch(stopwatch, caller)],
      ['StartStopWatch', (caller, fn, parameters) => startStopwatch(stopwatch, caller, fn, parameters)],
      ['HaltStopWatch', (caller) => haltStopwatch(stopwatch, caller)],
      ['GetChangesDigest', (caller, _fn, parameters) =>
        changesDigest(database.db, counted, caller, parameters.LastSynchronizationTime as Date, Date.now())],
    ]);
  }

  /** The account's zone (Caller.timeZone). */
  wallClock(caller: Caller): WallClockZone | undefined {
    return wallClockOf(caller);
  }

  query(caller: Caller, query: EntityQuery): Promise<QueryPage> {
    return this.reader.query(caller, query);
  }

  count(caller: Caller, selection: EntitySelection): Promise<number> {
    return this.reader.count(caller, selection);
  }

  async create(caller: Caller, set: EntitySet, values: EdmRecord): Promise<EdmRecord> {
    const [table, writes] = this.writable(set);
    const created = await this.write(caller, table, (ctx) => writes.create(ctx, table, values), undefined, 'one change');
    const computed = table.definition.computed;
    // The entity as a read would return it, from what the insert returned; read back only when
    // a computed value needs the helper column and the write did not learn its value.
    if (computed?.helper !== undefined && !('helperValue' in created)) return (await this.byKey(caller, table, created.record.ID as number)) as EdmRecord;
    table.complete(created.record, caller, Date.now(), created.helperValue);
    return created.record;
  }

  async update(caller: Caller, set: EntitySet, change: EntityChange): Promise<EdmRecord | undefined> {
    const [table, writes] = this.writable(set);
    const { key, values, mode, current } = change;
    const expected = expectedVersions(table, change.condition);
    if (current !== undefined && writes.updateSeen !== undefined) {
      const updateSeen = writes.updateSeen.bind(writes);
      const versions = await this.write(caller, table, (ctx) => updateSeen(ctx, table, key.ID as number, values, mode, current), expected, 'one change');
      if (versions !== undefined) return versions;
    }
    return this.write(caller, table, (ctx) => writes.update(ctx, table, key.ID as number, values, mode), expected);
  }

  async remove(caller: Caller, set: EntitySet, key: KeyValues, condition?: WriteCondition): Promise<void> {
    const [table, writes] = this.writable(set);
    await this.write(caller, table, (ctx) => writes.remove(ctx, table, key.ID as number), expectedVersions(table, condition));
  }

  invoke(caller: Caller, fn: FunctionImport, parameters: Readonly<Record<string, EdmValue>>): Promise<FunctionResult> {
    const operation = this.operations.get(fn.name);
    if (operation === undefined) throw new NotImplementedError(`the service operation ${fn.name} is not implemented`);
    return operation(caller, fn, parameters);
  }

  /** One transaction; each write inside joins it (withTransaction) and every read runs in it. */
  atomically<T>(work: (source: DataSource<Caller>) => Promise<T>): Promise<T> {
    return this.database.db.transaction().execute((trx) =>
      work(new TimeTrackingDataSource({ ...this.database, db: trx }, this.index, { tables: this.tables, reader: this.reader.on(trx) })));
  }

  private writable(set: EntitySet): [EntityTable, SetWrites] {
    const table = this.tables.of(set);
    const writes = table.definition.writes;
    if (writes === undefined) throw new ForbiddenError(messages.readOnly(table.definition.noun), LANG);
    return [table, writes];
  }

  private stopwatchStore(entries: EntityTable): StopwatchStore {
    return {
      entries,
      write: (caller, work) => this.write(caller, entries, async (ctx) => {
        // Concurrent stopwatch operations of one user take turns on the user's row.
        if (ctx.locksRows) await ctx.db.selectFrom('users').select('id').where('id', '=', caller.userId).forUpdate().execute();
        return work(ctx);
      }),
      read: (caller, id) => this.byKey(caller, entries, id),
      running: async (caller) => (await this.reader.query(caller, {
        set: entries.set,
        type: entries.type,
        constraints: [{ property: 'UserID', values: [caller.userId] }, { property: 'EndTime', values: [null] }],
        orderBy: [],
        limit: 1,
      })).records[0],
    };
  }

  private async byKey(caller: Caller, table: EntityTable, id: number): Promise<EdmRecord | undefined> {
    const page = await this.reader.query(caller, {
      set: table.set,
      type: table.type,
      constraints: [{ property: 'ID', values: [id] }],
      orderBy: [],
      limit: 1,
    });
    return page.records[0];
  }

  /**
   * One transaction, or for a write of one change (SetWrites) its statements as they are (inside
   * a `$batch` changeset's transaction, that one); a constraint the database refuses becomes the
   * client's 409.
   */
  private async write<T>(
    caller: Caller, table: EntityTable, work: (ctx: WriteContext) => Promise<T>, expectedVersions?: Record<string, unknown>, unit: 'transaction' | 'one change' = 'transaction',
  ): Promise<T> {
    const { db, dialect } = this.database;
    const context = (on: Kysely<Database>): WriteContext => ({ db: on, caller, now: Date.now(), locksRows: dialect.name === 'postgres', expectedVersions });
    try {
      return await (unit === 'one change' ? work(context(db)) : withTransaction(db, (trx) => work(context(trx))));
    } catch (error) {
      throw asClientError(error, dialect, table);
    }
  }
}
