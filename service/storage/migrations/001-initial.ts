// The initial schema. Frozen once released: later changes are new migrations, never edits here,
// and nothing here may be derived from the OData Model (the model may change, the SQL history not).
//
// Representation decisions (the same on both databases, so queries need no dialect switch):
// - Timestamps are UTC epoch milliseconds (SQLite integer, PostgreSQL bigint): exact, cheap to
//   compare and index, and identical on both (no driver time-zone conversions).
// - Booleans are smallint 0/1 with a CHECK, also on PostgreSQL: better-sqlite3 cannot bind JS
//   booleans and reads 0/1, and a PostgreSQL boolean refuses `= 1`; one representation keeps the
//   compiled $filter SQL, the bindings and the row readers identical. The cost is nil.
// - IDs are per table (unique across accounts), never reused (SQLite AUTOINCREMENT, PostgreSQL
//   identity), so a deleted time entry's ID in the deletion log can never point at a new one.
// - Isolation at the data level: every table carries account_id, and references between
//   account-owned rows are composite (account_id, x_id) -> (account_id, id), so a row can never
//   point at a row of another account, whatever the application does.
// - References are ON DELETE RESTRICT: deleting a client/project/task/user with dependants fails
//   as a whole.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

type Table = CreateTableBuilder<string, string>;

