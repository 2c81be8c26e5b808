// Optimistic concurrency of the web forms, as the API has it with ETags and If-Match. A form that
// changes or deletes an existing row carries, hidden, the row version it was rendered from (the
// model's ConcurrencyMode="Fixed" property); its POST hands that version to the data source as the
// write's condition, the very condition an If-Match becomes, compared in the statement that
// writes. So two tabs, two people, a form and an API client or the stopwatch meet one rule, and
// nothing here compares versions itself: a stale form is refused by the data source (412, or 404
// when the row went), and the page then shows what the row is now.
//
// Users and account settings have no Version in the model (the API only reads them); their
// internal `version` column (migration 005) travels in the same hidden field under the same
// rules, and the account writes compare it in their statement the same way (user-details.ts,
// account-changes.ts), refusing a stale one with the same PreconditionFailedError.
import type { EdmRecord } from '../../odata/edm.js';
import { ResourceNotFoundError } from '../../odata/errors.js';
import { concurrencyProperties } from '../../odata/etag.js';
import type { EntityType } from '../../odata/model.js';
import type { WriteCondition } from '../odata-server/data-source.js';
import { PreconditionFailedError } from '../odata-server/errors.js';
import { formText } from './form-values.js';
import { html } from './html.js';
import type { Html } from './html.js';

const FIELD = 'version';
const INT32_MAX = 2_147_483_647;

/** The one concurrency property of the type (an Edm.Int32 row version); anything else is a model the forms cannot guard. */
function versionProperty(type: EntityType): string {
  const [property, ...more] = concurrencyProperties(type);
  if (property === undefined || more.length > 0 || property.type !== 'Edm.Int32') {
    throw new Error(`the web forms need one Edm.Int32 row version on ${type.name}`);
  }
  return property.name;
}

/** The hidden field of a form that changes or deletes `record`: the version it shows. */
export function versionField(type: EntityType, record: EdmRecord): Html {
  return internalVersionField(record[versionProperty(type)] as number);
}

/** The hidden field of a form that changes a row with an internal version (users, account settings). */
export function internalVersionField(version: number): Html {
  return html`<input type="hidden" name="${FIELD}" value="${String(version)}">`;
}

/** The write condition of a change made on `record` as just read (no form between the read and the write). */
export function versionOf(type: EntityType, record: EdmRecord): WriteCondition {
  const property = versionProperty(type);
  return { [property]: record[property] ?? null };
}

/**
 * The write condition of a posted form: the version it was rendered from. Undefined when the
 * field is missing or is no version at all (garbled or tampered with): a form error, never a
 * write without a condition.
 */
export function postedVersion(type: EntityType, body: unknown): WriteCondition | undefined {
  const version = postedInternalVersion(body);
  return version === undefined ? undefined : { [versionProperty(type)]: version };
}

/** The internal version a posted form was rendered from; undefined when missing or garbled, as above. */
export function postedInternalVersion(body: unknown): number | undefined {
  const text = formText(body, FIELD, 20);
  if (!/^\d{1,10}$/.test(text) || Number(text) < 1 || Number(text) > INT32_MAX) return undefined;
  return Number(text);
}

/**
 * Whether the data source refused a conditioned write because the row is no longer the version
 * the form was made from: changed meanwhile (412), or deleted meanwhile (404, or 412 where
 * the set's rules do not look the row up first). The page reads
 * the row again to tell which.
 */
export function isStale(error: unknown): boolean {
  return error instanceof PreconditionFailedError || error instanceof ResourceNotFoundError;
}
