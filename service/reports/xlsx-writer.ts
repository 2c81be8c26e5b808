// Entries as an Excel workbook (Office Open XML, SpreadsheetML), streamed: the worksheet's XML is
// made row by row and deflated into the zip as it goes (fflate), and the writer waits whenever
// `out` asks it to, so memory holds one chunk of rows whatever their number.
//
// Why not exceljs: its streaming WorkbookWriter (4.4.0) keeps every byte of the sheet in memory
// until the workbook is committed (exceljs issues #1894 and #2916; the fix waits for a 5.0), about
// 0.7 MB per thousand rows here, and it wrote 100,000 rows in 13 s. The parts of a workbook that
// an export needs are few and fixed (one or more sheets of typed cells, a header style, number
// formats), so they are written here; the tests read the files back with exceljs.
//
// Cells are typed: days and times are date serials on the account's wall clock, hours and money
// numbers with two places, flags booleans, so sums and filters work in the spreadsheet at once.
// Formula injection does not apply: text is an inline string (`t="inlineStr"`), which spreadsheets
// never evaluate, whatever it starts with. Characters XML 1.0 cannot carry (control characters a
// client may have typed into a comment) are dropped, or Excel would refuse the whole file.
// A sheet holds at most 1,048,576 rows; more entries continue on a second sheet.
import type { Writable } from 'node:stream';
import { Zip, ZipDeflate } from 'fflate';
import { drained } from './csv-writer.js';
import type { EntryRow } from './entry-query.js';
import type { CellValue, ColumnKind, ExportColumn } from './export-columns.js';

export interface XlsxOptions {
  /** The worksheets' name (at most 31 characters, no `[]:*?/\`); later sheets get ` (2)`, ` (3)`. */
  readonly sheetName: string;
  /** Entries per sheet (default and most: 1,048,575, Excel's rows less the header). */
  readonly rowsPerSheet?: number;
}

const MAX_ENTRIES_PER_SHEET = 1_048_575;
/** fflate's level 3 took a third less CPU than its default 6 on 20 MB of export text, for 14% more bytes. */
const DEFLATE = { level: 3 } as const;
/** Bytes of XML collected before they go to the compressor. */
const CHUNK_CHARS = 64 * 1024;
/** Days from Excel's day 0 (1899-12-30, in its 1900 date system) to 1970-01-01. */
const EPOCH_SERIAL = 25_569;
const DAY_MS = 86_400_000;

const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Style index (cellXfs in styles.xml below) of each kind; 1 is the bold header. */
const STYLE: Readonly<Record<ColumnKind, number>> = { text: 0, integer: 2, decimal: 3, hours: 4, day: 5, clock: 6, flag: 0 };

const STYLES_XML = `${XML_DECLARATION}<styleSheet xmlns="${MAIN_NS}">`
  + '<numFmts count="2"><numFmt numFmtId="164" formatCode="yyyy-mm-dd"/><numFmt numFmtId="165" formatCode="yyyy-mm-dd hh:mm"/></numFmts>'
  + '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>'
  + '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
  + '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
  + '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
  + '<cellXfs count="7"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
  + '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>'
  + '<xf numFmtId="1" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
  + '<xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
  + '<xf numFmtId="2" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
  + '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
  + '<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>'
  + '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>';