export function initialSchema(dialect: DialectName): Migration {
  const isPostgres = dialect === 'postgres';
  const epochMs = isPostgres ? 'bigint' : 'integer';

  const id = (table: Table): Table =>
    table.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) =>
      isPostgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement());

  const flag = (table: Table, column: string, defaultValue: 0 | 1): Table =>
    table.addColumn(column, 'smallint', (c) =>
      c.notNull().defaultTo(defaultValue).check(sql`${sql.ref(column)} in (0, 1)`));

  const customFields = (table: Table): Table =>
    [1, 2, 3, 4, 5].reduce((t, n) => t.addColumn(`custom${n}`, 'varchar(50)'), table);

  const changeStamp = (table: Table): Table =>
    table
      .addColumn('last_change_time', epochMs, (c) => c.notNull())
      .addColumn('last_change_author', 'integer', (c) => c.notNull());

  const ownedBy = (table: Table, name: string): Table =>
    table
      .addColumn('account_id', 'integer', (c) => c.notNull())
      .addForeignKeyConstraint(`${name}_account_fk`, ['account_id'], 'accounts', ['id'], (f) => f.onDelete('restrict'))
      // The target of composite references from dependants (see the header).
      .addUniqueConstraint(`${name}_account_id_unique`, ['account_id', 'id']);

  const reference = (table: Table, name: string, column: string, parent: string): Table =>
    table.addForeignKeyConstraint(`${name}_${column}_fk`, ['account_id', column], parent, ['account_id', 'id'],
      (f) => f.onDelete('restrict'));

  const labels = (table: Table): Table =>
    ['project', 'client', 'task', 'user', 'time_entry'].reduce(
      (t, entity) => [1, 2, 3, 4, 5].reduce((u, n) => u.addColumn(`${entity}_custom${n}_label`, 'varchar(50)'), t),
      table);

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const s = db.schema;

      await id(s.createTable('accounts'))
        .addColumn('name', 'varchar(100)', (c) => c.notNull())
        .addColumn('created_at', epochMs, (c) => c.notNull())
        .execute();

      let users = ownedBy(id(s.createTable('users')), 'users')
        .addColumn('title', 'varchar(50)')
        .addColumn('first_name', 'varchar(80)', (c) => c.notNull())
        .addColumn('last_name', 'varchar(80)', (c) => c.notNull())
        .addColumn('email', 'varchar(80)', (c) => c.notNull())
        .addColumn('language', 'varchar(2)', (c) => c.notNull())
        .addColumn('access_rights', 'smallint', (c) => c.notNull())
        .addCheckConstraint('users_access_rights_known', sql`access_rights in (10, 20)`)
        .addColumn('comment', 'varchar(1500)');
      users = changeStamp(customFields(flag(users, 'active', 1)));
      await users.execute();
      // Unique per account, ignoring case: one person, one login.
      await sql`create unique index users_account_email_unique on users (account_id, lower(email))`.execute(db);
      await s.createIndex('users_account_change').on('users').columns(['account_id', 'last_change_time', 'id']).execute();

      await id(s.createTable('api_keys'))
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('prefix', 'varchar(16)', (c) => c.notNull())
        .addColumn('created_at', epochMs, (c) => c.notNull())
        .addColumn('revoked_at', epochMs)
        .addUniqueConstraint('api_keys_hash_unique', ['hash'])
        .addForeignKeyConstraint('api_keys_user_id_fk', ['account_id', 'user_id'], 'users', ['account_id', 'id'],
          (f) => f.onDelete('restrict'))
        .execute();
      await s.createIndex('api_keys_user').on('api_keys').columns(['account_id', 'user_id']).execute();

      let settings = id(s.createTable('account_settings'))
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addForeignKeyConstraint('account_settings_account_fk', ['account_id'], 'accounts', ['id'], (f) => f.onDelete('restrict'))
        .addUniqueConstraint('account_settings_account_unique', ['account_id'])
        .addColumn('company_name', 'varchar(100)', (c) => c.notNull())
        .addColumn('time_zone', 'varchar(64)', (c) => c.notNull())
        .addColumn('currency', 'varchar(3)', (c) => c.notNull())
        .addColumn('booking_close_date', epochMs);
      settings = labels(flag(settings, 'hourly_rates_enabled', 1));
      await settings.execute();

      let clients = ownedBy(id(s.createTable('clients')), 'clients')
        .addColumn('name', 'varchar(50)', (c) => c.notNull())
        .addColumn('comment', 'varchar(1500)');
      clients = changeStamp(customFields(flag(clients, 'active', 0)));
      await clients.execute();
      await s.createIndex('clients_account_change').on('clients').columns(['account_id', 'last_change_time', 'id']).execute();

      let projects = ownedBy(id(s.createTable('projects')), 'projects')
        .addColumn('name', 'varchar(50)', (c) => c.notNull())
        .addColumn('comment', 'varchar(1500)')
        .addColumn('time_budget', 'integer')
        .addColumn('client_id', 'integer')
        .addColumn('hourly_rate', 'numeric(18, 2)')
        .addColumn('assigned_users', 'varchar(4000)')
        .addColumn('assigned_tasks', 'varchar(4000)');
      projects = changeStamp(customFields(flag(reference(projects, 'projects', 'client_id', 'clients'), 'active', 0)));
      await projects.execute();
      await s.createIndex('projects_client').on('projects').columns(['account_id', 'client_id']).execute();
      await s.createIndex('projects_account_change').on('projects').columns(['account_id', 'last_change_time', 'id']).execute();

      let tasks = ownedBy(id(s.createTable('tasks')), 'tasks')
        .addColumn('description', 'varchar(100)', (c) => c.notNull())
        .addColumn('comment', 'varchar(1500)');
      tasks = changeStamp(customFields(flag(flag(tasks, 'billable', 1), 'active', 1)));
      await tasks.execute();
      await s.createIndex('tasks_account_change').on('tasks').columns(['account_id', 'last_change_time', 'id']).execute();

      let entries = id(s.createTable('time_entries'))
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('type_id', 'smallint', (c) => c.notNull().defaultTo(2))
        .addCheckConstraint('time_entries_type_known', sql`type_id in (1, 2)`)
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('task_id', 'integer')
        .addColumn('start_time', epochMs, (c) => c.notNull())
        .addColumn('end_time', epochMs)
        .addCheckConstraint('time_entries_end_not_before_start', sql`end_time is null or end_time >= start_time`)
        .addColumn('comment', 'varchar(1500)');
      entries = reference(reference(reference(entries, 'time_entries', 'user_id', 'users'),
        'time_entries', 'project_id', 'projects'), 'time_entries', 'task_id', 'tasks');
      entries = changeStamp(customFields(flag(flag(entries, 'billable', 1), 'locked', 0)));
      await entries.execute();
      // Every index ends in id: the tie-breaker of keyset paging, so "order by X, id" is an index scan.
      const entryIndexes: Record<string, string[]> = {
        time_entries_account_id: ['account_id', 'id'],
        time_entries_start: ['account_id', 'start_time', 'id'],
        time_entries_end: ['account_id', 'end_time', 'id'],
        time_entries_change: ['account_id', 'last_change_time', 'id'],
        time_entries_project_start: ['account_id', 'project_id', 'start_time', 'id'],
        time_entries_user_start: ['account_id', 'user_id', 'start_time', 'id'],
        time_entries_task_start: ['account_id', 'task_id', 'start_time', 'id'],
      };
      for (const [name, columns] of Object.entries(entryIndexes)) {
        await s.createIndex(name).on('time_entries').columns(columns).execute();
      }
      // At most one running stopwatch per user, whatever the number of service processes.
      await s.createIndex('time_entries_one_running_per_user').on('time_entries').column('user_id').unique()
        .where(sql.ref('end_time'), 'is', null).execute();

      await s.createTable('deleted_time_entries')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('deleted_at', epochMs, (c) => c.notNull())
        .addForeignKeyConstraint('deleted_time_entries_account_fk', ['account_id'], 'accounts', ['id'], (f) => f.onDelete('restrict'))
        .execute();
      await s.createIndex('deleted_time_entries_account_time').on('deleted_time_entries')
        .columns(['account_id', 'deleted_at']).execute();
    },
  };
}
