// The time-tracking service as a DataSource of the generic OData server: reads through
// EntityReader, writes through the rules of each set, each write one transaction, and the
// service operations of the model (stopwatch, changes digest).
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { KeyValues } from '../../odata/key-predicate.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntitySet, FunctionImport } from '../../odata/model.js';
import type { DataSource, EntityQuery, EntitySelection, FunctionResult, QueryPage, UpdateMode } from '../odata-server/data-source.js';
import { ForbiddenError, NotImplementedError } from '../odata-server/errors.js';
import type { DatabaseHandle } from '../storage/database.js';
import { withTransaction } from '../storage/transaction.js';
import type { Caller } from './caller.js';
import { changesDigest } from './changes-digest.js';
import { EntityReader } from './entity-reader.js';
import { createMasterData, deleteMasterData, updateMasterData } from './master-data-writes.js';
import { LANG, messages } from './messages.js';
import { currentStopwatch, haltStopwatch, startStopwatch } from './stopwatch.js';
import type { StopwatchStore } from './stopwatch.js';
import type { EntityTable } from './tables.js';
import { EntityTables } from './tables.js';
import { createTimeEntry, deleteTimeEntry, updateTimeEntry } from './time-entry-writes.js';
import type { WriteContext } from './write-support.js';
import { asClientError } from './write-support.js';

const MASTER_DATA = new Set(['Projects', 'Clients', 'Tasks']);

export class TimeTrackingDataSource implements DataSource<Caller> {
  private readonly tables: EntityTables;
  private readonly reader: EntityReader;
  private readonly stopwatch: StopwatchStore;

  constructor(private readonly database: DatabaseHandle, private readonly index: ModelIndex, shared?: { tables: EntityTables; reader: EntityReader }) {
    this.tables = shared?.tables ?? new EntityTables(index, database.dialect);
    this.reader = shared?.reader ?? new EntityReader(database.db, this.tables, database.dialect);
    const entries = this.tables.of('TimeEntries');
    this.stopwatch = {
      write: (caller, work) => this.write(caller, entries, async (ctx) => {
        // Concurrent stopwatch operations of one user take turns on the user's row.
        if (ctx.locksRows) await ctx.trx.selectFrom('users').select('id').where('id', '=', caller.userId).forUpdate().execute();
        return work(ctx);
      }),
      read: async (caller, id) => (await this.byKey(caller, entries, id)),
      running: async (caller) => (await this.reader.query(caller, {
        set: entries.set,
        type: entries.type,
        constraints: [{ property: 'UserID', values: [caller.userId] }, { property: 'EndTime', values: [null] }],
        orderBy: [],
        limit: 1,
      })).records[0],
    };
  }

  query(caller: Caller, query: EntityQuery): Promise<QueryPage> {
    return this.reader.query(caller, query);
  }

  count(caller: Caller, selection: EntitySelection): Promise<number> {
    return this.reader.count(caller, selection);
  }

  async create(caller: Caller, set: EntitySet, values: EdmRecord): Promise<EdmRecord> {
    const table = this.writable(set);
    const id = await this.write(caller, table, (ctx) =>
      set.name === 'TimeEntries' ? createTimeEntry(ctx, table, values) : createMasterData(ctx, table, values));
    return (await this.byKey(caller, table, id)) as EdmRecord;
  }

  async update(caller: Caller, set: EntitySet, key: KeyValues, values: EdmRecord, mode: UpdateMode): Promise<void> {
    const table = this.writable(set);
    const id = key.ID as number;
    await this.write(caller, table, (ctx) =>
      set.name === 'TimeEntries' ? updateTimeEntry(ctx, table, id, values, mode) : updateMasterData(ctx, table, id, values));
  }

  async remove(caller: Caller, set: EntitySet, key: KeyValues): Promise<void> {
    const table = this.writable(set);
    const id = key.ID as number;
    await this.write(caller, table, (ctx) => (set.name === 'TimeEntries' ? deleteTimeEntry(ctx, id) : deleteMasterData(ctx, table, id)));
  }

  async invoke(caller: Caller, fn: FunctionImport, parameters: Readonly<Record<string, EdmValue>>): Promise<FunctionResult> {
    switch (fn.name) {
      case 'CurrentStopWatch':
        return currentStopwatch(this.stopwatch, caller);
      case 'StartStopWatch':
        return startStopwatch(this.stopwatch, caller, fn, parameters);
      case 'HaltStopWatch':
        return haltStopwatch(this.stopwatch, caller);
      case 'GetChangesDigest':
        return changesDigest(this.database.db, this.index, this.tables, caller, parameters.LastSynchronizationTime as Date, Date.now());
      default:
        throw new NotImplementedError(`the service operation ${fn.name} is not implemented`);
    }
  }

  /** One transaction; each write inside joins it (withTransaction) and every read runs in it. */
  atomically<T>(work: (source: DataSource<Caller>) => Promise<T>): Promise<T> {
    return this.database.db.transaction().execute((trx) =>
      work(new TimeTrackingDataSource({ ...this.database, db: trx }, this.index, { tables: this.tables, reader: this.reader.on(trx) })));
  }

  private writable(set: EntitySet): EntityTable {
    if (set.name !== 'TimeEntries' && !MASTER_DATA.has(set.name)) throw new ForbiddenError(messages.readOnly(this.index.typeOfSet(set).name), LANG);
    return this.tables.of(set);
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

  /** One transaction; a constraint the database refuses becomes the client's 409. */
  private async write<T>(caller: Caller, table: EntityTable, work: (ctx: WriteContext) => Promise<T>): Promise<T> {
    const { db, dialect } = this.database;
    try {
      return await withTransaction(db, (trx) => work({ trx, caller, now: Date.now(), locksRows: dialect.name === 'postgres' }));
    } catch (error) {
      throw asClientError(error, dialect, table.type.name);
    }
  }
}
