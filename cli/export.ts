// `timegate export`: an account's time entries as CSV or XLSX, for the operator. Streams from the
// database to the file or stdout in batches (service/reports/export-entries.ts), so a million
// entries take the memory of a few thousand; a progress bar on stderr.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { CsvDelimiter } from '../service/reports/csv-writer.js';
import type { ExportLanguage } from '../service/reports/export-columns.js';
import { EXPORT_FORMATS, ReportError, loadReportAccount, parseEntryFilter, wholeAccount } from '../service/reports/report-scope.js';
import type { EntryFilter, ExportFormat } from '../service/reports/report-scope.js';
import { UsageError } from './command.js';
import type { Command } from './command.js';
import { DB_HELP, databaseOption, integerOption, requiredOption } from './options.js';
import { progressOn } from './progress.js';

const USAGE = `Usage: timegate export --account <id> [--from YYYY-MM-DD] [--to YYYY-MM-DD] [options]

Writes the account's finished time entries (oldest first, all employees) as CSV or XLSX to
--out, or to stdout. Days are the account's calendar days; --to is inclusive. Columns: date,
start, end (on the account's wall clock), seconds, hours, employee, client, project, task,
comment, billable, locked, rate and revenue (when the account has hourly rates on), and the
custom fields headed by the account's labels. Memory stays flat however many entries match.
With --out, prints one JSON line when done; a progress bar goes to stderr.

Options:
  --account <id>          the account (required)
  --from, --to <date>     first and last day (default: all)
  --format csv|xlsx       (csv)
  --delimiter ';'|','     CSV only: ';' for German Excel (decimal comma), ',' for English (;)
  --language de|en        column headers and yes/no (de)
  --user, --project, --client, --task <id>   only these entries
  --billable true|false   only billable or non-billable entries
  --out <file>            write to this file (default: stdout)
${DB_HELP}
  -h, --help              show this help

CSV cells of user-typed text that start with = + - @ get a leading apostrophe, so a spreadsheet
shows them instead of running them as formulas (OWASP CSV injection).`;

function choice<T extends string>(name: string, text: string | undefined, allowed: readonly T[], fallback: T): T {
  if (text === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(text)) throw new UsageError(`--${name} must be ${allowed.map((a) => `'${a}'`).join(' or ')}, not '${text}'`);
  return text as T;
}

function filterOf(values: Record<string, string | undefined>): EntryFilter {
  try {
    return parseEntryFilter({
      from: values.from, to: values.to, userId: values.user, projectId: values.project, clientId: values.client,
      taskId: values.task, billable: values.billable,
    });
  } catch (error) {
    // A malformed filter is a wrong command line: exit code 2, named by its flag.
    if (error instanceof ReportError) {
      throw new UsageError(error.message.replace(/^(from|to|userId|projectId|clientId|taskId|billable)\b/, (field) =>
        `--${({ userId: 'user', projectId: 'project', clientId: 'client', taskId: 'task' } as Record<string, string>)[field] ?? field}`));
    }
    throw error;
  }
}

async function run(args: readonly string[]): Promise<number> {
  const text = { type: 'string' } as const;
  const { values } = parseArgs({
    args: [...args],
    options: {
      account: text, from: text, to: text, format: text, delimiter: text, language: text, user: text, project: text,
      client: text, task: text, billable: text, out: text, db: text,
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const accountId = integerOption('account', requiredOption('account', values.account), 0, 1, 2_147_483_647);
  const format = choice<ExportFormat>('format', values.format, EXPORT_FORMATS, 'csv');
  const delimiter = choice<CsvDelimiter>('delimiter', values.delimiter, [';', ','], ';');
  const language = choice<ExportLanguage>('language', values.language, ['de', 'en'], 'de');
  const { help: _help, ...strings } = values;
  const filter = filterOf(strings);
  if (values.out === undefined && format === 'xlsx' && process.stdout.isTTY === true) {
    throw new UsageError('an XLSX file is not for a terminal: give --out <file> or redirect stdout');
  }
  // The database layer and the writers are loaded only once the command line is good.
  const { openDatabase } = await import('../service/storage/database.js');
  const { exportEntries } = await import('../service/reports/export-entries.js');
  const database = await openDatabase(databaseOption(values.db, process.env), { sqlite: { readsOnce: true } });
  try {
    const account = await loadReportAccount(database.db, accountId);
    const out: Writable = values.out === undefined ? process.stdout : createWriteStream(values.out);
    // Failures of the output (a reader that closed the pipe: EPIPE) surface through the writes; an
    // 'error' event with no listener would end the process with a stack trace instead.
    out.on('error', () => {});
    const progress = progressOn(process.stderr);
    const started = Date.now();
    try {
      const { entries } = await exportEntries(database, wholeAccount(accountId), filter, account, out, {
        format, delimiter, language, onProgress: (written, total) => progress.update(written, total),
      });
      progress.finish();
      if (values.out === undefined) return 0;
      out.end();
      await finished(out);
      process.stdout.write(`${JSON.stringify({ accountId, entries, format, out: values.out, seconds: Math.round((Date.now() - started) / 100) / 10 })}\n`);
      return 0;
    } catch (error) {
      progress.finish();
      if ((error as { code?: unknown }).code === 'EPIPE') throw new Error('the output closed before the export was written (EPIPE)', { cause: error });
      // A partial file would look like a whole one to whoever opens it later.
      if (values.out !== undefined) {
        out.destroy();
        await rm(values.out, { force: true });
      }
      throw error;
    }
  } finally {
    await database.close();
  }
}

export const exportCommand: Command = {
  name: 'export',
  usage: USAGE,
  run,
};
