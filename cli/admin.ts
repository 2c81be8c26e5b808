// `timegate admin <action>`: accounts, users and API keys, for operators. Each action prints one
// JSON line (the new IDs and, where a key is issued, the key: shown this once, stored as a hash).
import { parseArgs } from 'node:util';
import { LABELLED_ENTITIES } from '../service/accounts/account-input.js';
import type { LabelledEntity, Role } from '../service/accounts/account-input.js';
import type { CustomLabelChange } from '../service/accounts/account-settings-admin.js';
import { INVITATION_PATH, INVITATION_TTL_MS, createInvitation } from '../service/accounts/invitations.js';
import { storePasswordHash } from '../service/accounts/passwords.js';
import { DEFAULT_SERVICE_CONFIG } from '../service/config.js';
import type { DatabaseHandle } from '../service/storage/database.js';
import { UsageError } from './command.js';
import type { Command } from './command.js';
import { DB_HELP, databaseOption, integerOption, requiredOption } from './options.js';

const DEFAULT_WEB_URL = `http://${DEFAULT_SERVICE_CONFIG.host}:${DEFAULT_SERVICE_CONFIG.port}`;

const USAGE = `Usage: timegate admin <action> [options]

Actions:
  create-account --name <company> --admin-email <email> [--admin-first-name F] [--admin-last-name L]
                 [--time-zone Z]  the IANA zone of its wall-clock times (default: this host's)
  create-user    --account <id> --email <email> --first-name <F> --last-name <L> --role admin|user
                 (prints the user's API key and a one-time invitation link to set a password)
  reset-password --user <id>        remove the user's password, end their sessions, print a new
                                    invitation link
  deactivate-user --user <id>       the user can no longer sign in or use the API (sessions end)
  activate-user  --user <id>        undo deactivate-user
  new-key        --user <id>        issue one more API key for the user
  revoke-key     --user <id>        revoke every API key of the user
  list-accounts                     every account with its settings and number of users
  list-users     --account <id>     the account's users with role, active, password set
  set-role       --user <id> --role admin|user   (not for the account's last active admin)
  set-settings   --account <id> [--booking-close-date YYYY-MM-DD|none] [--time-zone Z]
                 [--hourly-rates on|off] [--custom-label <entity>.<1-5>=<label>]...
                 entries before the close date are closed for standard users (midnight on the
                 account's wall clock; a new zone keeps the day); entity: ${LABELLED_ENTITIES.join(', ')};
                 an empty label removes it

Every action prints one JSON line. API keys and invitation links are shown once: only their hash
is stored. Invitation links expire after ${INVITATION_TTL_MS / 86_400_000} days.

Options:
${DB_HELP}
  --web-url <url>     the web interface's address, for invitation links (default ${DEFAULT_WEB_URL})
  -h, --help          show this help`;

/** `labels`: the repeatable --custom-label values. */
/** The account rules, loaded with the database layer once the command line is good (they load Kysely). */
async function accountRules() {
  const [admin, settings] = await Promise.all([import('../service/accounts/account-admin.js'), import('../service/accounts/account-settings-admin.js')]);
  return { ...admin, ...settings };
}

type AccountRules = Awaited<ReturnType<typeof accountRules>>;
type Action = (db: DatabaseHandle['db'], values: Record<string, string | undefined>, labels: readonly string[], rules: AccountRules) => Promise<unknown>;

const MAX_ID = 2_147_483_647;

function userOption(v: Record<string, string | undefined>): number {
  return integerOption('user', requiredOption('user', v.user), 0, 1, MAX_ID);
}

function accountOption(v: Record<string, string | undefined>): number {
  return integerOption('account', requiredOption('account', v.account), 0, 1, MAX_ID);
}

function onOff(name: string, text: string | undefined): boolean | undefined {
  if (text === undefined) return undefined;
  if (text !== 'on' && text !== 'off') throw new UsageError(`--${name} must be on or off, not '${text}'`);
  return text === 'on';
}

/** `time-entry.1=Ticket` -> a label change; `time-entry.1=` removes the label. */
function customLabel(text: string): CustomLabelChange {
  const match = /^([a-z-]+)\.([1-5])=(.*)$/s.exec(text);
  if (match === null || !LABELLED_ENTITIES.includes(match[1] as LabelledEntity)) {
    throw new UsageError(`--custom-label must look like time-entry.1=Ticket (entities: ${LABELLED_ENTITIES.join(', ')}), not '${text}'`);
  }
  return { entity: match[1] as LabelledEntity, slot: Number(match[2]), label: match[3] ?? '' };
}

