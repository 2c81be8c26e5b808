// Entries as CSV (RFC 4180) for spreadsheets: UTF-8 with a byte-order mark (without it Excel
// reads UTF-8 as the local code page and garbles umlauts), CRLF line ends, fields quoted when
// they hold the delimiter, a quote or a line break, quotes doubled inside. The delimiter is a
// choice because Excel splits CSV on the list separator of the user's locale: `;` in German
// settings (whose decimal separator is the comma, so `;` files write `1,50` by default), `,` in
// English ones.
//
// Formula injection (OWASP "CSV Injection"): a spreadsheet runs a cell that starts with `=`, `+`,
// `-` or `@` (also after a tab or carriage return) as a formula, so a comment such as
// `=HYPERLINK(...)` typed by one user would run on the machine of whoever opens the export.
// Every user-typed text cell that starts with one of those characters gets a leading apostrophe
// (which spreadsheets show as text and do not display) and is quoted, as OWASP advises; quoting
// alone does not stop Excel. Numbers, dates and flags are written by us and left as they are.
// The apostrophe is visible to programs that read the CSV as data: the price of safe defaults.
import type { Writable } from 'node:stream';
import type { EntryRow } from './entry-query.js';
import type { CellValue, ExportColumn } from './export-columns.js';

export type CsvDelimiter = ';' | ',';

export interface CsvOptions {
  readonly delimiter: CsvDelimiter;
  /** Decimal comma (`1,50`) instead of point; default: with `;` as delimiter. */
  readonly decimalComma?: boolean;
  /** The words for true and false (`yes`/`no`). */
  readonly yes: string;
  readonly no: string;
}

const BOM = '\uFEFF';
const LINE_END = '\r\n';
/** Characters collected before a write: few writes, little memory. */
const CHUNK_CHARS = 64 * 1024;

const FORMULA_START = /^[=+\-@\t\r]/;

/** One field of user-typed text: neutralised against formula injection, quoted where RFC 4180 needs it. */
export function csvTextField(text: string, delimiter: CsvDelimiter): string {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  const needsQuotes = safe !== text || safe.includes(delimiter) || safe.includes('"') || safe.includes('\n') || safe.includes('\r');
  return needsQuotes ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** `YYYY-MM-DD` of wall-clock milliseconds. */
function dayText(wallMs: number): string {
  const d = new Date(wallMs);
  return `${String(d.getUTCFullYear()).padStart(4, '0')}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

function field(column: ExportColumn<never>, value: CellValue, options: CsvOptions, decimalComma: boolean): string {
  if (value === null) return '';
  const decimal = (text: string) => (decimalComma ? text.replace('.', ',') : text);
  switch (column.kind) {
    case 'text': return csvTextField(String(value), options.delimiter);
    case 'integer': return String(value);
    case 'decimal': return decimal(String(value));
    case 'hours': return decimal((Number(value) / 3600).toFixed(2));
    case 'day': return dayText(Number(value));
    case 'clock': {
      const d = new Date(Number(value));
      return `${dayText(Number(value))} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
    }
    case 'flag': return value === true ? options.yes : options.no;
  }
}

/**
 * Writes a header line and one line per row (an entry, or a report's line: report-export.ts) to `out`, waiting whenever `out` asks to (one chunk
 * in memory at a time); resolves with the number of entries written. Does not end `out`.
 */
export async function writeCsv<Row = EntryRow>(rows: AsyncIterable<Row> | Iterable<Row>, columns: readonly ExportColumn<Row>[], out: Writable,
  options: CsvOptions, onRow?: (written: number) => void): Promise<number> {
  const decimalComma = options.decimalComma ?? options.delimiter === ';';
  let chunk = BOM + columns.map((column) => csvTextField(column.header, options.delimiter)).join(options.delimiter) + LINE_END;
  let written = 0;
  for await (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i] as ExportColumn<Row>;
      if (i > 0) line += options.delimiter;
      line += field(column, column.value(row), options, decimalComma);
    }
    chunk += line + LINE_END;
    written++;
    if (chunk.length >= CHUNK_CHARS) {
      await write(out, chunk);
      chunk = '';
      onRow?.(written);
    }
  }
  await write(out, chunk);
  onRow?.(written);
  return written;
}

async function write(out: Writable, text: string): Promise<void> {
  if (text !== '' && !out.write(text, 'utf8')) await drained(out);
}

/** Resolves when `out` wants more; rejects when it fails or closes first (a closed pipe). */
export function drained(out: Writable): Promise<void> {
  if (out.destroyed || out.writableEnded) return Promise.reject(out.errored ?? new Error('the output closed before the export was written'));
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      out.off('drain', onDrain).off('error', done).off('close', onClose);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onDrain = () => done();
    const onClose = () => done(new Error('the output closed before the export was written'));
    out.on('drain', onDrain).on('error', done).on('close', onClose);
  });
}
