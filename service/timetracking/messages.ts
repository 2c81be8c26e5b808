// The service's error texts, each in German and English side by side. The German one is what the
// API answers by default, as the original service does (service-api.md §7: "German text naming
// the resource type and the reason"), byte for byte, since clients compare it; the English one is
// for requests that prefer English (error-texts.ts) and for web pages in English. Each names the
// entity in the nominative with its article (the noun each set's definition gives), so a message
// reads on its own in a client's error dialog.
import type { EntityType, Property } from '../../odata/model.js';
import type { Language, Texts } from '../odata-server/error-texts.js';
import type { ValidationMessages } from '../odata-server/messages.js';

/** The language of the messages' primary text, the one the API answers by default. */
export const LANG = 'de-DE';

export interface NounForms {
  /** With the definite article: "Das Projekt", "The project". */
  readonly the: string;
  /** Singular without article: "Projekt", "project". */
  readonly one: string;
  /** Plural without article: "Projekte", "projects". */
  readonly plural: string;
}

/** An entity's noun in both languages. */
export type Noun = Readonly<Record<Language, NounForms>>;

/** "Projects" at the start of a sentence (German nouns are capitalised anyway). */
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** "Das Projekt kann nicht gespeichert werden: <reason>", "The project cannot be saved: <reason>" */
export function cannotSave(noun: Noun, reason: Texts): Texts {
  return { de: `${noun.de.the} kann nicht gespeichert werden: ${reason.de}`, en: `${noun.en.the} cannot be saved: ${reason.en}` };
}

/** "<property> ist ein Pflichtfeld." and "... darf höchstens <max> Zeichen lang sein.", as every rule says them. */
export const requiredMessage = (noun: Noun, property: string) =>
  cannotSave(noun, { de: `${property} ist ein Pflichtfeld.`, en: `${property} is required.` });
export const tooLongMessage = (noun: Noun, property: string, max: number) =>
  cannotSave(noun, { de: `${property} darf höchstens ${max} Zeichen lang sein.`, en: `${property} must be at most ${max} characters long.` });

/** The messages of the generic server's payload checks, naming each entity type by its noun. */
export function validationMessages(nounOf: (type: EntityType) => Noun): ValidationMessages {
  return {
    lang: LANG,
    required: (type: EntityType, p: Property) => requiredMessage(nounOf(type), p.name),
    notNullable: (type, p) => cannotSave(nounOf(type), { de: `${p.name} darf nicht null sein.`, en: `${p.name} must not be null.` }),
    tooLong: (type, p, max) => tooLongMessage(nounOf(type), p.name, max),
    invalidValue: (type, p) => cannotSave(nounOf(type), {
      de: `Der Wert von ${p.name} ist kein gültiger Wert vom Typ ${p.type}.`,
      en: `The value of ${p.name} is not a valid value of type ${p.type}.`,
    }),
  };
}

export const messages = {
  unknownReference: (noun: Noun, property: string, id: unknown, target: Noun) => cannotSave(noun, {
    de: `${property} ${String(id)} verweist auf keinen vorhandenen Eintrag (${target.de.plural}).`,
    en: `${property} ${String(id)} refers to no existing entry (${target.en.plural}).`,
  }),
  negative: (noun: Noun, property: string) =>
    cannotSave(noun, { de: `${property} darf nicht negativ sein.`, en: `${property} must not be negative.` }),
  idList: (noun: Noun, property: string) => cannotSave(noun, {
    de: `${property} muss eine kommagetrennte Liste von IDs sein (z. B. "3,7").`,
    en: `${property} must be a comma-separated list of IDs (e.g. "3,7").`,
  }),
  unknownIds: (noun: Noun, property: string, ids: readonly number[]) => cannotSave(noun, {
    de: `${property} enthält IDs, die es nicht gibt: ${ids.join(', ')}.`,
    en: `${property} contains IDs that do not exist: ${ids.join(', ')}.`,
  }),
  hasDependants: (noun: Noun, count: number, dependants: Noun): Texts => ({
    de: `${noun.de.the} kann nicht gelöscht werden, weil noch ${count === 1 ? `1 ${dependants.de.one} darauf verweist` : `${count} ${dependants.de.plural} darauf verweisen`}.`,
    en: `${noun.en.the} cannot be deleted because ${count === 1 ? `1 ${dependants.en.one} still refers` : `${count} ${dependants.en.plural} still refer`} to it.`,
  }),
  adminsOnly: (noun: Noun): Texts => ({
    de: `Nur Administratoren dürfen ${noun.de.plural} anlegen, ändern oder löschen.`,
    en: `Only administrators may create, change or delete ${noun.en.plural}.`,
  }),
  readOnly: (noun: Noun): Texts => ({
    de: `${noun.de.plural} können über die API nicht geändert werden.`,
    en: `${capitalised(noun.en.plural)} cannot be changed through the API.`,
  }),
  /** A database constraint the rules did not name (a bug of the rules, or a race they lost). */
  invalidReference: (noun: Noun) => cannotSave(noun, {
    de: 'Ein Verweis auf einen anderen Eintrag ist ungültig, oder andere Einträge verweisen noch hierauf.',
    en: 'A reference to another entry is invalid, or other entries still refer to this one.',
  }),
  databaseRule: (noun: Noun) => cannotSave(noun, { de: 'Die Daten verletzen eine Regel der Datenbank.', en: 'The data break a rule of the database.' }),
};

