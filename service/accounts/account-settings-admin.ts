// Changing an account's settings from the operator's side (`timegate admin set-settings`): the
// booking close date, the time zone, hourly rates on or off, and the custom-field labels. The API
// only reads these (data-model.md: AccountSettings is read-only there); the web administration
// pages change them too, under the same rules (account-settings-rules.ts) and messages.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { AccountSettingsTable, Database } from '../storage/schema.js';
import { withTransaction } from '../storage/transaction.js';
import { AccountAdminError } from './account-errors.js';
import { closeDateText } from './account-admin.js';
import * as input from './account-input.js';
import { LABELLED_ENTITIES } from './account-input.js';
import type { LabelledEntity } from './account-input.js';
import * as rules from '../timetracking/account-settings-rules.js';
import type { LabelledType } from '../timetracking/account-settings-rules.js';

export interface CustomLabelChange {
  readonly entity: LabelledEntity;
  /** 1..5 */
  readonly slot: number;
  /** The new label; null or '' removes it. */
  readonly label: string | null;
}

export interface SettingsChange {
  /**
   * Entries starting before midnight of this day (`YYYY-MM-DD`, on the account's wall clock)
   * are closed for standard users; null opens every period again.
   */
  readonly bookingCloseDate?: string | null;
  /** IANA zone. A close date already set keeps its day, on the new zone's wall clock. */
  readonly timeZone?: string;
  readonly hourlyRates?: boolean;
  readonly customLabels?: readonly CustomLabelChange[];
}

export interface AccountSettingsView {
  readonly accountId: number;
  readonly timeZone: string;
  readonly hourlyRates: boolean;
  readonly bookingCloseDate: string | null;
  /** The labels that are set, as `{"time-entry.1": "Ticket"}`. */
  readonly customLabels: Readonly<Record<string, string>>;
}

const LABEL_COLUMN_PREFIX: Readonly<Record<LabelledEntity, string>> = {
  project: 'project', client: 'client', task: 'task', user: 'user', 'time-entry': 'time_entry',
};

/** How the model names the entity: its label properties are `<type>Custom<slot>Label`. */
const LABELLED_TYPE: Readonly<Record<LabelledEntity, LabelledType>> = {
  project: 'Project', client: 'Client', task: 'Task', user: 'User', 'time-entry': 'TimeEntry',
};

type LabelColumn = Extract<keyof AccountSettingsTable, `${string}_label`>;

function labelColumn(entity: LabelledEntity, slot: number): LabelColumn {
  return `${LABEL_COLUMN_PREFIX[entity]}_custom${slot}_label` as LabelColumn;
}

/** Applies the change in one transaction and answers with the settings as they are now. */
export async function updateSettings(db: Kysely<Database>, accountId: number, change: SettingsChange): Promise<AccountSettingsView> {
  const id = input.positiveId('account', accountId);
  const nothing = change.bookingCloseDate === undefined && change.timeZone === undefined && change.hourlyRates === undefined
    && (change.customLabels ?? []).length === 0;
  if (nothing) throw new AccountAdminError('invalid-input', 'nothing to change: give --booking-close-date, --time-zone, --hourly-rates or --custom-label');
  const { timeZone: zoneText, bookingCloseDate: closeText } = change;
  const timeZone = zoneText === undefined ? undefined : input.setting(() => rules.timeZone(zoneText));
  let closeDay: number | null | undefined;
  if (closeText === null || closeText?.trim() === '') closeDay = null;
  else if (closeText !== undefined) closeDay = input.setting(() => rules.closeDay(closeText));
  const labels: Partial<Record<LabelColumn, string | null>> = {};
  for (const { entity, slot, label } of change.customLabels ?? []) {
    if (!LABEL_COLUMN_PREFIX[entity] || !Number.isInteger(slot) || slot < 1 || slot > 5) {
      throw new AccountAdminError('invalid-input', `custom label must name one of ${LABELLED_ENTITIES.join(', ')} and a slot 1 to 5`);
    }
    labels[labelColumn(entity, slot)] = input.setting(() => rules.customLabel(rules.labelProperty(LABELLED_TYPE[entity], slot), label));
  }
  return withTransaction(db, async (trx) => {
    const current = await trx.selectFrom('account_settings').select(['time_zone', 'booking_close_date'])
      .where('account_id', '=', id).executeTakeFirst();
    if (current === undefined) throw new AccountAdminError('account-not-found', `no account ${accountId}`);
    const zone = timeZone ?? current.time_zone;
    // The close date is kept as the instant of that day's midnight in the account's zone.
    const keptDay = closeDay === undefined && timeZone !== undefined && current.booking_close_date !== null
      ? Date.parse(`${closeDateText(current.booking_close_date, current.time_zone)}T00:00:00Z`)
      : closeDay;
    await trx.updateTable('account_settings').set({
      ...(timeZone === undefined ? {} : { time_zone: timeZone }),
      ...(change.hourlyRates === undefined ? {} : { hourly_rates_enabled: change.hourlyRates ? 1 : 0 }),
      ...(keptDay === undefined ? {} : { booking_close_date: keptDay === null ? null : rules.closeInstant(keptDay, zone) }),
      ...labels,
      // A settings form open meanwhile is now stale (row-versions.ts): it cannot undo this change.
      version: sql`version + 1`,
    }).where('account_id', '=', id).execute();
    return readSettings(trx, id);
  });
}

async function readSettings(db: Kysely<Database>, accountId: number): Promise<AccountSettingsView> {
  const row = await db.selectFrom('account_settings').selectAll().where('account_id', '=', accountId).executeTakeFirstOrThrow();
  const customLabels: Record<string, string> = {};
  for (const entity of LABELLED_ENTITIES) {
    for (let slot = 1; slot <= 5; slot++) {
      const label = row[labelColumn(entity, slot)];
      if (label !== null) customLabels[`${entity}.${slot}`] = label;
    }
  }
  return {
    accountId,
    timeZone: row.time_zone,
    hourlyRates: row.hourly_rates_enabled === 1,
    bookingCloseDate: closeDateText(row.booking_close_date, row.time_zone),
    customLabels,
  };
}
