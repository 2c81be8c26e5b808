// The contract between the generic OData V2 server (this folder) and what holds the data.
// The server turns every URI into a few entity queries and writes; a data source answers them
// for one caller, applying its own visibility and business rules. The time-tracking service is
// one data source (service/timetracking/); any model can be served by another.
//
// Everything here is in EDMX terms: entity sets, property names, typed Edm values.
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { FilterNode } from '../../odata/filter-ast.js';
import type { KeyValues } from '../../odata/key-predicate.js';
import type { EntitySet, EntityType, FunctionImport } from '../../odata/model.js';
import type { OrderByItem } from '../../odata/orderby.js';
import type { WallClockZone } from '../../odata/wall-clock.js';

/** Entities whose `property` (a primitive property of the set's type) is one of `values`. */
export interface MemberOf {
  readonly property: string;
  readonly values: readonly EdmValue[];
}

export interface EntitySelection {
  readonly set: EntitySet;
  readonly type: EntityType;
  /** All must hold: key lookups, navigation from a parent, batched `$expand`. */
  readonly constraints: readonly MemberOf[];
  /** The client's `$filter`, checked against the model. */
  readonly filter?: FilterNode;
}

export interface EntityQuery extends EntitySelection {
  /**
   * A total order: the client's `$orderby`, then the key properties not yet in it. Nulls sort
   * first in ascending order (and last in descending), on every data source.
   */
  readonly orderBy: readonly OrderByItem[];
  /** Keyset paging: the order values (one per `orderBy` item) of the first entity to return. */
  readonly from?: readonly EdmValue[];
  readonly skip?: number;
  /** Most entities to return; absent = all that match. */
  readonly limit?: number;
}

export interface QueryPage {
  readonly records: readonly EdmRecord[];
  /** When `limit` cut the result short: the order values of the first entity left out. */
  readonly next?: readonly EdmValue[];
}

/** Replace (PUT) resets what the payload omits; merge (MERGE, PATCH) keeps it. */
export type UpdateMode = 'merge' | 'replace';

/**
 * The values of the set's concurrency properties (`ConcurrencyMode="Fixed"`) the entity must
 * still have for a write to happen, from the ETag the client's If-Match named. The data source
 * compares them in the write itself (not before it), so of two writers holding one ETag exactly
 * one succeeds; the other gets a PreconditionFailedError.
 */
export type WriteCondition = EdmRecord;

/** An update of one entity. */
export interface EntityChange {
  readonly key: KeyValues;
  /**
   * The properties the client gave (merge), or every writable property with its default filled
   * in where the client gave none (replace); read-only properties are never in it.
   */
  readonly values: EdmRecord;
  readonly mode: UpdateMode;
  readonly condition?: WriteCondition | undefined;
  /**
   * The entity as this request read it, just before (every property): the source may take it
   * for the current state instead of reading it again, if it makes the change only while the
   * entity is still that version.
   */
  readonly current?: EdmRecord;
}

/** What a function import returns: entities of its entity set, or complex/primitive values. */
export type FunctionResult = EdmRecord | readonly EdmRecord[] | EdmValue | readonly EdmValue[];

export interface DataSource<Caller> {
  query(caller: Caller, query: EntityQuery): Promise<QueryPage>;
  count(caller: Caller, selection: EntitySelection): Promise<number>;
  /** Creates the entity and returns it as a read would (with its key and computed values). */
  create(caller: Caller, set: EntitySet, values: EdmRecord): Promise<EdmRecord>;
  /**
   * Changes the entity; its new values of the concurrency properties (its new ETag) when the
   * source knows them.
   */
  update(caller: Caller, set: EntitySet, change: EntityChange): Promise<EdmRecord | undefined>;
  remove(caller: Caller, set: EntitySet, key: KeyValues, condition?: WriteCondition): Promise<void>;
  /** Parameters by EDMX name, typed; absent nullable parameters are null. */
  invoke(caller: Caller, fn: FunctionImport, parameters: Readonly<Record<string, EdmValue>>): Promise<FunctionResult>;
  /**
   * Runs `work` as one unit (a `$batch` changeset): what it does through the source it is given
   * is kept together, or not at all when it throws. A source without it cannot run changesets.
   */
  atomically?<T>(work: (source: DataSource<Caller>) => Promise<T>): Promise<T>;
  /**
   * The zone whose wall-clock time the caller's Edm.DateTime values are on the wire; the source
   * itself holds instants (wall-clock-edge.ts converts both ways). Absent or undefined: UTC.
   */
  wallClock?(caller: Caller): WallClockZone | undefined;
}
