// Changes of a user's row by an administrator (the employee page) or an operator (`timegate
// admin`): the details (names, title, address, language, comment, custom fields), the role and
// the access. Every change is stamped (LastChangeTime and LastChangeAuthor, which sync clients'
// GetChangesDigest counts) and counts the row's internal version up (migration 005); a change
// made from a form names the version the form showed and is made only while the row still has
// it, compared in the statement that writes, so of two administrators saving at once exactly one
// wins and the other is told (PreconditionFailedError, as a stale If-Match is). Values arrive
// checked against the model's User type by the caller (the payload rules, as for every write).
import type { Kysely, Transaction, Updateable } from 'kysely';
import { sql } from 'kysely';
import { PreconditionFailedError } from '../odata-server/errors.js';
import type { Database, UsersTable } from '../storage/schema.js';
import { withTransaction } from '../storage/transaction.js';
import { AccountAdminError } from './account-errors.js';
import * as input from './account-input.js';

export interface UserChange {
  /** The user's account: a user of another is no user (404 to the page), never changed. */
  readonly accountId: number;
  readonly userId: number;
  /** Who is recorded as LastChangeAuthor; when nobody is named (the CLI), the author recorded stays. */
  readonly authorUserId?: number;
  /** The version the form showed; undefined changes whatever the row is now (the CLI). */
  readonly expectedVersion?: number;
}

export interface UserDetails {
  readonly title: string | null;
  readonly firstName: string;
  readonly lastName: string;
  readonly email: string;
  readonly language: string;
  readonly comment: string | null;
  /** Only the custom fields given change (the page shows those the account labels). */
  readonly custom?: Partial<Record<'custom1' | 'custom2' | 'custom3' | 'custom4' | 'custom5', string | null>>;
}

/**
 * Changes the user's row: `columns`, the change stamp and one more version, if the row is still
 * the expected version (else PreconditionFailedError, also when the user is gone or another
 * account's). An AccountAdminError when there is no such user and no version was expected.
 */
export async function updateUserRow(trx: Transaction<Database>, change: UserChange, columns: Updateable<UsersTable>): Promise<void> {
  const result = await trx.updateTable('users')
    .set({
      ...columns, last_change_time: Date.now(), version: sql`version + 1`,
      ...(change.authorUserId === undefined ? {} : { last_change_author: change.authorUserId }),
    })
    .where('id', '=', change.userId).where('account_id', '=', change.accountId)
    .$if(change.expectedVersion !== undefined, (query) => query.where('version', '=', change.expectedVersion as number))
    .executeTakeFirst();
  if (result.numUpdatedRows > 0n) return;
  if (change.expectedVersion !== undefined) throw new PreconditionFailedError();
  throw new AccountAdminError('user-not-found', `no user ${change.userId} in account ${change.accountId}`);
}

/**
 * Changes the user's details. The address must be one (loosely: account-input.ts) and no other
 * user's of the account, case aside; an AccountAdminError `email-taken` or `invalid-input` otherwise.
 */
export async function changeUserDetails(db: Kysely<Database>, change: UserChange, details: UserDetails): Promise<void> {
  const email = input.email(details.email);
  const columns: Updateable<UsersTable> = {
    title: details.title === null ? null : input.requiredText('title', details.title, 50),
    first_name: input.requiredText('first name', details.firstName, 80),
    last_name: input.requiredText('last name', details.lastName, 80),
    email,
    language: input.language(details.language),
    comment: details.comment,
    ...details.custom,
  };
  try {
    await withTransaction(db, async (trx) => {
      // Checked here for a clear message; the unique index (account_id, lower(email)) is the
      // guarantee when two administrators give two users one address at the same moment.
      if (await emailTakenByOther(trx, change, email)) throw new AccountAdminError('email-taken', `${email} already has a user in account ${change.accountId}`);
      await updateUserRow(trx, change, columns);
    });
  } catch (error) {
    if (error instanceof AccountAdminError || error instanceof PreconditionFailedError) throw error;
    // The index refused it (the other transaction committed after this one's check).
    if (await emailTakenByOther(db, change, email)) throw new AccountAdminError('email-taken', `${email} already has a user in account ${change.accountId}`);
    throw error;
  }
}

async function emailTakenByOther(db: Kysely<Database>, change: UserChange, email: string): Promise<boolean> {
  const taken = await db.selectFrom('users').select('id')
    .where('account_id', '=', change.accountId).where('id', '<>', change.userId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  return taken !== undefined;
}
