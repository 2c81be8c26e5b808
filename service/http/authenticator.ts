// API key -> Caller, for every request. Successful lookups are cached for a short time (keyed by
// the key's hash, never the key), so a busy client costs no database round trip per request; a
// revoked key or a deactivated user is refused at the latest `cacheTtlMs` later. Failures are
// never cached: a key created a moment ago works at once.
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { authenticate } from '../accounts/authenticate.js';
import type { Principal } from '../accounts/authenticate.js';
import { hashApiKey } from '../accounts/api-keys.js';
import { UnauthorizedError } from '../odata-server/errors.js';
import type { Database } from '../storage/schema.js';
import { ACCESS_RIGHTS } from '../storage/schema.js';
import type { Caller } from '../timetracking/caller.js';

export interface AuthenticatorOptions {
  /** How long a successful lookup is reused (0 = look up every request). */
  readonly cacheTtlMs: number;
  /** Most keys cached at once. */
  readonly cacheSize?: number;
}

const REFUSALS = {
  unknown: { de: 'Der API-Schlüssel ist ungültig.', en: 'The API key is not valid.' },
  revoked: { de: 'Der API-Schlüssel wurde widerrufen.', en: 'The API key has been revoked.' },
  'inactive-user': { de: 'Der Benutzer dieses API-Schlüssels ist inaktiv.', en: 'The user of this API key is inactive.' },
} as const;

export class Authenticator {
  private readonly cache: LRUCache<string, Caller> | undefined;

  constructor(private readonly db: Kysely<Database>, options: AuthenticatorOptions) {
    this.cache = options.cacheTtlMs > 0 ? new LRUCache({ max: options.cacheSize ?? 10_000, ttl: options.cacheTtlMs }) : undefined;
  }

  async callerFor(key: string): Promise<Caller> {
    const hash = this.cache === undefined ? '' : hashApiKey(key);
    const cached = this.cache?.get(hash);
    if (cached !== undefined) return cached;
    const result = await authenticate(this.db, key);
    if (!result.ok) throw new UnauthorizedError(REFUSALS[result.reason]);
    const caller = await callerOf(this.db, result);
    this.cache?.set(hash, caller);
    return caller;
  }
}

/** The Caller of a signed-in user (by API key or web session): their role and account settings. */
export async function callerOf(db: Kysely<Database>, principal: Principal): Promise<Caller> {
  const settings = await db.selectFrom('account_settings').select(['booking_close_date', 'hourly_rates_enabled', 'time_zone'])
    .where('account_id', '=', principal.accountId).executeTakeFirst();
  return {
    accountId: principal.accountId,
    userId: principal.userId,
    isAdmin: principal.accessRights === ACCESS_RIGHTS.administrator,
    bookingCloseDate: settings?.booking_close_date ?? null,
    hourlyRatesEnabled: settings?.hourly_rates_enabled === 1,
    timeZone: settings?.time_zone ?? 'UTC',
  };
}
