// What administrators change beyond the API's writes (data-model.md keeps AccountSettings and
// Users read-only through the API): the account settings, and locking or unlocking every entry up
// to a date. Administrators only; the model's facets (nullable, MaxLength) are checked by the
// payload rules with the API's own messages, and the settings' own rules by
// account-settings-rules.ts, which the CLI's `timegate admin set-settings` asks as well.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { EdmRecord } from '../../odata/edm.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntityType } from '../../odata/model.js';
import { ForbiddenError, PreconditionFailedError } from '../odata-server/errors.js';
import { PayloadRules } from '../odata-server/payload-rules.js';
import type { Database } from '../storage/schema.js';
import { withTransaction } from '../storage/transaction.js';
import type { Caller } from './caller.js';
import { checkedSettings, settingsMessages } from './account-settings-rules.js';
import { LANG, entryMessages, validationMessages } from './messages.js';
import { accountSettings } from './sets/account-settings.js';
import { columnName } from './tables.js';

export class AccountChanges {
  private readonly rules: PayloadRules;
  private readonly settingsType: EntityType;

  constructor(private readonly db: Kysely<Database>, index: ModelIndex) {
    this.rules = new PayloadRules(index.model, validationMessages(() => accountSettings.noun));
    const set = index.entitySet(accountSettings.name);
    if (set === undefined) throw new Error('the model has no entity set AccountSettings');
    this.settingsType = index.typeOfSet(set);
  }

  /**
   * Changes the given properties of the caller's account settings (EDMX names, typed values;
   * BookingCloseDate an instant or null) while they are still `expectedVersion` (the internal
   * row version the form showed, migration 005), compared in the statement that writes: a
   * PreconditionFailedError when they have changed meanwhile. A ValidationError names the first
   * property refused.
   */
  async changeSettings(caller: Caller, values: EdmRecord, expectedVersion: number): Promise<void> {
    if (!caller.isAdmin) throw new ForbiddenError(settingsMessages.adminsOnly(), LANG);
    const checked = checkedSettings(this.rules.forAdministration(this.settingsType, values));
    const row: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(checked)) {
      row[columnName(name)] = typeof value === 'boolean' ? (value ? 1 : 0) : value instanceof Date ? value.getTime() : value;
    }
    const result = await this.db.updateTable('account_settings').set({ ...row, version: sql`version + 1` })
      .where('account_id', '=', caller.accountId).where('version', '=', expectedVersion).executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw new PreconditionFailedError();
  }

  /**
   * The internal version of the caller's account settings. Read before the settings themselves,
   * so a change between the two reads makes the form stale (refused) rather than blind.
   */
  async settingsVersion(caller: Caller): Promise<number> {
    const row = await this.db.selectFrom('account_settings').select('version').where('account_id', '=', caller.accountId).executeTakeFirstOrThrow();
    return row.version;
  }

  /**
   * Locks (or unlocks) every finished entry of the account starting before `before` (an
   * instant); how many changed. Each changed entry is stamped and its version counted up, as an
   * API write would, so sync clients and ETags see the change.
   */
  async lockEntries(caller: Caller, before: number, locked: boolean): Promise<number> {
    if (!caller.isAdmin) throw new ForbiddenError(entryMessages.lockByAdminsOnly(), LANG);
    return withTransaction(this.db, async (trx) => {
      const result = await trx.updateTable('time_entries')
        .set({ locked: locked ? 1 : 0, last_change_time: Date.now(), last_change_author: caller.userId, version: sql`version + 1` })
        .where('account_id', '=', caller.accountId).where('start_time', '<', before)
        .where('end_time', 'is not', null).where('locked', '=', locked ? 0 : 1)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    });
  }
}
