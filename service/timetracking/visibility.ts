// What a caller may read (data-model.md, "Roles and visibility"), as the SQL condition every
// query of a set carries. Whatever the caller cannot read does not exist for them: reads, counts,
// navigation, `$expand` and filter paths all go through here, so it answers 404 alike.
//   everybody:        rows of their own account only;
//   standard users:   Projects assigned to them (AssignedUsers null or listing them),
//                     their own TimeEntries;
//   administrators:   everything in the account.
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { EntitySet } from '../../odata/model.js';
import type { Caller } from './caller.js';

export function visibleRows(set: EntitySet, caller: Caller, alias: string): RawBuilder<unknown> {
  const ofAccount = sql`${sql.ref(`${alias}.account_id`)} = ${caller.accountId}`;
  if (caller.isAdmin) return ofAccount;
  switch (set.name) {
    case 'Projects':
      return sql`${ofAccount} and ${assignedTo(alias, caller.userId)}`;
    case 'TimeEntries':
      return sql`${ofAccount} and ${sql.ref(`${alias}.user_id`)} = ${caller.userId}`;
    default:
      return ofAccount;
  }
}

/** A project's AssignedUsers (normalised `1,5,7`, see project rules) is null or lists the user. */
export function assignedTo(alias: string, userId: number): RawBuilder<unknown> {
  const list = sql.ref(`${alias}.assigned_users`);
  return sql`(${list} is null or (',' || ${list} || ',') like ${`%,${userId},%`})`;
}
