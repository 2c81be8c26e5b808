// The row types of the SQL schema, as Kysely sees them. They mirror the migrations (which are the
// truth); the OData layer maps entity properties onto these snake_case columns.
//
// Representation, identical on SQLite and PostgreSQL so queries and readers need no dialect switch:
//   - timestamps: UTC milliseconds since the epoch (integer / bigint, read back as number);
//   - booleans:   0 or 1 (see `Flag`; why: 001-initial.ts);
//   - decimals:   NUMERIC(18,2) (string on PostgreSQL, number on SQLite: see StorageDialect.readDecimal).
import type { ColumnType, Generated } from 'kysely';

/** 0 = false, 1 = true. */
export type Flag = 0 | 1;

/** UTC milliseconds since 1970-01-01. */
export type EpochMs = number;

/** A NUMERIC(18,2) column: written as a canonical decimal string, read per dialect. */
export type DecimalColumn = ColumnType<string | number, string, string>;

export interface CustomFields {
  custom1: string | null;
  custom2: string | null;
  custom3: string | null;
  custom4: string | null;
  custom5: string | null;
}

export interface ChangeStamp {
  last_change_time: EpochMs;
  last_change_author: number;
}

/**
 * The row version (migration 004 for the tables clients write, the EDMX's Version; 005 for users
 * and account settings, internal): 1 on insert, bumped by each change.
 */
export interface RowVersion {
  version: Generated<number>;
}

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  created_at: EpochMs;
}

export interface UsersTable extends CustomFields, ChangeStamp, RowVersion {
  id: Generated<number>;
  account_id: number;
  title: string | null;
  first_name: string;
  last_name: string;
  email: string;
  language: string;
  /** 10 = standard user, 20 = administrator. */
  access_rights: number;
  comment: string | null;
  active: Flag;
  /** scrypt hash of the web interface password (passwords.ts); null until an invitation is redeemed. */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  /** sha-256 of the key, lowercase hex. The key itself is never stored. */
  hash: string;
  /** The first characters of the key, so a person can tell their keys apart. */
  prefix: string;
  created_at: EpochMs;
  revoked_at: EpochMs | null;
  /** When the key last authenticated a request (updated at most once a minute). */
  last_used_at: ColumnType<EpochMs | null, EpochMs | null | undefined, EpochMs | null>;
}

/** A signed-in browser (service/web/sessions.ts). */
export interface WebSessionsTable {
  /** sha-256 of the session cookie's value, lowercase hex. */
  token_hash: string;
  account_id: number;
  user_id: number;
  /** The token every form and write of this session must carry. */
  csrf_token: string;
  created_at: EpochMs;
  expires_at: EpochMs;
}

/** A one-time link to set a password (service/accounts/invitations.ts). */
export interface InvitationsTable {
  /** sha-256 of the link's token, lowercase hex. */
  token_hash: string;
  account_id: number;
  user_id: number;
  created_at: EpochMs;
  expires_at: EpochMs;
  used_at: EpochMs | null;
}

export interface AccountSettingsTable extends RowVersion {
  id: Generated<number>;
  account_id: number;
  company_name: string;
  time_zone: string;
  currency: string;
  booking_close_date: EpochMs | null;
  hourly_rates_enabled: Flag;
  project_custom1_label: string | null;
  project_custom2_label: string | null;
  project_custom3_label: string | null;
  project_custom4_label: string | null;
  project_custom5_label: string | null;
  client_custom1_label: string | null;
  client_custom2_label: string | null;
  client_custom3_label: string | null;
  client_custom4_label: string | null;
  client_custom5_label: string | null;
  task_custom1_label: string | null;
  task_custom2_label: string | null;
  task_custom3_label: string | null;
  task_custom4_label: string | null;
  task_custom5_label: string | null;
  user_custom1_label: string | null;
  user_custom2_label: string | null;
  user_custom3_label: string | null;
  user_custom4_label: string | null;
  user_custom5_label: string | null;
  time_entry_custom1_label: string | null;
  time_entry_custom2_label: string | null;
  time_entry_custom3_label: string | null;
  time_entry_custom4_label: string | null;
  time_entry_custom5_label: string | null;
}

export interface ClientsTable extends CustomFields, ChangeStamp, RowVersion {
  id: Generated<number>;
  account_id: number;
  name: string;
  comment: string | null;
  active: Flag;
}

export interface ProjectsTable extends CustomFields, ChangeStamp, RowVersion {
  id: Generated<number>;
  account_id: number;
  name: string;
  active: Flag;
  comment: string | null;
  /** Seconds. */
  time_budget: number | null;
  client_id: number | null;
  hourly_rate: DecimalColumn | null;
  /** Comma-separated user IDs allowed to book; null = everybody. */
  assigned_users: string | null;
  /** Comma-separated task IDs allowed on the project; null = all tasks. */
  assigned_tasks: string | null;
}

export interface TasksTable extends CustomFields, ChangeStamp, RowVersion {
  id: Generated<number>;
  account_id: number;
  description: string;
  comment: string | null;
  billable: Flag;
  active: Flag;
}

export interface TimeEntriesTable extends CustomFields, ChangeStamp, RowVersion {
  id: Generated<number>;
  account_id: number;
  /** 1 = duration entry, 2 = start/end entry (stopwatch entries are 2). */
  type_id: number;
  user_id: number;
  project_id: number;
  task_id: number | null;
  start_time: EpochMs;
  /** Null only while the entry is a running stopwatch. */
  end_time: EpochMs | null;
  comment: string | null;
  billable: Flag;
  locked: Flag;
}

export interface DeletedTimeEntriesTable {
  /** The ID the deleted time entry had (IDs are never reused). */
  id: number;
  account_id: number;
  deleted_at: EpochMs;
  /** The entry's user; null for deletions logged before migration 002. */
  user_id: number | null;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  account_settings: AccountSettingsTable;
  clients: ClientsTable;
  projects: ProjectsTable;
  tasks: TasksTable;
  time_entries: TimeEntriesTable;
  deleted_time_entries: DeletedTimeEntriesTable;
  web_sessions: WebSessionsTable;
  invitations: InvitationsTable;
}

export type TableName = keyof Database;

export const ACCESS_RIGHTS = { standardUser: 10, administrator: 20 } as const;
export type AccessRights = (typeof ACCESS_RIGHTS)[keyof typeof ACCESS_RIGHTS];

export const TIME_ENTRY_TYPE = { duration: 1, startEnd: 2 } as const;
