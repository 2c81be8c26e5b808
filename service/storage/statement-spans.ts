// A CLIENT span per database statement, the child of the span of the request that runs it: the
// same for SQLite and PostgreSQL, because it wraps Kysely's driver (every statement of either
// dialect passes its connections' executeQuery) rather than instrumenting `pg` (PostgreSQL only).
// A driver, unlike a Kysely plugin, also sees the statements that fail, and the SQL as sent.
// Only loaded when tracing is on (cli/service.ts).
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryCompiler, QueryResult, TransactionSettings } from 'kysely';

class TracedConnection implements DatabaseConnection {
  constructor(private readonly connection: DatabaseConnection, private readonly tracer: Tracer, private readonly system: string) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // The statement's first word (SELECT, INSERT, WITH...): raw SQL has no query node that tells.
    const operation = /^\s*([A-Za-z]+)/.exec(compiledQuery.sql)?.[1]?.toUpperCase() ?? 'STATEMENT';
    const span = this.tracer.startSpan(`${operation} ${this.system}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': this.system, 'db.operation.name': operation, 'db.query.text': compiledQuery.sql },
    });
    try {
      return await this.connection.executeQuery<R>(compiledQuery);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  }

  streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>(compiledQuery, chunkSize);
  }
}

class TracedDriver implements Driver {
  readonly #connections = new WeakMap<DatabaseConnection, TracedConnection>();
  readonly #inner = new WeakMap<DatabaseConnection, DatabaseConnection>();

  constructor(private readonly driver: Driver, private readonly tracer: Tracer, private readonly system: string) {}

  init(): Promise<void> {
    return this.driver.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.driver.acquireConnection();
    let traced = this.#connections.get(connection);
    if (traced === undefined) {
      traced = new TracedConnection(connection, this.tracer, this.system);
      this.#connections.set(connection, traced);
      this.#inner.set(traced, connection);
    }
    return traced;
  }

  #unwrap(connection: DatabaseConnection): DatabaseConnection {
    return this.#inner.get(connection) ?? connection;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.driver.beginTransaction(this.#unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.driver.commitTransaction(this.#unwrap(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.driver.rollbackTransaction(this.#unwrap(connection));
  }

  async savepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    if (this.driver.savepoint === undefined) throw new Error('this database does not support savepoints');
    await this.driver.savepoint(this.#unwrap(connection), name, compileQuery);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    if (this.driver.rollbackToSavepoint === undefined) throw new Error('this database does not support savepoints');
    await this.driver.rollbackToSavepoint(this.#unwrap(connection), name, compileQuery);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    if (this.driver.releaseSavepoint === undefined) throw new Error('this database does not support savepoints');
    await this.driver.releaseSavepoint(this.#unwrap(connection), name, compileQuery);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.driver.releaseConnection(this.#unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.driver.destroy();
  }
}

/** `dialect` with a span around each statement its connections run; `system` is `sqlite` or `postgresql`. */
export function withStatementSpans(dialect: Dialect, tracer: Tracer, system: string): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new TracedDriver(dialect.createDriver(), tracer, system),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
