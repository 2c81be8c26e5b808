// Checking an email and password for the web interface. The answer and its timing are the same
// for an unknown email, a user without a password yet, an inactive user and a wrong password:
// one scrypt derivation always runs (verifyPassword's decoy when there is no hash to check).
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { Principal } from './authenticate.js';
import { verifyPassword } from './passwords.js';

export async function checkPassword(db: Kysely<Database>, email: string, password: string): Promise<Principal | undefined> {
  const address = email.trim().toLowerCase();
  // The address is unique within an account, not across accounts: any of its users may match.
  const users = address.length === 0 || address.length > 80 ? [] : await db.selectFrom('users')
    .select(['id', 'account_id', 'access_rights', 'active', 'password_hash'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', address))
    .where('password_hash', 'is not', null)
    .orderBy('id')
    .limit(5)
    .execute();
  if (users.length === 0) {
    await verifyPassword(password, undefined);
    return undefined;
  }
  for (const user of users) {
    if (await verifyPassword(password, user.password_hash) && user.active === 1) {
      return { accountId: user.account_id, userId: user.id, accessRights: user.access_rights };
    }
  }
  return undefined;
}
