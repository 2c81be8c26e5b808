// Runs work in a transaction, joining the caller's when there is one: Kysely cannot nest
// transactions, and composite operations (the demo seed) want one atomic unit of several
// operations that are each transactional on their own.
import type { Kysely, Transaction } from 'kysely';

export function withTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<DB>) : db.transaction().execute(work);
}
