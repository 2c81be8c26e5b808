// The writes of master data (Projects, Clients, Tasks): administrators only, the set's own checks
// first, and no delete while others refer to the entity (the sets referring to it come from the
// model's associations; a database constraint would refuse too, less clearly).
import type { EdmRecord } from '../../../odata/edm.js';
import { ForbiddenError } from '../../odata-server/errors.js';
import { LANG, messages } from '../messages.js';
import type { EntityTable } from '../tables.js';
import type { WriteContext } from '../write-support.js';
import { deleteRow, insertRow, refuseIfReferenced, toColumns, updateRow } from '../write-support.js';
import type { SetWrites } from './entity-set.js';

export interface AdminWriteRules {
  /** Checks (and normalises) the values of a create or update. */
  readonly check?: (ctx: WriteContext, values: EdmRecord) => Promise<EdmRecord>;
  /** Refuses a delete for a reason of the set's own, beyond references. */
  readonly beforeDelete?: (ctx: WriteContext, id: number) => Promise<void>;
}

function requireAdmin(ctx: WriteContext, table: EntityTable): void {
  if (!ctx.caller.isAdmin) throw new ForbiddenError(messages.adminsOnly(table.definition.noun), LANG);
}

export function adminWrites(rules: AdminWriteRules): SetWrites {
  const checked = (ctx: WriteContext, values: EdmRecord) => (rules.check === undefined ? values : rules.check(ctx, values));
  return {
    async create(ctx, table, values) {
      requireAdmin(ctx, table);
      return { record: await insertRow(ctx, table, toColumns(table, await checked(ctx, values))) };
    },
    async update(ctx, table, id, values) {
      requireAdmin(ctx, table);
      return updateRow(ctx, table, id, toColumns(table, await checked(ctx, values)));
    },
    async remove(ctx, table, id) {
      requireAdmin(ctx, table);
      await refuseIfReferenced(ctx, table, id);
      await rules.beforeDelete?.(ctx, id);
      await deleteRow(ctx, table, id);
    },
  };
}
