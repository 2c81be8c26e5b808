// The service's error texts, in German as the original service's are (service-api.md §7: "German
// text naming the resource type and the reason"). Each names the entity in the nominative with
// its article (the noun each set's definition gives), so a message reads on its own in a
// client's error dialog.
import type { EntityType, Property } from '../../odata/model.js';
import type { ValidationMessages } from '../odata-server/messages.js';

export const LANG = 'de-DE';

export interface Noun {
  /** With the definite article: "Das Projekt". */
  readonly the: string;
  /** Singular without article: "Projekt". */
  readonly one: string;
  /** Plural without article: "Projekte". */
  readonly plural: string;
}

/** "Das Projekt kann nicht gespeichert werden: <reason>" */
export function cannotSave(noun: Noun, reason: string): string {
  return `${noun.the} kann nicht gespeichert werden: ${reason}`;
}

/** "<property> ist ein Pflichtfeld." and "... darf höchstens <max> Zeichen lang sein.", as every rule says them. */
export const requiredMessage = (noun: Noun, property: string) => cannotSave(noun, `${property} ist ein Pflichtfeld.`);
export const tooLongMessage = (noun: Noun, property: string, max: number) =>
  cannotSave(noun, `${property} darf höchstens ${max} Zeichen lang sein.`);

/** The messages of the generic server's payload checks, naming each entity type by its noun. */
export function validationMessages(nounOf: (type: EntityType) => Noun): ValidationMessages {
  return {
    lang: LANG,
    required: (type: EntityType, p: Property) => requiredMessage(nounOf(type), p.name),
    notNullable: (type, p) => cannotSave(nounOf(type), `${p.name} darf nicht null sein.`),
    tooLong: (type, p, max) => tooLongMessage(nounOf(type), p.name, max),
    invalidValue: (type, p) => cannotSave(nounOf(type), `Der Wert von ${p.name} ist kein gültiger Wert vom Typ ${p.type}.`),
  };
}

export const messages = {
  unknownReference: (noun: Noun, property: string, id: unknown, target: Noun) =>
    cannotSave(noun, `${property} ${String(id)} verweist auf keinen vorhandenen Eintrag (${target.plural}).`),
  negative: (noun: Noun, property: string) => cannotSave(noun, `${property} darf nicht negativ sein.`),
  idList: (noun: Noun, property: string) =>
    cannotSave(noun, `${property} muss eine kommagetrennte Liste von IDs sein (z. B. "3,7").`),
  unknownIds: (noun: Noun, property: string, ids: readonly number[]) =>
    cannotSave(noun, `${property} enthält IDs, die es nicht gibt: ${ids.join(', ')}.`),
  hasDependants: (noun: Noun, count: number, dependants: Noun) =>
    `${noun.the} kann nicht gelöscht werden, weil noch ${count === 1 ? `1 ${dependants.one} darauf verweist` : `${count} ${dependants.plural} darauf verweisen`}.`,
  adminsOnly: (noun: Noun) => `Nur Administratoren dürfen ${noun.plural} anlegen, ändern oder löschen.`,
  readOnly: (noun: Noun) => `${noun.plural} können über die API nicht geändert werden.`,
};
