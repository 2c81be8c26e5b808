// What one entity set of the time-tracking service declares, in one object per set (one module
// each in this folder, listed in registry.ts): its table, how its entities are named in messages,
// what a standard user may read of it, the values it computes when reading, and its writes.
// Everything else comes from the model: columns from property names, the sets that refer to it
// from the associations, its concurrency property from `ConcurrencyMode="Fixed"`. The generic
// parts (tables.ts, entity-reader.ts, data-source.ts, write-support.ts) read these objects and
// never name a set.
import type { RawBuilder } from 'kysely';
import type { EdmRecord } from '../../../odata/edm.js';
import type { UpdateMode } from '../../odata-server/data-source.js';
import type { ConstraintViolation } from '../../storage/dialect.js';
import type { TableName } from '../../storage/schema.js';
import type { Caller } from '../caller.js';
import type { Noun } from '../messages.js';
import type { EntityTable } from '../tables.js';
import type { WriteContext } from '../write-support.js';

export type Sql = RawBuilder<unknown>;

export interface EntitySetDefinition {
  /** The entity set's name in the model. */
  readonly name: string;
  readonly table: TableName;
  /** How messages name an entity of the set. */
  readonly noun: Noun;
  /**
   * What a standard user may read beyond "rows of their own account" (administrators read the
   * whole account), as a condition on the set's row under `alias`; undefined = all of the account.
   */
  readonly visibleToStandardUser?: (caller: Caller, alias: string) => Sql;
  readonly computed?: ComputedValues;
  /** Writes through the API; undefined = read-only. */
  readonly writes?: SetWrites;
  /** A message for a constraint of the set's table the database refused, if it has a better one. */
  readonly explainViolation?: (violation: ConstraintViolation) => Error | undefined;
}

/** Properties derived when reading instead of stored. */
export interface ComputedValues {
  readonly properties: readonly string[];
  /** One value selected beside the stored columns, for computing them. */
  readonly helper?: HelperColumn;
  /** Fills in the computed properties of a record read with every property of its type. */
  complete(record: EdmRecord, caller: Caller, now: number, helper: unknown): void;
}

export interface HelperColumn {
  /** A join the expression reads from, after the set's table under `alias` (holds no values). */
  readonly join?: (alias: string) => Sql;
  /**
   * The value, over the set's row under `alias`: fixed SQL, compiled once per set with the
   * stored columns, or SQL holding values of the caller, built per read.
   */
  readonly value: { readonly fixed: (alias: string) => Sql } | { readonly ofCaller: (alias: string, caller: Caller) => Sql };
  /** Read as a decimal text with this many fraction digits (whatever the dialect returns). */
  readonly decimalScale?: number;
}

/**
 * The writes of a set. Each runs as one unit: in one transaction, or, for a write of one change
 * (one statement that writes, after the reads of its rules), as that statement alone, which is
 * atomic by itself: a transaction would not keep other writers from changing what the rules
 * read (PostgreSQL's READ COMMITTED shows each statement what is committed when it starts), and
 * its BEGIN and COMMIT were two of a MERGE's four round trips to PostgreSQL.
 */
export interface SetWrites {
  /** Inserts the entity: a write of one change. */
  create(ctx: WriteContext, table: EntityTable, values: EdmRecord): Promise<CreatedEntity>;
  /**
   * Changes the entity, in a transaction (it may lock the row); its new versions
   * (EntityTable.versions) by property name, undefined when it no longer exists.
   */
  update(ctx: WriteContext, table: EntityTable, id: number, values: EdmRecord, mode: UpdateMode): Promise<EdmRecord | undefined>;
  /**
   * Changes the entity as a write of one change, taking `seen` (the entity as the request read it
   * just before) for its current state instead of reading it again: the change is made only
   * while the row still has the versions it had then. Its new versions, or undefined when the
   * row has others by now (update() then runs instead). Absent: update() always runs.
   */
  updateSeen?(ctx: WriteContext, table: EntityTable, id: number, values: EdmRecord, mode: UpdateMode, seen: EdmRecord): Promise<EdmRecord | undefined>;
  remove(ctx: WriteContext, table: EntityTable, id: number): Promise<void>;
}

/** A new entity as its insert returned it (insertRow). */
export interface CreatedEntity {
  /** Every stored property; computed ones still null. */
  readonly record: EdmRecord;
  /**
   * The value of the set's helper column for the new row (ComputedValues.helper), as a read
   * selects it, when the write learnt it on the way; without it the entity is read back.
   */
  readonly helperValue?: unknown;
}
