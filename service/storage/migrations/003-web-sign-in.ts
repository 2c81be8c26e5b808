// Signing in to the web interface: a password per user (an scrypt hash; null until the user has
// redeemed an invitation), one-time invitation links, and sessions in the database, so that a
// deactivated user or a changed password ends them at once on every replica. Tokens are stored
// only as sha-256 hashes, like API keys: a copy of the database lets nobody in.
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

export function webSignIn(dialect: DialectName): Migration {
  const epochMs = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const s = db.schema;
      await s.alterTable('users').addColumn('password_hash', 'varchar(255)').execute();
      await s.alterTable('api_keys').addColumn('last_used_at', epochMs).execute();

      await s.createTable('web_sessions')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('csrf_token', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_at', epochMs, (c) => c.notNull())
        .addColumn('expires_at', epochMs, (c) => c.notNull())
        .addForeignKeyConstraint('web_sessions_user_fk', ['account_id', 'user_id'], 'users', ['account_id', 'id'],
          (f) => f.onDelete('cascade'))
        .execute();
      await s.createIndex('web_sessions_user').on('web_sessions').columns(['user_id']).execute();

      await s.createTable('invitations')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('created_at', epochMs, (c) => c.notNull())
        .addColumn('expires_at', epochMs, (c) => c.notNull())
        .addColumn('used_at', epochMs)
        .addForeignKeyConstraint('invitations_user_fk', ['account_id', 'user_id'], 'users', ['account_id', 'id'],
          (f) => f.onDelete('cascade'))
        .execute();
      await s.createIndex('invitations_user').on('invitations').columns(['user_id']).execute();
    },
  };
}
