// PostgreSQL parses and plans every unnamed statement anew, and for the service's short reads
// planning costs the database more than running them. A named (prepared) statement is parsed
// once per connection, and PostgreSQL reuses its plan once it has seen a few executions, so
// statements with parameters are sent under a name derived from their SQL text. Values are
// always parameters, so texts come in few shapes; a flood of one-off `$filter` shapes cannot
// pile up prepared statements on the server, because only the first `maxNamed` texts get a name.
// Statements without parameters (BEGIN, DDL of migrations) stay on the simple protocol.
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

const DEFAULT_MAX_NAMED = 200;

export function withNamedStatements(pool: pg.Pool, maxNamed = DEFAULT_MAX_NAMED): PostgresPool {
  const names = new Map<string, string>();
  // Kysely keeps one connection object per client it is given: hand it the same wrapper each time.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();

  function nameOf(text: string): string | undefined {
    let name = names.get(text);
    if (name === undefined && names.size < maxNamed) {
      name = `timegate_${names.size + 1}`;
      names.set(text, name);
    }
    return name;
  }

  function wrap(client: pg.PoolClient): PostgresPoolClient {
    const query = (textOrCursor: unknown, parameters?: readonly unknown[]): unknown => {
      if (typeof textOrCursor !== 'string') return client.query(textOrCursor as pg.Submittable);
      const values = parameters === undefined ? [] : [...parameters];
      const name = values.length === 0 ? undefined : nameOf(textOrCursor);
      return name === undefined ? client.query(textOrCursor, values) : client.query({ name, text: textOrCursor, values });
    };
    return { query: query as PostgresPoolClient['query'], release: () => client.release() };
  }

  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
