// The texts of validation errors (409) that the server itself finds in a payload, before any data
// source sees it: missing required properties, nulls, too-long strings, values of the wrong type.
// A data source brings its own catalogue in its users' language (the time-tracking service
// answers in German, as the original service does); the default is English.
import type { EntityType, Property } from '../../odata/model.js';

export interface ValidationMessages {
  /** `xml:lang` / `lang` of every message (`de-DE`, `en`). */
  readonly lang: string;
  required(type: EntityType, property: Property): string;
  notNullable(type: EntityType, property: Property): string;
  tooLong(type: EntityType, property: Property, maxLength: number): string;
  invalidValue(type: EntityType, property: Property): string;
}

export const ENGLISH_MESSAGES: ValidationMessages = {
  lang: 'en',
  required: (type, p) => `${type.name} cannot be saved: ${p.name} is required`,
  notNullable: (type, p) => `${type.name} cannot be saved: ${p.name} must not be null`,
  tooLong: (type, p, max) => `${type.name} cannot be saved: ${p.name} is longer than ${max} characters`,
  invalidValue: (type, p) => `${type.name} cannot be saved: ${p.name} is not a valid ${p.type} value`,
};