function webUrl(v: Record<string, string | undefined>): string {
  const text = (v['web-url'] ?? DEFAULT_WEB_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(text)) throw new UsageError(`--web-url must be an http(s) URL, not '${text}'`);
  return text;
}

async function invitationLink(db: DatabaseHandle['db'], userId: number, base: string) {
  const invitation = await createInvitation(db, userId);
  return { invitationUrl: `${base}${INVITATION_PATH}${invitation.token}`, invitationExpiresAt: new Date(invitation.expiresAt).toISOString() };
}

const ACTIONS: Readonly<Record<string, Action>> = {
  'create-account': (db, v, _labels, { createAccount }) => createAccount(db, {
    name: requiredOption('name', v.name),
    adminEmail: requiredOption('admin-email', v['admin-email']),
    ...(v['admin-first-name'] === undefined ? {} : { adminFirstName: v['admin-first-name'] }),
    ...(v['admin-last-name'] === undefined ? {} : { adminLastName: v['admin-last-name'] }),
    ...(v['time-zone'] === undefined ? {} : { timeZone: v['time-zone'] }),
  }),
  'create-user': async (db, v, _labels, { createUser }) => {
    const base = webUrl(v);
    const user = await createUser(db, {
      accountId: accountOption(v),
      email: requiredOption('email', v.email),
      firstName: requiredOption('first-name', v['first-name']),
      lastName: requiredOption('last-name', v['last-name']),
      role: role(requiredOption('role', v.role)),
    });
    return { ...user, ...await invitationLink(db, user.userId, base) };
  },
  'reset-password': async (db, v, _labels, { findUserId }) => {
    const base = webUrl(v);
    const userId = await findUserId(db, userOption(v));
    await storePasswordHash(db, userId, null);
    return { userId, ...await invitationLink(db, userId, base) };
  },
  'deactivate-user': async (db, v, _labels, { setActive }) => ({ userId: await setActive(db, userOption(v), false), active: false }),
  'activate-user': async (db, v, _labels, { setActive }) => ({ userId: await setActive(db, userOption(v), true), active: true }),
  'new-key': (db, v, _labels, { newKey }) => newKey(db, userOption(v)),
  'revoke-key': (db, v, _labels, { revokeKeys }) => revokeKeys(db, userOption(v)),
  'list-accounts': async (db, _v, _labels, { listAccounts }) => ({ accounts: await listAccounts(db) }),
  'list-users': async (db, v, _labels, { listUsers }) => {
    const accountId = accountOption(v);
    return { accountId, users: await listUsers(db, accountId) };
  },
  'set-role': async (db, v, _labels, { setRole }) => {
    const newRole = role(requiredOption('role', v.role));
    return { userId: await setRole(db, userOption(v), newRole), role: newRole };
  },
  'set-settings': (db, v, labels, { updateSettings }) => {
    const accountId = accountOption(v);
    const close = v['booking-close-date'];
    const hourlyRates = onOff('hourly-rates', v['hourly-rates']);
    return updateSettings(db, accountId, {
      ...(close === undefined ? {} : { bookingCloseDate: close === 'none' ? null : close }),
      ...(v['time-zone'] === undefined ? {} : { timeZone: v['time-zone'] }),
      ...(hourlyRates === undefined ? {} : { hourlyRates }),
      customLabels: labels.map(customLabel),
    });
  },
};

function role(text: string): Role {
  if (text !== 'admin' && text !== 'user') throw new UsageError(`--role must be admin or user, not '${text}'`);
  return text;
}

async function run(args: readonly string[]): Promise<number> {
  const text = { type: 'string' } as const;
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      name: text, 'admin-email': text, 'admin-first-name': text, 'admin-last-name': text, 'time-zone': text, account: text, email: text,
      'first-name': text, 'last-name': text, role: text, user: text, db: text, 'web-url': text,
      'booking-close-date': text, 'hourly-rates': text, 'custom-label': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError(`missing the action (${Object.keys(ACTIONS).join(', ')})`);
  const action = ACTIONS[name];
  if (action === undefined) throw new UsageError(`unknown action '${name}'`);
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const { help: _help, 'custom-label': labels = [], ...strings } = values;
  // The database layer (Kysely and its drivers) is loaded only once the command line is good.
  const [{ openDatabase }, rules] = await Promise.all([import('../service/storage/database.js'), accountRules()]);
  const database = await openDatabase(databaseOption(strings.db, process.env));
  try {
    process.stdout.write(`${JSON.stringify(await action(database.db, strings, labels, rules))}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

export const adminCommand: Command = {
  name: 'admin',
  usage: USAGE,
  run,
};
