// Entries as an Excel workbook, streamed: exceljs's WorkbookWriter writes each committed row into
// the zip stream at once (inline strings, no shared-string table that would grow with the rows),
// so memory holds a few rows and the compressor's buffers, not the sheet. Cells are typed: days
// and times as dates on the account's wall clock, hours and money as numbers with two places,
// flags as booleans, so sums and filters work in the spreadsheet without conversion.
//
// Formula injection does not apply here: a text cell is stored as a string (`t="inlineStr"`), and
// spreadsheets never evaluate a stored string, whatever it starts with. Characters XML 1.0 cannot
// carry (control characters a client may have typed into a comment) are dropped, or Excel would
// refuse the whole file.
import { PassThrough } from 'node:stream';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import ExcelJS from 'exceljs';
import type { EntryRow } from './entry-query.js';
import type { CellValue, ColumnKind, ExportColumn } from './export-columns.js';
import { drained } from './csv-writer.js';

export interface XlsxOptions {
  /** The worksheet's name (at most 31 characters, no `[]:*?/\`). */
  readonly sheetName: string;
}

const NUMBER_FORMAT: Partial<Record<ColumnKind, string>> = {
  integer: '0',
  decimal: '#,##0.00',
  hours: '0.00',
  day: 'yyyy-mm-dd',
  clock: 'yyyy-mm-dd hh:mm',
};

// eslint-disable-next-line no-control-regex
const NOT_IN_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Rows between checks whether `out` wants us to wait. */
const ROWS_PER_CHECK = 256;

function cell(kind: ColumnKind, value: CellValue): ExcelJS.CellValue {
  if (value === null) return null;
  switch (kind) {
    case 'text': return String(value).replace(NOT_IN_XML, '');
    case 'integer': return Number(value);
    case 'decimal': return Number(value);
    case 'hours': return Number(value) / 3600;
    // Wall-clock milliseconds read as UTC: exceljs writes the UTC digits, which are the wall clock's.
    case 'day': case 'clock': return new Date(Number(value));
    case 'flag': return value === true;
  }
}

function sheetName(name: string): string {
  return name.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31) || 'Sheet1';
}

/**
 * Writes a workbook of one sheet (a header row, then one row per entry) to `out` and finishes
 * the zip; resolves with the number of entries written, once every byte went to `out`. Does not
 * end `out`.
 */
export async function writeXlsx(rows: AsyncIterable<EntryRow>, columns: readonly ExportColumn[], out: Writable,
  options: XlsxOptions, onRow?: (written: number) => void): Promise<number> {
  // exceljs ends the stream it writes to and waits for its 'finish', which never comes for
  // process.stdout (a pipe does not end it): it writes to a pass-through that feeds `out`.
  const through = new PassThrough();
  through.pipe(out, { end: false });
  const stop = (error?: Error) => through.destroy(error ?? new Error('the output closed before the export was written'));
  out.once('error', stop).once('close', stop);
  if (out.destroyed) stop(out.errored ?? undefined);
  const forwarded = finished(through);
  // Awaited below; until then a failure of `out` is seen by the writes it stops.
  forwarded.catch(() => {});
  try {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: through, useStyles: true, useSharedStrings: false });
    const sheet = workbook.addWorksheet(sheetName(options.sheetName), { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = columns.map((column, i) => ({
      key: String(i),
      header: column.header,
      width: column.width,
      ...(NUMBER_FORMAT[column.kind] === undefined ? {} : { style: { numFmt: NUMBER_FORMAT[column.kind] } }),
    }));
    sheet.getRow(1).font = { bold: true };
    sheet.getRow(1).commit();
    let written = 0;
    for await (const row of rows) {
      const values = new Array<ExcelJS.CellValue>(columns.length);
      for (let i = 0; i < columns.length; i++) {
        const column = columns[i] as ExportColumn;
        values[i] = cell(column.kind, column.value(row));
      }
      sheet.addRow(values).commit();
      written++;
      if (written % ROWS_PER_CHECK === 0) {
        onRow?.(written);
        if (through.writableNeedDrain) await drained(through);
      }
    }
    sheet.commit();
    await Promise.race([workbook.commit(), forwarded]);
    await forwarded;
    onRow?.(written);
    return written;
  } finally {
    out.off('error', stop).off('close', stop);
    through.unpipe(out);
  }
}