// eslint-disable-next-line no-control-regex
const NOT_IN_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const XML_SPECIAL = /[&<>"]/g;
const XML_ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

function xmlText(text: string): string {
  return text.replace(NOT_IN_XML, '').replace(XML_SPECIAL, (c) => XML_ENTITY[c] as string);
}

/** A, B, ..., Z, AA, ... for 0, 1, ... */
function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

function inlineString(ref: string, text: string, style: number): string {
  return `<c r="${ref}"${style === 0 ? '' : ` s="${style}"`} t="inlineStr"><is><t xml:space="preserve">${xmlText(text)}</t></is></c>`;
}

function cellXml(ref: string, kind: ColumnKind, value: CellValue): string {
  if (value === null) return '';
  switch (kind) {
    case 'text': return inlineString(ref, String(value), 0);
    case 'flag': return `<c r="${ref}" t="b"><v>${value === true ? 1 : 0}</v></c>`;
    case 'integer': case 'decimal': return `<c r="${ref}" s="${STYLE[kind]}"><v>${Number(value)}</v></c>`;
    case 'hours': return `<c r="${ref}" s="${STYLE.hours}"><v>${Number(value) / 3600}</v></c>`;
    // Wall-clock milliseconds: their UTC digits are the wall clock's, and so are the serial's.
    case 'day': case 'clock': return `<c r="${ref}" s="${STYLE[kind]}"><v>${Number(value) / DAY_MS + EPOCH_SERIAL}</v></c>`;
  }
}

function sheetNameOf(name: string, number: number): string {
  const base = name.replace(/[[\]:*?/\\]/g, ' ').trim() || 'Sheet';
  const suffix = number === 1 ? '' : ` (${number})`;
  return xmlText(base.slice(0, 31 - suffix.length) + suffix);
}

function sheetStart(columns: readonly ExportColumn<never>[], letters: readonly string[]): string {
  const widths = columns.map((column, i) => `<col min="${i + 1}" max="${i + 1}" width="${column.width}" customWidth="1"/>`).join('');
  const header = columns.map((column, i) => inlineString(`${letters[i]}1`, column.header, 1)).join('');
  return `${XML_DECLARATION}<worksheet xmlns="${MAIN_NS}"><sheetViews><sheetView workbookViewId="0">`
    + '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>'
    + `<cols>${widths}</cols><sheetData><row r="1">${header}</row>`;
}

const SHEET_END = '</sheetData></worksheet>';

/** The package's other parts, once the number of sheets is known. */
function packageParts(sheetName: string, sheets: number): Array<[string, string]> {
  const numbers = Array.from({ length: sheets }, (_, i) => i + 1);
  return [
    ['[Content_Types].xml', `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`
      + '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
      + '<Default Extension="xml" ContentType="application/xml"/>'
      + '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
      + '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
      + numbers.map((n) => `<Override PartName="/xl/worksheets/sheet${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')
      + '</Types>'],
    ['_rels/.rels', `${XML_DECLARATION}<Relationships xmlns="${PACKAGE_REL_NS}">`
      + `<Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`],
    ['xl/workbook.xml', `${XML_DECLARATION}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets>`
      + numbers.map((n) => `<sheet name="${sheetNameOf(sheetName, n)}" sheetId="${n}" r:id="rId${n}"/>`).join('')
      + '</sheets></workbook>'],
    ['xl/_rels/workbook.xml.rels', `${XML_DECLARATION}<Relationships xmlns="${PACKAGE_REL_NS}">`
      + numbers.map((n) => `<Relationship Id="rId${n}" Type="${REL_NS}/worksheet" Target="worksheets/sheet${n}.xml"/>`).join('')
      + `<Relationship Id="rId${sheets + 1}" Type="${REL_NS}/styles" Target="styles.xml"/></Relationships>`],
    ['xl/styles.xml', STYLES_XML],
  ];
}

/**
 * Writes a workbook (a header row, then one row per entry, oldest first, or per report line) to `out` and finishes
 * the zip; resolves with the number of entries written, once every byte went to `out`. Does not
 * end `out`. Rejects when `out` fails or closes first.
 */
export async function writeXlsx<Row = EntryRow>(rows: AsyncIterable<Row> | Iterable<Row>, columns: readonly ExportColumn<Row>[], out: Writable,
  options: XlsxOptions, onRow?: (written: number) => void): Promise<number> {
  const perSheet = Math.max(1, Math.min(MAX_ENTRIES_PER_SHEET, Math.trunc(options.rowsPerSheet ?? MAX_ENTRIES_PER_SHEET)));
  const encoder = new TextEncoder();
  let failure: Error | undefined;
  const zip = new Zip((error, data) => {
    if (error !== null) failure ??= error;
    else if (failure === undefined && !out.destroyed) out.write(data);
  });
  const letters = columns.map((_, i) => columnLetters(i));

  let sheets = 0;
  let sheet: ZipDeflate | undefined;
  let rowNumber = 0;
  let chunk = '';
  const flush = async (final: boolean) => {
    sheet?.push(encoder.encode(chunk), final);
    chunk = '';
    if (failure !== undefined) throw failure;
    if (out.writableNeedDrain || out.destroyed) await drained(out);
  };
  const openSheet = () => {
    sheets++;
    sheet = new ZipDeflate(`xl/worksheets/sheet${sheets}.xml`, DEFLATE);
    zip.add(sheet);
    rowNumber = 1;
    chunk = sheetStart(columns, letters);
  };

  openSheet();
  let written = 0;
  for await (const row of rows) {
    if (rowNumber > perSheet) {
      chunk += SHEET_END;
      await flush(true);
      openSheet();
    }
    rowNumber++;
    let xml = `<row r="${rowNumber}">`;
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i] as ExportColumn<Row>;
      xml += cellXml(`${letters[i]}${rowNumber}`, column.kind, column.value(row));
    }
    chunk += `${xml}</row>`;
    written++;
    if (chunk.length >= CHUNK_CHARS) {
      await flush(false);
      onRow?.(written);
    }
  }
  chunk += SHEET_END;
  await flush(true);
  for (const [name, xml] of packageParts(options.sheetName, sheets)) {
    const part = new ZipDeflate(name, DEFLATE);
    zip.add(part);
    part.push(encoder.encode(xml), true);
  }
  zip.end();
  if (failure !== undefined) throw failure;
  if (out.writableNeedDrain || out.destroyed) await drained(out);
  onRow?.(written);
  return written;
}
