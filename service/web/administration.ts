// What the administration pages do with the account's data, through the same doors as the API:
// master data (Clients, Projects, Tasks) created and changed with the model's payload rules and
// the sets' write rules (sets/), reads through the data source (so another account's ids are no
// different from none), and what lies beyond the API (account settings, locking entries up to a
// date) through AccountChanges. Nothing here knows a rule of its own.
import type { Kysely } from 'kysely';
import type { EdmRecord } from '../../odata/edm.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntitySet, EntityType } from '../../odata/model.js';
import type { MemberOf as Constraint, WriteCondition } from '../odata-server/data-source.js';
import type { ValidationMessages } from '../odata-server/messages.js';
import { PayloadRules } from '../odata-server/payload-rules.js';
import type { Database } from '../storage/schema.js';
import { AccountChanges } from '../timetracking/account-changes.js';
import type { Caller } from '../timetracking/caller.js';
import type { TimeTrackingDataSource } from '../timetracking/data-source.js';

export type MasterSet = 'Clients' | 'Projects' | 'Tasks';
type SetName = MasterSet | 'Users' | 'TimeEntries' | 'AccountSettings';

const ORDER: Readonly<Record<SetName, string>> = {
  Clients: 'Name', Projects: 'Name', Tasks: 'Description', Users: 'LastName', TimeEntries: 'StartTime', AccountSettings: 'ID',
};

/** The id a URL names: a positive Edm.Int32; undefined for anything else (no such entity). */
function idOf(text: string): number | undefined {
  return /^\d{1,10}$/.test(text) && Number(text) > 0 && Number(text) <= 2_147_483_647 ? Number(text) : undefined;
}

export class Administration {
  readonly messages: ValidationMessages;
  private readonly rules: PayloadRules;
  private readonly changes: AccountChanges;
  private readonly sets = new Map<SetName, { set: EntitySet; type: EntityType }>();

  constructor(private readonly index: ModelIndex, private readonly source: TimeTrackingDataSource, readonly db: Kysely<Database>) {
    this.messages = source.messages;
    this.rules = new PayloadRules(index.model, source.messages);
    this.changes = new AccountChanges(db, index);
    for (const name of Object.keys(ORDER) as SetName[]) {
      const set = index.entitySet(name);
      if (set === undefined) throw new Error(`the model has no entity set ${name}`);
      this.sets.set(name, { set, type: index.typeOfSet(set) });
    }
  }

  typeOf(name: SetName): EntityType {
    return this.of(name).type;
  }

  /** Every entity of the set the caller reads, by name. */
  async list(caller: Caller, name: SetName, constraints: readonly Constraint[] = []): Promise<readonly EdmRecord[]> {
    const page = await this.source.query(caller, {
      ...this.of(name), constraints,
      orderBy: [{ path: [ORDER[name]], type: 'Edm.String', direction: 'asc' }, { path: ['ID'], type: 'Edm.Int32', direction: 'asc' }],
    });
    return page.records;
  }

  /** One entity the caller reads; undefined for any other id (another account's, none, no number). */
  async one(caller: Caller, name: SetName, idText: string): Promise<EdmRecord | undefined> {
    const id = idOf(idText);
    if (id === undefined) return undefined;
    const page = await this.source.query(caller, { ...this.of(name), constraints: [{ property: 'ID', values: [id] }], orderBy: [], limit: 1 });
    return page.records[0];
  }

  async create(caller: Caller, name: MasterSet, values: EdmRecord): Promise<EdmRecord> {
    const { set, type } = this.of(name);
    return this.source.create(caller, set, this.rules.forCreate(type, values));
  }

  /** Changes the entity while it is still the version `condition` names (row-versions.ts). */
  async update(caller: Caller, name: MasterSet, id: number, values: EdmRecord, condition: WriteCondition): Promise<void> {
    const { set, type } = this.of(name);
    const key = { ID: id };
    await this.source.update(caller, set, { key, values: this.rules.forUpdate(type, key, values, 'merge'), mode: 'merge', condition });
  }

  /**
   * A user's values (names, address, ...) checked against the model's User type, with the API's
   * messages or the page's (`messages`).
   */
  checkUser(values: EdmRecord, messages?: ValidationMessages): EdmRecord {
    const rules = messages === undefined ? this.rules : new PayloadRules(this.index.model, messages);
    return rules.forAdministration(this.of('Users').type, values);
  }

  /**
   * The internal row version (migration 005) of a user of the caller's account; undefined for
   * another account's or none. Read before the row's values (here and in settingsVersion), so a
   * change between the two reads makes the form stale (refused) rather than blind.
   */
  async userVersion(caller: Caller, idText: string): Promise<number | undefined> {
    const id = idOf(idText);
    if (id === undefined) return undefined;
    const row = await this.db.selectFrom('users').select('version').where('account_id', '=', caller.accountId).where('id', '=', id).executeTakeFirst();
    return row?.version;
  }

  settingsVersion(caller: Caller): Promise<number> {
    return this.changes.settingsVersion(caller);
  }

  /** The account's settings (one entity per account). */
  async settings(caller: Caller): Promise<EdmRecord> {
    const [settings] = await this.list(caller, 'AccountSettings');
    if (settings === undefined) throw new Error(`account ${caller.accountId} has no settings`);
    return settings;
  }

  /** Changes the settings while they are still `version` (else PreconditionFailedError). */
  changeSettings(caller: Caller, values: EdmRecord, version: number): Promise<void> {
    return this.changes.changeSettings(caller, values, version);
  }

  lockEntries(caller: Caller, before: number, locked: boolean): Promise<number> {
    return this.changes.lockEntries(caller, before, locked);
  }

  /** Ids of the account's users who have no password yet (invited, not signed in). */
  async pendingUsers(caller: Caller): Promise<ReadonlySet<number>> {
    const rows = await this.db.selectFrom('users').select('id').where('account_id', '=', caller.accountId).where('password_hash', 'is', null).execute();
    return new Set(rows.map((row) => row.id));
  }

  private of(name: SetName): { set: EntitySet; type: EntityType } {
    return this.sets.get(name) as { set: EntitySet; type: EntityType };
  }
}
