// The texts of validation errors (409) that the server itself finds in a payload, before any data
// source sees it: missing required properties, nulls, too-long strings, values of the wrong type.
// A data source brings its own catalogue in its users' language, or in both (the time-tracking
// service's are German and English, German first, as the original service answers); the default
// is English.
import type { EntityType, Property } from '../../odata/model.js';
import type { Message } from './error-texts.js';

export interface ValidationMessages {
  /** `xml:lang` / `lang` of every message, or of the first of two (`de-DE`, `en`). */
  readonly lang: string;
  required(type: EntityType, property: Property): Message;
  notNullable(type: EntityType, property: Property): Message;
  tooLong(type: EntityType, property: Property, maxLength: number): Message;
  invalidValue(type: EntityType, property: Property): Message;
}

export const ENGLISH_MESSAGES: ValidationMessages = {
  lang: 'en',
  required: (type, p) => `${type.name} cannot be saved: ${p.name} is required`,
  notNullable: (type, p) => `${type.name} cannot be saved: ${p.name} must not be null`,
  tooLong: (type, p, max) => `${type.name} cannot be saved: ${p.name} is longer than ${max} characters`,
  invalidValue: (type, p) => `${type.name} cannot be saved: ${p.name} is not a valid ${p.type} value`,
};
