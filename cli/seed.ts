// `timegate seed --entries <n>`: a large, realistic data set for benchmarks, with a progress bar.
import { parseArgs } from 'node:util';
import type { Command } from './command.js';
import { DB_HELP, databaseOption, integerOption, requiredOption } from './options.js';
import { progressOn } from './progress.js';

const USAGE = `Usage: timegate seed --entries <n> [--account <id>] [options]

Books <n> time entries (about a year of four bookings a workday per employee) into an account,
adding the employees it needs. Without --account a new account is created with the demo
company's clients, projects and tasks, and its administrator's API key printed. Prints one JSON
line when done.

Options:
  --entries <n>       how many time entries (up to 50,000,000)
  --account <id>      an existing account to seed into
${DB_HELP}
  -h, --help          show this help`;

async function run(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      entries: { type: 'string' },
      account: { type: 'string' },
      db: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const entries = integerOption('entries', requiredOption('entries', values.entries), 0, 0, 50_000_000);
  const existing = values.account === undefined ? undefined : integerOption('account', values.account, 0, 1, 2_147_483_647);
  // The database layer is loaded only once the command line is good: --help and a refusal answer at once.
  const { openDatabase } = await import('../service/storage/database.js');
  const { createAccount } = await import('../service/accounts/account-admin.js');
  const { insertCatalogue } = await import('../service/accounts/demo-seed.js');
  const { seedEntries } = await import('../service/storage/bulk-seed.js');
  const database = await openDatabase(databaseOption(values.db, process.env));
  try {
    const created = existing === undefined
      ? await createAccount(database.db, { name: 'Lastprofil GmbH', adminEmail: 'admin@lastprofil.example' })
      : undefined;
    if (created !== undefined) await insertCatalogue(database.db, created.accountId, created.userId, created.userId, Date.now());
    const accountId = created?.accountId ?? (existing as number);
    const progress = progressOn(process.stderr);
    const started = Date.now();
    const result = await seedEntries(database.db, { accountId, entries, onProgress: (inserted, total) => progress.update(inserted, total) });
    progress.finish();
    process.stdout.write(`${JSON.stringify({
      accountId,
      ...(created === undefined ? {} : { adminUserId: created.userId, apiKey: created.apiKey }),
      inserted: result.inserted,
      users: result.users,
      firstStartTime: new Date(result.firstStartTime).toISOString(),
      lastStartTime: new Date(result.lastStartTime).toISOString(),
      seconds: Math.round((Date.now() - started) / 100) / 10,
    })}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

export const seedCommand: Command = {
  name: 'seed',
  usage: USAGE,
  run,
};
