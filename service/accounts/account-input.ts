// Checks of what an operator types into `timegate admin ...`: pure functions that either return
// the normalised value or throw an AccountAdminError naming the field.
import { hostTimeZone, isTimeZone } from '../../odata/wall-clock.js';
import { AccountAdminError } from './account-errors.js';
import { ACCESS_RIGHTS } from '../storage/schema.js';
import type { AccessRights } from '../storage/schema.js';

export type Role = 'admin' | 'user';

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

export function currency(value: string | undefined): string {
  const text = (value ?? 'EUR').trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(text)) throw new AccountAdminError('invalid-input', `currency must be an ISO 4217 code: ${text}`);
  return text;
}

/** An IANA zone the runtime knows; the host's zone when none is given. */
export function timeZone(value: string | undefined): string {
  const text = (value ?? hostTimeZone()).trim();
  if (!isTimeZone(text)) throw new AccountAdminError('invalid-input', `unknown IANA time zone: ${text}`);
  if (text.length > 64) throw new AccountAdminError('invalid-input', 'time zone is longer than 64 characters');
  return text;
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

/** A calendar day `YYYY-MM-DD` that exists (2026-02-30 does not), as its UTC midnight in ms. */
export function day(field: string, value: string): number {
  const text = value.trim();
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const ms = match === null ? Number.NaN : Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    throw new AccountAdminError('invalid-input', `${field} must be a date YYYY-MM-DD: ${text}`);
  }
  return ms;
}
