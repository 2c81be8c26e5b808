// Row versions of what only administrators change: users and account settings. The API reads
// them and cannot write them, so the EDMX has no Version for them (adding one would change the
// public model, its ETags and every client generated from it); the column stays internal. The
// administration forms carry it and every write of these rows counts it up in the statement that
// writes, so two administrators (or two tabs, or a form and `timegate admin`) cannot overwrite
// each other unseen.
import type { Kysely, Migration } from 'kysely';
import { addRowVersion } from './004-row-versions.js';

export function internalRowVersions(): Migration {
  return { up: (db: Kysely<unknown>) => addRowVersion(db, ['users', 'account_settings']) };
}
