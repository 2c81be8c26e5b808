// Checks of what an operator types into `timegate admin ...`: pure functions that either return
// the normalised value or throw an AccountAdminError naming the field. The account settings'
// rules are not here but in account-settings-rules.ts, shared with the web pages; `setting` asks
// one of them and turns its refusal (the API's German message) into an AccountAdminError.
import { ValidationError } from '../odata-server/errors.js';
import { AccountAdminError } from './account-errors.js';
import { ACCESS_RIGHTS } from '../storage/schema.js';
import type { AccessRights } from '../storage/schema.js';

export type Role = 'admin' | 'user';

/** The entities whose custom fields an account labels, as `--custom-label` names them. */
export type LabelledEntity = 'project' | 'client' | 'task' | 'user' | 'time-entry';

export const LABELLED_ENTITIES: readonly LabelledEntity[] = ['project', 'client', 'task', 'user', 'time-entry'];

export function requiredText(field: string, value: string | undefined, maxLength: number): string {
  const text = value?.trim() ?? '';
  if (text === '') throw new AccountAdminError('invalid-input', `${field} is required`);
  if (text.length > maxLength) throw new AccountAdminError('invalid-input', `${field} is longer than ${maxLength} characters`);
  return text;
}

// Deliberately loose (one @, something on both sides, a dot in the domain): the address is a
// login name here, not something we send mail to, and strict e-mail grammars reject real addresses.
export function email(value: string | undefined): string {
  const text = requiredText('email', value, 80);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) throw new AccountAdminError('invalid-input', `email is not an address: ${text}`);
  return text;
}

export function language(value: string | undefined): string {
  const text = (value ?? 'DE').trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(text)) throw new AccountAdminError('invalid-input', `language must be two letters (DE, EN, ...): ${text}`);
  return text;
}

/** The value `rule` answers; its ValidationError as an `invalid-input` AccountAdminError. */
export function setting<T>(rule: () => T): T {
  try {
    return rule();
  } catch (error) {
    if (error instanceof ValidationError) throw new AccountAdminError('invalid-input', error.message);
    throw error;
  }
}

export function accessRights(role: string): AccessRights {
  if (role === 'admin') return ACCESS_RIGHTS.administrator;
  if (role === 'user') return ACCESS_RIGHTS.standardUser;
  throw new AccountAdminError('invalid-input', `role must be admin or user: ${role}`);
}

export function positiveId(field: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new AccountAdminError('invalid-input', `${field} must be a positive integer`);
  return value;
}
