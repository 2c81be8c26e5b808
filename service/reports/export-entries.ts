// An export of time entries as a file: the one entry point for `timegate export` and the web
// interface's download buttons. It reads the filtered, scoped entries in keyset batches
// (entry-query.ts) and streams them through the CSV or XLSX writer into any Writable (a file, a
// process's stdout, an HTTP response), so an export of a million entries holds one batch.
import type { Writable } from 'node:stream';
import { writeCsv } from './csv-writer.js';
import type { CsvDelimiter } from './csv-writer.js';
import { countEntries, iterateEntries } from './entry-query.js';
import { exportColumns, exportTexts } from './export-columns.js';
import type { ExportLanguage } from './export-columns.js';
import type { EntryFilter, ExportFormat, ReportAccount, ReportDatabase, ReportScope } from './report-scope.js';
import { writeXlsx } from './xlsx-writer.js';

/** The media type of each format, for Content-Type. */
export const EXPORT_MEDIA_TYPES: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv; charset=utf-8; header=present',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export interface ExportOptions {
  readonly format: ExportFormat;
  /** CSV only: `;` (German Excel, decimal comma) or `,` (English Excel, decimal point). Default `;`. */
  readonly delimiter?: CsvDelimiter;
  /** CSV only: override the decimal separator the delimiter implies. */
  readonly decimalComma?: boolean;
  /** Column headers and yes/no in this language (default `de`, the service's language). */
  readonly language?: ExportLanguage;
  /** Entries read per database statement (default 500). */
  readonly batchSize?: number;
  /** Called as entries are written (every few hundred), with the number matching the filter. */
  readonly onProgress?: (written: number, total: number) => void;
}

export interface ExportResult {
  readonly entries: number;
}

/**
 * Writes the scope's entries matching `filter`, oldest first, as a whole file into `out`.
 * Does not end `out`: end a file stream or an HTTP body afterwards, leave stdout open.
 * Throws what the database or `out` throws (a client that went away): the file is then partial.
 */
export async function exportEntries(database: ReportDatabase, scope: ReportScope, filter: EntryFilter, account: ReportAccount,
  out: Writable, options: ExportOptions): Promise<ExportResult> {
  const language = options.language ?? 'de';
  const columns = exportColumns(account, language);
  const texts = exportTexts(language);
  const total = options.onProgress === undefined ? 0 : await countEntries(database, scope, filter, account);
  const onRow = options.onProgress === undefined ? undefined : (written: number) => options.onProgress?.(written, Math.max(total, written));
  const rows = iterateEntries(database, scope, filter, account, options.batchSize);
  const entries = options.format === 'xlsx'
    ? await writeXlsx(rows, columns, out, { sheetName: texts.sheet }, onRow)
    : await writeCsv(rows, columns, out, {
      delimiter: options.delimiter ?? ';',
      yes: texts.yes,
      no: texts.no,
      ...(options.decimalComma === undefined ? {} : { decimalComma: options.decimalComma }),
    }, onRow);
  return { entries };
}

/** A file name for a download: `zeiten-2026-01-01-2026-03-31.csv`, ASCII only. */
export function exportFileName(filter: EntryFilter, format: ExportFormat, language: ExportLanguage = 'de'): string {
  const base = language === 'de' ? 'zeiten' : 'time-entries';
  const range = [filter.from, filter.to].filter((day) => day !== undefined).join('-');
  return `${base}${range === '' ? '' : `-${range}`}.${format}`;
}
