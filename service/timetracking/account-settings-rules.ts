// The rules of an account's settings (company name, time zone, currency, booking close date,
// custom-field labels), in one place for every face that changes them: the web administration
// pages (through AccountChanges) and `timegate admin create-account` / `set-settings`. Pure
// functions that return the normalised value or throw a ValidationError naming the property, with
// the API's message in German and English; the CLI prints the German one as it is. The lengths are
// the model's MaxLength facets (spec/timetracking.edmx), which the API's payload rules check too.
import type { EdmRecord } from '../../odata/edm.js';
import { isTimeZone, wallClockZone } from '../../odata/wall-clock.js';
import type { Texts } from '../odata-server/error-texts.js';
import { ValidationError } from '../odata-server/errors.js';
import { LANG, cannotSave, requiredMessage, tooLongMessage } from './messages.js';
import { accountSettings } from './sets/account-settings.js';

const MAX_LENGTH = { CompanyName: 100, TimeZone: 64, Currency: 3, label: 50 } as const;

/** The entity types with custom fields, as the labels' property names begin (`TaskCustom3Label`). */
export const LABELLED_TYPES = ['Project', 'Client', 'Task', 'User', 'TimeEntry'] as const;
export type LabelledType = typeof LABELLED_TYPES[number];
export const LABEL_SLOTS = [1, 2, 3, 4, 5] as const;

export function labelProperty(type: LabelledType, slot: number): string {
  return `${type}Custom${slot}Label`;
}

const LABEL_PROPERTIES: ReadonlySet<string> = new Set(LABELLED_TYPES.flatMap((type) => LABEL_SLOTS.map((slot) => labelProperty(type, slot))));

const noun = accountSettings.noun;

export const settingsMessages = {
  adminsOnly: (): Texts => ({
    de: 'Nur Administratoren dürfen die Kontoeinstellungen ändern.',
    en: 'Only administrators may change the account settings.',
  }),
  timeZone: (name: string) => cannotSave(noun, {
    de: `TimeZone "${name}" ist keine bekannte IANA-Zeitzone (z. B. Europe/Berlin).`,
    en: `TimeZone "${name}" is no known IANA time zone (e.g. Europe/Berlin).`,
  }),
  currency: () => cannotSave(noun, {
    de: 'Currency muss ein Währungscode nach ISO 4217 aus drei Buchstaben sein (z. B. EUR).',
    en: 'Currency must be an ISO 4217 currency code of three letters (e.g. EUR).',
  }),
  closeDate: (text: string) => cannotSave(noun, {
    de: `BookingCloseDate muss ein Tag im Format JJJJ-MM-TT zwischen 1900 und 9999 sein, den es gibt: "${text}".`,
    en: `BookingCloseDate must be a day that exists, in the form YYYY-MM-DD, between 1900 and 9999: "${text}".`,
  }),
};

function refused(property: string, message: Texts): ValidationError {
  return new ValidationError(message, LANG, property);
}

function text(property: string, value: string, maxLength: number): string {
  const trimmed = value.trim();
  // MaxLength counts characters (code points), as the payload rules do.
  if ([...trimmed].length > maxLength) throw refused(property, tooLongMessage(noun, property, maxLength));
  return trimmed;
}

export function companyName(value: string): string {
  const name = text('CompanyName', value, MAX_LENGTH.CompanyName);
  if (name === '') throw refused('CompanyName', requiredMessage(noun, 'CompanyName'));
  return name;
}

/** An IANA zone the runtime knows (`UTC` included). */
export function timeZone(value: string): string {
  const zone = text('TimeZone', value, MAX_LENGTH.TimeZone);
  if (!isTimeZone(zone)) throw refused('TimeZone', settingsMessages.timeZone(zone));
  return zone;
}

/** Three letters, upper-cased (`eur` is EUR). */
export function currency(value: string): string {
  const code = text('Currency', value, MAX_LENGTH.Currency).toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) throw refused('Currency', settingsMessages.currency());
  return code;
}

/** A label of a custom field; empty (or null) removes it. */
export function customLabel(property: string, value: string | null): string | null {
  if (!LABEL_PROPERTIES.has(property)) throw new Error(`no custom-field label ${property}`);
  const label = value === null ? '' : text(property, value, MAX_LENGTH.label);
  return label === '' ? null : label;
}

/**
 * The booking close date's day, `YYYY-MM-DD` in the years 1900 to 9999 and existing (2026-02-30
 * does not), as its UTC midnight in ms; undefined when the text is no such day. Faces with their
 * own message for a malformed date (the web forms) ask this; the rest ask closeDay.
 */
export function parseCloseDay(value: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (match === null) return undefined;
  const [y, m, d] = match.slice(1).map(Number) as [number, number, number];
  const ms = Date.UTC(y, m - 1, d);
  const probe = new Date(ms);
  return y >= 1900 && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d ? ms : undefined;
}

export function closeDay(value: string): number {
  const day = parseCloseDay(value);
  if (day === undefined) throw refused('BookingCloseDate', settingsMessages.closeDate(value.trim()));
  return day;
}

/** Entries starting before midnight of the close day on the account's wall clock are closed. */
export function closeInstant(day: number, zone: string): number {
  return wallClockZone(zone).toInstant(day);
}

/**
 * Checks the settings properties present in `values` (EDMX names, typed values) and answers them
 * normalised; properties without a rule of their own here pass as they are.
 */
export function checkedSettings(values: EdmRecord): EdmRecord {
  const checked: EdmRecord = { ...values };
  if (typeof values.CompanyName === 'string') checked.CompanyName = companyName(values.CompanyName);
  if (typeof values.TimeZone === 'string') checked.TimeZone = timeZone(values.TimeZone);
  if (typeof values.Currency === 'string') checked.Currency = currency(values.Currency);
  for (const property of LABEL_PROPERTIES) {
    const label = values[property];
    if (typeof label === 'string' || label === null) checked[property] = customLabel(property, label);
  }
  return checked;
}
