// AccountSettings (data-model.md): one entity per account, readable by every user, read-only
// through the API.
import type { EntitySetDefinition } from './entity-set.js';

export const accountSettings: EntitySetDefinition = {
  name: 'AccountSettings',
  table: 'account_settings',
  noun: {
    de: { the: 'Die Kontoeinstellung', one: 'Kontoeinstellung', plural: 'Kontoeinstellungen' },
    en: { the: 'The account settings', one: 'account setting', plural: 'account settings' },
  },
};
