// Rows read through the statement cache are the objects better-sqlite3 would have built (names,
// values, order), also after a schema change under a kept statement and for column names that
// are Object.prototype's; writes still report their changes.
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withStatementCache } from '../../service/storage/sqlite-statement-cache.js';

describe('SQLite rows through the statement cache', () => {
  let database: BetterSqlite3.Database;

  beforeEach(() => {
    database = new BetterSqlite3(':memory:');
    database.exec("create table t (id integer primary key, name text, rate numeric); insert into t values (1, 'Ada', 12.5), (2, null, null)");
  });

  afterEach(() => database.close());

  it('reads the same objects better-sqlite3 reads, with their aliases and values', () => {
    const cached = withStatementCache(database);
    const sql = 'select id as "ID", name as "Name", rate as "Rate", id * 2 as "Twice" from t order by id';
    expect(cached.prepare(sql).all([])).toEqual(database.prepare(sql).all());
    expect(Object.keys(cached.prepare(sql).all([])[0] as object)).toEqual(['ID', 'Name', 'Rate', 'Twice']);
    expect([...cached.prepare(sql).iterate([])]).toEqual(database.prepare(sql).all());
    expect(cached.prepare('select name from t where id = ?').all([2])).toEqual([{ name: null }]);
  });

  it('follows a schema change under a kept select *', () => {
    const cached = withStatementCache(database);
    const before = cached.prepare('select * from t where id = ?').all([1]);
    expect(before).toEqual([{ id: 1, name: 'Ada', rate: 12.5 }]);
    database.exec("alter table t add column colour text default 'red'");
    expect(cached.prepare('select * from t where id = ?').all([1])).toEqual([{ id: 1, name: 'Ada', rate: 12.5, colour: 'red' }]);
  });

  it('makes any column name an own property, pollutes no prototype, and writes report their changes', () => {
    const cached = withStatementCache(database);
    const [row] = cached.prepare('select name as "constructor", id as "toString" from t where id = 1').all([]) as Record<string, unknown>[];
    expect(Object.getOwnPropertyDescriptor(row, 'constructor')?.value).toBe('Ada');
    expect(Object.getOwnPropertyDescriptor(row, 'toString')?.value).toBe(1);
    // A `__proto__` column is defined as an own property, not assigned (assignment would set the
    // prototype): Object.prototype is untouched.
    cached.prepare('select name as "__proto__" from t').all([]);
    expect(Object.prototype).not.toHaveProperty('Ada');
    expect(cached.prepare('update t set name = ? where id > ?').run(['Bo', 0]).changes).toBe(2);
  });
});
