// Kysely prepares every query it runs, and better-sqlite3 compiles the SQL on every prepare():
// that was a tenth of the time of a single-entity read. The service sends few distinct SQL texts
// (values are bound parameters; only LIMIT and OFFSET are literals), so compiled statements are
// kept by their text and reused; reading ones build their rows in JavaScript
// (sqlite-row-objects.ts). Reuse is safe because Kysely runs one statement at a time on its one
// SQLite connection, and SQLite recompiles a kept statement by itself when a migration changes
// the schema.
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { withRowObjects } from './sqlite-row-objects.js';

/** Most statements kept: the service's queries come in far fewer shapes. */
const DEFAULT_MAX_STATEMENTS = 500;

export function withStatementCache(database: BetterSqlite3.Database, maxStatements = DEFAULT_MAX_STATEMENTS): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(text: string) {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = withRowObjects(database.prepare(text));
        // Oldest out first: a flood of one-off $filter shapes cannot grow the cache.
        if (statements.size >= maxStatements) statements.delete(statements.keys().next().value as string);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}
