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
