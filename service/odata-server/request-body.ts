// The entity in a create or update payload: verbose JSON or Atom (service-api.md §4.1; anything
// else is a 415), read into typed values by odata/ readers. A value that does not fit its
// property's type is a validation error of the entity (409, in the data source's language),
// like every other rule an entity breaks; a body that is not JSON or Atom at all stays a 400.
import { mediaTypeOf } from '../../odata/content-negotiation.js';
import { readAtomEntry } from '../../odata/atom-reader.js';
import type { EdmRecord } from '../../odata/edm.js';
import { PayloadError, UnsupportedMediaTypeError } from '../../odata/errors.js';
import type { JsonReader } from '../../odata/json-reader.js';
import { createJsonReader } from '../../odata/json-reader.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntitySet } from '../../odata/model.js';
import { NotImplementedError, ValidationError } from './errors.js';
import type { ValidationMessages } from './messages.js';

export const JSON_MEDIA_TYPE = 'application/json';
export const ATOM_MEDIA_TYPE = 'application/atom+xml';


export function isEntityMediaType(mediaType: string | undefined): boolean {
  return mediaType === JSON_MEDIA_TYPE || mediaType === ATOM_MEDIA_TYPE;
}

export class EntityBodyReader {
  private readonly jsonReaders = new Map<EntitySet, JsonReader>();

  constructor(private readonly index: ModelIndex, private readonly messages: ValidationMessages) {}

  read(set: EntitySet, contentType: string | undefined, bytes: Buffer | undefined): EdmRecord {
    const mediaType = mediaTypeOf(contentType);
    if (!isEntityMediaType(mediaType)) {
      throw new UnsupportedMediaTypeError(`a create or update carries ${JSON_MEDIA_TYPE} or ${ATOM_MEDIA_TYPE}, not ${contentType === undefined ? 'no Content-Type' : contentType.slice(0, 80)}`);
    }
    const body = bytes === undefined ? undefined : strictUtf8(bytes);
    if (body === undefined || body.trim() === '') throw new PayloadError('the request has no entity in its body');
    try {
      return mediaType === JSON_MEDIA_TYPE ? this.readJson(set, body) : this.readAtom(set, body);
    } catch (error) {
      throw this.asValidationError(set, error);
    }
  }

  private readJson(set: EntitySet, body: string): EdmRecord {
    let reader = this.jsonReaders.get(set);
    if (reader === undefined) this.jsonReaders.set(set, (reader = createJsonReader(this.index, set)));
    const entry = reader.entry(body);
    if (Object.keys(entry.expanded).length > 0) throw deepInsert();
    return entry.record;
  }

  private readAtom(set: EntitySet, body: string): EdmRecord {
    const entry = readAtomEntry(body, this.index, set);
    if (Object.values(entry.navigation).some((link) => link.inline !== undefined)) throw deepInsert();
    return entry.properties;
  }

  /** A PayloadError about a property's value becomes the entity's validation error. */
  private asValidationError(set: EntitySet, error: unknown): unknown {
    if (!(error instanceof PayloadError) || error.target === undefined) return error;
    const type = this.index.typeOfSet(set);
    const property = this.index.property(type, error.target);
    if (property === undefined) return error;
    return new ValidationError(this.messages.invalidValue(type, property), this.messages.lang, property.name);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The body's text; a 400 when it is not UTF-8 (JSON and Atom bodies are). Decoding leniently
 * would store U+FFFD in place of whatever the client meant.
 */
function strictUtf8(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new PayloadError('the request body is not valid UTF-8');
  }
}

function deepInsert(): NotImplementedError {
  return new NotImplementedError('inline entities in a create or update (deep insert, link binding) are not supported; write each entity on its own');
}
