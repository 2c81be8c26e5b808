// The service's error texts, in German as the original service's are (service-api.md §7: "German
// text naming the resource type and the reason"). Each names the entity in the nominative with
// its article, so a message reads on its own in a client's error dialog.
import type { EntityType, Property } from '../../odata/model.js';
import type { ValidationMessages } from '../odata-server/messages.js';

export const LANG = 'de-DE';

interface Noun {
  /** With the definite article: "Das Projekt". */
  readonly the: string;
  /** Singular without article: "Projekt". */
  readonly one: string;
  /** Plural without article: "Projekte". */
  readonly plural: string;
}

const NOUNS: Readonly<Record<string, Noun>> = {
  Project: { the: 'Das Projekt', one: 'Projekt', plural: 'Projekte' },
  Client: { the: 'Der Kunde', one: 'Kunde', plural: 'Kunden' },
  Task: { the: 'Die Tätigkeit', one: 'Tätigkeit', plural: 'Tätigkeiten' },
  TimeEntry: { the: 'Der Zeiteintrag', one: 'Zeiteintrag', plural: 'Zeiteinträge' },
  User: { the: 'Der Benutzer', one: 'Benutzer', plural: 'Benutzer' },
  AccountSetting: { the: 'Die Kontoeinstellung', one: 'Kontoeinstellung', plural: 'Kontoeinstellungen' },
};

export function noun(typeName: string): Noun {
  return NOUNS[typeName] ?? { the: `${typeName}`, one: typeName, plural: typeName };
}

/** "Das Projekt kann nicht gespeichert werden: <reason>" */
export function cannotSave(typeName: string, reason: string): string {
  return `${noun(typeName).the} kann nicht gespeichert werden: ${reason}`;
}

export const GERMAN_MESSAGES: ValidationMessages = {
  lang: LANG,
  required: (type: EntityType, p: Property) => cannotSave(type.name, `${p.name} ist ein Pflichtfeld.`),
  notNullable: (type, p) => cannotSave(type.name, `${p.name} darf nicht null sein.`),
  tooLong: (type, p, max) => cannotSave(type.name, `${p.name} darf höchstens ${max} Zeichen lang sein.`),
  invalidValue: (type, p) => cannotSave(type.name, `Der Wert von ${p.name} ist kein gültiger Wert vom Typ ${p.type}.`),
};

export const messages = {
  endBeforeStart: () => cannotSave('TimeEntry', 'Die Endzeit (EndTime) liegt vor der Startzeit (StartTime).'),
  unknownReference: (typeName: string, property: string, id: unknown, target: string) =>
    cannotSave(typeName, `${property} ${String(id)} verweist auf keinen vorhandenen Eintrag (${noun(target).plural}).`),
  projectNotBookable: (id: unknown) =>
    cannotSave('TimeEntry', `Auf das Projekt ${String(id)} darf nicht gebucht werden (nicht zugeordnet oder archiviert).`),
  taskNotAllowed: (taskId: unknown, projectId: unknown) =>
    cannotSave('TimeEntry', `Die Tätigkeit ${String(taskId)} ist für das Projekt ${String(projectId)} nicht erlaubt oder nicht aktiv.`),
  stopwatchRunning: () =>
    cannotSave('TimeEntry', 'Für den Benutzer läuft bereits eine Stoppuhr; ohne Endzeit (EndTime) kann nur eine laufende Stoppuhr gespeichert werden.'),
  durationTooLong: () => cannotSave('TimeEntry', 'Die Dauer ist länger, als DurationSeconds (Edm.Int32) fassen kann.'),
  durationNeedsEnd: () => cannotSave('TimeEntry', 'Ein Dauereintrag (TypeID 1) braucht eine Endzeit (EndTime).'),
  unknownTypeId: () => cannotSave('TimeEntry', 'TypeID muss 1 (Dauer) oder 2 (Start und Ende) sein.'),
  negative: (typeName: string, property: string) => cannotSave(typeName, `${property} darf nicht negativ sein.`),
  idList: (typeName: string, property: string) =>
    cannotSave(typeName, `${property} muss eine kommagetrennte Liste von IDs sein (z. B. "3,7").`),
  unknownIds: (typeName: string, property: string, ids: readonly number[]) =>
    cannotSave(typeName, `${property} enthält IDs, die es nicht gibt: ${ids.join(', ')}.`),
  hasDependants: (typeName: string, count: number, dependants: string) =>
    `${noun(typeName).the} kann nicht gelöscht werden, weil noch ${count === 1 ? `1 ${noun(dependants).one} darauf verweist` : `${count} ${noun(dependants).plural} darauf verweisen`}.`,
  adminsOnly: (typeName: string) => `Nur Administratoren dürfen ${noun(typeName).plural} anlegen, ändern oder löschen.`,
  readOnly: (typeName: string) => `${noun(typeName).plural} können über die API nicht geändert werden.`,
  locked: () => 'Der Zeiteintrag ist gesperrt; nur Administratoren dürfen ihn ändern oder löschen.',
  lockByAdminsOnly: () => 'Nur Administratoren dürfen Zeiteinträge sperren oder entsperren.',
  bookingClosed: (date: Date) => `Der Buchungszeitraum vor dem ${date.toISOString().slice(0, 10)} ist abgeschlossen.`,
  otherUser: () => 'Nur Administratoren dürfen Zeiteinträge anderer Benutzer anlegen oder ändern.',
  noStopwatch: () => 'Es läuft keine Stoppuhr.',
};
