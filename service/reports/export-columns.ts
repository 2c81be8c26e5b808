// The columns of an export, declared once for both file formats: the header in the reader's
// language, the kind of value (which each writer renders in its own way: text in CSV, typed cells
// in XLSX) and how to take it from an entry. The account's custom-field labels head the custom
// columns: all five of the time entry (a slot without a label is headed `Custom<n>`, so no data
// is left out), and the labelled slots of its project, client, task and user.
import type { EntryRow } from './entry-query.js';
import type { CustomEntity, ReportAccount } from './report-scope.js';
import { zoneOf } from './report-scope.js';

export type ExportLanguage = 'en' | 'de';

/**
 * text: user-typed text (neutralised against formula injection in CSV);
 * integer: a whole number; decimal: a decimal text with two places (`95.00`);
 * hours: decimal hours from whole seconds; day: a calendar day; clock: a day and a time
 * (both on the account's wall clock, given as wall-clock milliseconds); flag: yes or no.
 */
export type ColumnKind = 'text' | 'integer' | 'decimal' | 'hours' | 'day' | 'clock' | 'flag';

export type CellValue = string | number | boolean | null;

/** A column of rows of type `Row` (an entry by default; a report's line for the report's own table). */
export interface ExportColumn<Row = EntryRow> {
  readonly header: string;
  readonly kind: ColumnKind;
  /** Characters, a width for spreadsheet columns. */
  readonly width: number;
  value(row: Row): CellValue;
}

const TEXTS = {
  en: {
    id: 'ID', day: 'Date', start: 'Start', end: 'End', seconds: 'Seconds', hours: 'Hours', employee: 'Employee', email: 'Email',
    client: 'Client', project: 'Project', task: 'Task', comment: 'Comment', billable: 'Billable', locked: 'Locked',
    rate: 'Rate per hour', revenue: 'Revenue', yes: 'yes', no: 'no', sheet: 'Time entries',
    entity: { timeEntry: '', project: 'Project', client: 'Client', task: 'Task', user: 'Employee' },
  },
  de: {
    id: 'ID', day: 'Datum', start: 'Beginn', end: 'Ende', seconds: 'Sekunden', hours: 'Stunden', employee: 'Mitarbeiter', email: 'E-Mail',
    client: 'Kunde', project: 'Projekt', task: 'Tätigkeit', comment: 'Kommentar', billable: 'Abrechenbar', locked: 'Gesperrt',
    rate: 'Stundensatz', revenue: 'Umsatz', yes: 'ja', no: 'nein', sheet: 'Zeiteinträge',
    entity: { timeEntry: '', project: 'Projekt', client: 'Kunde', task: 'Tätigkeit', user: 'Mitarbeiter' },
  },
} as const;

/** The words of a file that are not column headers (yes/no in CSV, the sheet's name). */
export function exportTexts(language: ExportLanguage): { readonly yes: string; readonly no: string; readonly sheet: string } {
  return TEXTS[language];
}

/** The columns of an export of the account's entries, in order. */
export function exportColumns(account: ReportAccount, language: ExportLanguage): readonly ExportColumn[] {
  const t = TEXTS[language];
  const zone = zoneOf(account);
  const columns: ExportColumn[] = [
    { header: t.id, kind: 'integer', width: 10, value: (r) => r.id },
    { header: t.day, kind: 'day', width: 12, value: (r) => zone.toWallClock(r.startTime) },
    { header: t.start, kind: 'clock', width: 17, value: (r) => zone.toWallClock(r.startTime) },
    { header: t.end, kind: 'clock', width: 17, value: (r) => zone.toWallClock(r.endTime) },
    { header: t.seconds, kind: 'integer', width: 10, value: (r) => r.seconds },
    { header: t.hours, kind: 'hours', width: 8, value: (r) => r.seconds },
    { header: t.employee, kind: 'text', width: 24, value: (r) => r.userName },
    { header: t.email, kind: 'text', width: 28, value: (r) => r.userEmail },
    { header: t.client, kind: 'text', width: 24, value: (r) => r.clientName },
    { header: t.project, kind: 'text', width: 24, value: (r) => r.projectName },
    { header: t.task, kind: 'text', width: 18, value: (r) => r.taskName },
    { header: t.comment, kind: 'text', width: 40, value: (r) => r.comment },
    { header: t.billable, kind: 'flag', width: 10, value: (r) => r.billable },
    { header: t.locked, kind: 'flag', width: 10, value: (r) => r.locked },
  ];
  if (account.hourlyRatesEnabled) {
    columns.push(
      { header: `${t.rate} (${account.currency})`, kind: 'decimal', width: 14, value: (r) => r.ratePerHour },
      { header: `${t.revenue} (${account.currency})`, kind: 'decimal', width: 14, value: (r) => r.revenue },
    );
  }
  const entities: readonly CustomEntity[] = ['timeEntry', 'project', 'client', 'task', 'user'];
  for (const entity of entities) {
    account.customLabels[entity].forEach((label, slot) => {
      if (entity !== 'timeEntry' && label === null) return;
      const name = label ?? `Custom${slot + 1}`;
      columns.push({
        header: entity === 'timeEntry' ? name : `${t.entity[entity]}: ${name}`,
        kind: 'text',
        width: 16,
        value: (r) => r.custom[entity][slot] ?? null,
      });
    });
  }
  return columns;
}
