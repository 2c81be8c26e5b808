// What the model itself says about a create or update payload, checked before a data source
// sees it: keys the service assigns, required and non-nullable properties, MaxLength. Read-only
// properties (sap:creatable/updatable="false") are dropped rather than refused, so a client may
// send back an entity it read (WCF and SAP clients do) without tripping over computed fields.
import type { EdmRecord, EdmValue } from '../../odata/edm.js';
import type { KeyValues } from '../../odata/key-predicate.js';
import type { EntityType, Model, Property } from '../../odata/model.js';
import { isEdmPrimitiveType } from '../../odata/model.js';
import { isRequiredOnCreate, isServerDefault } from '../../odata/timegate-annotations.js';
import { xmlParser } from '../../odata/xml-values.js';
import type { UpdateMode } from './data-source.js';
import { BadRequestError, ValidationError } from './errors.js';
import type { Message } from './error-texts.js';
import type { ValidationMessages } from './messages.js';

/** Per entity type, computed once: what may be written and what a replace resets it to. */
interface TypeRules {
  readonly creatable: readonly Property[];
  readonly updatable: readonly Property[];
  /** Replace (PUT) resets an omitted property to this; absent = required or filled by the source. */
  readonly resetValues: ReadonlyMap<string, EdmValue>;
}

export class PayloadRules {
  private readonly rules = new Map<EntityType, TypeRules>();

  constructor(private readonly model: Model, private readonly messages: ValidationMessages) {}

  /** The values of a create: every creatable property given, checked. */
  forCreate(type: EntityType, record: EdmRecord): EdmRecord {
    const rules = this.rulesOf(type);
    for (const name of type.key) {
      const key = rules.creatable.find((p) => p.name === name);
      if (key === undefined && record[name] !== undefined) {
        throw new BadRequestError(`${name} is assigned by the service and must not be sent on create`, name);
      }
    }
    const values: EdmRecord = {};
    for (const p of rules.creatable) {
      const value = record[p.name];
      if (value === undefined) {
        if (isRequiredOnCreate(this.model, p)) throw this.invalid(type, p, this.messages.required(type, p));
        continue;
      }
      values[p.name] = this.checked(type, p, value);
    }
    return values;
  }

  /** The values of an update of the entity `key`: given ones (merge), or all with resets (replace). */
  forUpdate(type: EntityType, key: KeyValues, record: EdmRecord, mode: UpdateMode): EdmRecord {
    const rules = this.rulesOf(type);
    for (const name of type.key) {
      const given = record[name];
      if (given !== undefined && !sameValue(given, key[name])) {
        throw new BadRequestError(`${name} in the payload differs from the key in the URI; a key cannot be changed`, name);
      }
    }
    const values: EdmRecord = {};
    for (const p of rules.updatable) {
      if (type.key.includes(p.name)) continue;
      const value = record[p.name];
      if (value !== undefined) {
        values[p.name] = this.checked(type, p, value);
        continue;
      }
      if (mode === 'merge') continue;
      const reset = rules.resetValues.get(p.name);
      if (reset !== undefined) values[p.name] = reset;
      else if (!isServerDefault(this.model, p.annotations)) throw this.invalid(type, p, this.messages.required(type, p));
    }
    return values;
  }

  /**
   * The given values checked against their properties' facets (nullable, MaxLength, text),
   * whether or not the API may write them: for what is changed outside the API (the account
   * settings and users of the administration pages), with the same messages. Unknown names are
   * dropped.
   */
  forAdministration(type: EntityType, record: EdmRecord): EdmRecord {
    const values: EdmRecord = {};
    for (const p of type.properties) {
      const value = record[p.name];
      if (value !== undefined && !type.key.includes(p.name)) values[p.name] = this.checked(type, p, value);
    }
    return values;
  }

  private checked(type: EntityType, p: Property, value: EdmValue | EdmRecord): EdmValue | EdmRecord {
    if (value === null) {
      if (!p.nullable) throw this.invalid(type, p, this.messages.notNullable(type, p));
      return value;
    }
    if (typeof value === 'string' && !isRepresentableText(value)) throw this.invalid(type, p, this.messages.invalidValue(type, p));
    if (p.type === 'Edm.Decimal' && typeof value === 'string' && !fitsDecimalFacets(value, p.precision, p.scale)) {
      // Beyond Precision/Scale a database rounds silently (PostgreSQL) or overflows (a 500).
      throw this.invalid(type, p, this.messages.invalidValue(type, p));
    }
    if (typeof value === 'string' && typeof p.maxLength === 'number' && value.length > p.maxLength) {
      // MaxLength counts characters; a string longer in UTF-16 units may still fit in code points.
      if ([...value].length > p.maxLength) throw this.invalid(type, p, this.messages.tooLong(type, p, p.maxLength));
    }
    return value;
  }

  private invalid(type: EntityType, p: Property, message: Message): ValidationError {
    return new ValidationError(message, this.messages.lang, p.name);
  }

  private rulesOf(type: EntityType): TypeRules {
    let rules = this.rules.get(type);
    if (rules === undefined) {
      const resetValues = new Map<string, EdmValue>();
      for (const p of type.properties) {
        if (p.defaultValue !== undefined && isEdmPrimitiveType(p.type)) {
          resetValues.set(p.name, xmlParser(p.type, p.name)(p.defaultValue));
        } else if (p.nullable) {
          resetValues.set(p.name, null);
        }
      }
      rules = {
        creatable: type.properties.filter((p) => p.capabilities.creatable),
        updatable: type.properties.filter((p) => p.capabilities.updatable),
        resetValues,
      };
      this.rules.set(type, rules);
    }
    return rules;
  }
}

// Characters XML 1.0 cannot carry (NUL and other C0 controls, lone surrogates, U+FFFE/U+FFFF).
const NOT_XML_TEXT = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/**
 * Whether a string can be stored and served: JSON can carry `\u0000` or a lone surrogate, but an
 * Atom response could not, and PostgreSQL refuses NUL in text (a 500 instead of the client's error).
 */
export function isRepresentableText(text: string): boolean {
  return !NOT_XML_TEXT.test(text);
}

/** Whether canonical decimal text (`-12.5`) has at most `scale` fraction digits and `precision` digits in all. */
export function fitsDecimalFacets(text: string, precision: number | undefined, scale: number | undefined): boolean {
  const [whole = '', fraction = ''] = text.replace(/^-/, '').split('.');
  const wholeDigits = whole.replace(/^0+/, '').length;
  if (scale !== undefined && fraction.length > scale) return false;
  return precision === undefined || wholeDigits + (scale ?? fraction.length) <= precision;
}

/** Equality of two Edm values as they are written (dates by instant). */
export function sameValue(a: EdmValue | EdmRecord | undefined, b: EdmValue | EdmRecord | undefined): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return a === b;
}
