// A report's own table as a file (not the entries behind it, which export-entries.ts writes): one
// line per group and period with billable, non-billable and total hours and, where hourly rates
// are on, the revenue, then the totals line. The same CSV and XLSX writers write it, so the CSV's
// BOM, quoting and formula-injection rule and the XLSX's typed cells are the entry export's:
// a report line is just another kind of row to them (ExportColumn<ReportLine>).
//
// Hours are written from whole seconds and money from the report's cent-exact decimal texts, so
// the file's numbers are the page's and the database's sums, not sums of rounded figures.
import type { Writable } from 'node:stream';
import { writeCsv } from './csv-writer.js';
import type { CsvDelimiter } from './csv-writer.js';
import type { ExportColumn, ExportLanguage } from './export-columns.js';
import type { ExportFormat } from './report-scope.js';
import type { Report, ReportSums } from './report-query.js';
import type { EntryFilter } from './report-scope.js';
import { writeXlsx } from './xlsx-writer.js';

/** A line of the file: a report line, or the totals (no label, no period). */
interface TableRow extends ReportSums {
  readonly label: string;
  readonly period: string | null;
  readonly isTotal: boolean;
}

const TEXTS = {
  en: {
    group: { project: 'Project', client: 'Client', employee: 'Employee', task: 'Task' },
    week: 'Week (Monday)', month: 'Month', billable: 'Billable hours', nonBillable: 'Non-billable hours', hours: 'Hours',
    revenue: 'Revenue', entries: 'Entries', total: 'Total', withoutName: '(none)', sheet: 'Report', file: 'report',
  },
  de: {
    group: { project: 'Projekt', client: 'Kunde', employee: 'Mitarbeiter/in', task: 'Tätigkeit' },
    week: 'Woche (Montag)', month: 'Monat', billable: 'Abrechenbare Stunden', nonBillable: 'Nicht abrechenbare Stunden', hours: 'Stunden',
    revenue: 'Umsatz', entries: 'Einträge', total: 'Summe', withoutName: '(ohne)', sheet: 'Bericht', file: 'bericht',
  },
} as const satisfies Record<ExportLanguage, unknown>;

/** The columns of a report's table: the period (unless the report covers the whole range), the group, the sums. */
export function reportColumns(report: Report, language: ExportLanguage): readonly ExportColumn<TableRow>[] {
  const t = TEXTS[language];
  const columns: ExportColumn<TableRow>[] = [];
  if (report.period === 'week') {
    // The week's Monday as a date cell (wall-clock milliseconds of that day), sortable in a spreadsheet.
    columns.push({ header: t.week, kind: 'day', width: 14, value: (r) => (r.period === null ? null : Date.parse(`${r.period}T00:00:00Z`)) });
  } else if (report.period === 'month') {
    columns.push({ header: t.month, kind: 'text', width: 10, value: (r) => r.period });
  }
  columns.push(
    { header: t.group[report.groupBy], kind: 'text', width: 28, value: (r) => (r.isTotal ? t.total : r.label || t.withoutName) },
    { header: t.billable, kind: 'hours', width: 14, value: (r) => r.billableSeconds },
    { header: t.nonBillable, kind: 'hours', width: 14, value: (r) => r.nonBillableSeconds },
    { header: t.hours, kind: 'hours', width: 10, value: (r) => r.seconds },
    { header: t.entries, kind: 'integer', width: 10, value: (r) => r.entries },
  );
  if (report.hourlyRatesEnabled) {
    columns.push({ header: `${t.revenue} (${report.currency})`, kind: 'decimal', width: 14, value: (r) => r.revenue });
  }
  return columns;
}

/** The report's lines, then its totals line. */
export function reportTableRows(report: Report): TableRow[] {
  return [
    ...report.lines.map((line) => ({ ...line, isTotal: false })),
    { ...report.total, label: '', period: null, isTotal: true },
  ];
}

export interface ReportFileOptions {
  readonly format: ExportFormat;
  /** CSV only: `;` (decimal comma) or `,` (decimal point). Default `;`. */
  readonly delimiter?: CsvDelimiter;
  readonly language?: ExportLanguage;
}

/** Writes the report's table as a whole file into `out` (does not end it); resolves with the lines written, totals included. */
export async function exportReport(report: Report, out: Writable, options: ReportFileOptions): Promise<number> {
  const language = options.language ?? 'de';
  const columns = reportColumns(report, language);
  const rows = reportTableRows(report);
  if (options.format === 'xlsx') return writeXlsx(rows, columns, out, { sheetName: TEXTS[language].sheet });
  // Flags never occur in a report's table; the words are there for the writer's sake.
  return writeCsv(rows, columns, out, { delimiter: options.delimiter ?? ';', yes: '', no: '' });
}

/** A file name for a report download: `bericht-projekt-woche-2026-01-01-2026-03-31.csv`, ASCII only. */
export function reportFileName(filter: EntryFilter, report: Pick<Report, 'groupBy' | 'period'>, format: ExportFormat, language: ExportLanguage = 'de'): string {
  const range = [filter.from, filter.to].filter((day) => day !== undefined).join('-');
  return `${TEXTS[language].file}-${report.groupBy}-${report.period}${range === '' ? '' : `-${range}`}.${format}`;
}
