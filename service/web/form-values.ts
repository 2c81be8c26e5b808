// Form fields (text, as a browser posts them) to typed values of the model's properties, with the
// service's own messages when a text is no value of its type. Only the reading of text lives
// here; what a value may be (required, MaxLength, references, rules of the set) is checked by the
// payload rules and the set's write rules behind the data source, as for the API.
import type { EdmRecord } from '../../odata/edm.js';
import type { EntityType } from '../../odata/model.js';
import type { Language } from '../odata-server/error-texts.js';
import { textIn } from '../odata-server/error-texts.js';
import type { ValidationMessages } from '../odata-server/messages.js';

export type FieldErrors = Record<string, string>;

/** The text of a form field (the first of repeated ones); '' when absent or not text. */
export function formText(body: unknown, name: string, maxLength = 10_000): string {
  const raw = (body as Record<string, unknown> | undefined)?.[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value.slice(0, maxLength) : '';
}

/** Every value of a repeated form field (checkbox lists), as text. */
export function formTexts(body: unknown, name: string): string[] {
  const raw = (body as Record<string, unknown> | undefined)?.[name];
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return values.filter((v): v is string => typeof v === 'string').slice(0, 1000);
}

const INT32 = /^-?\d{1,10}$/;
const DECIMAL = /^-?\d{1,20}(?:[.,]\d{1,10})?$/;

/**
 * The typed values of the named properties from the form's text (field name = property name).
 * Empty text is null for a nullable property; for a required one the set's "required" message.
 * Checkboxes (Edm.Boolean) are on when their value is `1`. Messages in the page's `language`.
 */
export function recordFromForm(
  type: EntityType, names: readonly string[], body: unknown, messages: ValidationMessages, language: Language,
): { values: EdmRecord; errors: FieldErrors } {
  const values: EdmRecord = {};
  const errors: FieldErrors = {};
  for (const name of names) {
    const p = type.properties.find((property) => property.name === name);
    if (p === undefined) continue;
    const text = formText(body, name);
    if (p.type === 'Edm.Boolean') {
      values[name] = text === '1';
      continue;
    }
    const trimmed = text.trim();
    if (trimmed === '') {
      if (p.nullable) values[name] = null;
      else errors[name] = textIn(messages.required(type, p), language);
      continue;
    }
    switch (p.type) {
      case 'Edm.Int32': {
        const n = Number(trimmed);
        if (INT32.test(trimmed) && n >= -2_147_483_648 && n <= 2_147_483_647) values[name] = n;
        else errors[name] = textIn(messages.invalidValue(type, p), language);
        break;
      }
      case 'Edm.Decimal':
        if (DECIMAL.test(trimmed)) values[name] = trimmed.replace(',', '.').replace(/^(-?)0+(?=\d)/, '$1');
        else errors[name] = textIn(messages.invalidValue(type, p), language);
        break;
      default:
        // Text as typed (surrounding spaces dropped): MaxLength and characters are the payload rules'.
        values[name] = trimmed;
    }
  }
  return { values, errors };
}