/** The noun of TimeEntries, whose rules (sets/time-entries.ts, stopwatch.ts) have the texts below. */
export const timeEntryNoun: Noun = {
  de: { the: 'Der Zeiteintrag', one: 'Zeiteintrag', plural: 'Zeiteinträge' },
  en: { the: 'The time entry', one: 'time entry', plural: 'time entries' },
};

/** The texts of the rules of time entries and of the stopwatch. */
export const entryMessages = {
  endBeforeStart: () => cannotSave(timeEntryNoun, {
    de: 'Die Endzeit (EndTime) liegt vor der Startzeit (StartTime).',
    en: 'The end time (EndTime) is before the start time (StartTime).',
  }),
  projectNotBookable: (id: unknown) => cannotSave(timeEntryNoun, {
    de: `Auf das Projekt ${String(id)} darf nicht gebucht werden (nicht zugeordnet oder archiviert).`,
    en: `Project ${String(id)} cannot be booked on (not assigned or archived).`,
  }),
  taskNotAllowed: (taskId: unknown, projectId: unknown) => cannotSave(timeEntryNoun, {
    de: `Die Tätigkeit ${String(taskId)} ist für das Projekt ${String(projectId)} nicht erlaubt oder nicht aktiv.`,
    en: `Task ${String(taskId)} is not allowed on project ${String(projectId)} or not active.`,
  }),
  stopwatchRunning: () => cannotSave(timeEntryNoun, {
    de: 'Für den Benutzer läuft bereits eine Stoppuhr; ohne Endzeit (EndTime) kann nur eine laufende Stoppuhr gespeichert werden.',
    en: 'A stopwatch is already running for the user; without an end time (EndTime) only a running stopwatch can be saved.',
  }),
  outOfCalendar: (property: string) => cannotSave(timeEntryNoun, {
    de: `${property} liegt außerhalb des Kalenders von Edm.DateTime (0001-01-01T00:00:00 bis 9999-12-31T23:59:59.999).`,
    en: `${property} is outside the calendar of Edm.DateTime (0001-01-01T00:00:00 to 9999-12-31T23:59:59.999).`,
  }),
  durationTooLong: () => cannotSave(timeEntryNoun, {
    de: 'Die Dauer ist länger, als DurationSeconds (Edm.Int32) fassen kann.',
    en: 'The duration is longer than DurationSeconds (Edm.Int32) can hold.',
  }),
  durationNeedsEnd: () => cannotSave(timeEntryNoun, {
    de: 'Ein Dauereintrag (TypeID 1) braucht eine Endzeit (EndTime).',
    en: 'A duration entry (TypeID 1) needs an end time (EndTime).',
  }),
  unknownTypeId: () => cannotSave(timeEntryNoun, {
    de: 'TypeID muss 1 (Dauer) oder 2 (Start und Ende) sein.',
    en: 'TypeID must be 1 (duration) or 2 (start and end).',
  }),
  tooLong: (property: string, max: number) => tooLongMessage(timeEntryNoun, property, max),
  locked: (): Texts => ({
    de: 'Der Zeiteintrag ist gesperrt; nur Administratoren dürfen ihn ändern oder löschen.',
    en: 'The time entry is locked; only administrators may change or delete it.',
  }),
  lockByAdminsOnly: (): Texts => ({
    de: 'Nur Administratoren dürfen Zeiteinträge sperren oder entsperren.',
    en: 'Only administrators may lock or unlock time entries.',
  }),
  bookingClosed: (date: Date): Texts => ({
    de: `Der Buchungszeitraum vor dem ${date.toISOString().slice(0, 10)} ist abgeschlossen.`,
    en: `The booking period before ${date.toISOString().slice(0, 10)} is closed.`,
  }),
  otherUser: (): Texts => ({
    de: 'Nur Administratoren dürfen Zeiteinträge anderer Benutzer anlegen oder ändern.',
    en: 'Only administrators may create or change time entries of other users.',
  }),
  noStopwatch: (): Texts => ({ de: 'Es läuft keine Stoppuhr.', en: 'No stopwatch is running.' }),
};
