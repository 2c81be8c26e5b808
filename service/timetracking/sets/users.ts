// Users (data-model.md): the account's employees, readable by every user, read-only through the
// API (accounts, users and keys are managed with `timegate admin`).
import type { EntitySetDefinition } from './entity-set.js';

export const users: EntitySetDefinition = {
  name: 'Users',
  table: 'users',
  noun: { de: { the: 'Der Benutzer', one: 'Benutzer', plural: 'Benutzer' }, en: { the: 'The user', one: 'user', plural: 'users' } },
};
