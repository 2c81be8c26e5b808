// Clients (data-model.md): master data, written by administrators, readable by every user.
// AssignedToCurrentUser: one of the client's projects is assigned to the caller.
import { sql } from 'kysely';
import type { EntitySetDefinition } from './entity-set.js';
import { adminWrites } from './admin-writes.js';
import { assignedTo } from './projects.js';

export const clients: EntitySetDefinition = {
  name: 'Clients',
  table: 'clients',
  noun: { de: { the: 'Der Kunde', one: 'Kunde', plural: 'Kunden' }, en: { the: 'The client', one: 'client', plural: 'clients' } },
  computed: {
    properties: ['AssignedToCurrentUser'],
    helper: {
      value: {
        ofCaller: (alias, caller) => sql`exists (select 1 from projects as assigned_of where assigned_of.account_id = ${sql.ref(`${alias}.account_id`)}
        and assigned_of.client_id = ${sql.ref(`${alias}.id`)} and ${assignedTo('assigned_of', caller.userId)})`,
      },
    },
    complete(record, _caller, _now, assigned) {
      record.AssignedToCurrentUser = Number(assigned) === 1 || assigned === true;
    },
  },
  writes: adminWrites({}),
};
