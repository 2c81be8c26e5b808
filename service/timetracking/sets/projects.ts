// Projects (data-model.md): master data, written by administrators. A standard user reads the
// projects assigned to them: AssignedUsers is null (everybody) or lists them. AssignedUsers and
// AssignedTasks are stored normalised (`1,5,7`), which the visibility condition and the booking
// rules of time entries match on.
import { sql } from 'kysely';
import type { EdmRecord, EdmValue } from '../../../odata/edm.js';
import { ValidationError } from '../../odata-server/errors.js';
import type { Caller } from '../caller.js';
import { LANG, messages } from '../messages.js';
import type { WriteContext } from '../write-support.js';
import { existingIds } from '../write-support.js';
import { adminWrites } from './admin-writes.js';
import { clients } from './clients.js';
import type { EntitySetDefinition, Sql } from './entity-set.js';
import { tasks } from './tasks.js';
import { users } from './users.js';

/** A project's AssignedUsers (normalised `1,5,7`) is null or lists the user. */
export function assignedTo(alias: string, userId: number): Sql {
  const list = sql.ref(`${alias}.assigned_users`);
  return sql`(${list} is null or (',' || ${list} || ',') like ${`%,${userId},%`})`;
}

function isListed(list: EdmValue | EdmRecord | undefined, userId: number): boolean {
  if (list === null || list === undefined) return true;
  return typeof list === 'string' && list.split(',').includes(String(userId));
}

const noun = { de: { the: 'Das Projekt', one: 'Projekt', plural: 'Projekte' }, en: { the: 'The project', one: 'project', plural: 'projects' } };

/** Project rules: a client of the account, no negative budget or rate, lists of known IDs. */
async function checkProject(ctx: WriteContext, values: EdmRecord): Promise<EdmRecord> {
  const checked = { ...values };
  const clientId = values.ClientID;
  if (typeof clientId === 'number' && !(await existingIds(ctx, clients.table, [clientId])).has(clientId)) {
    throw new ValidationError(messages.unknownReference(noun, 'ClientID', clientId, clients.noun), LANG, 'ClientID');
  }
  if (typeof values.TimeBudget === 'number' && values.TimeBudget < 0) throw negative('TimeBudget');
  if (typeof values.HourlyRate === 'string' && values.HourlyRate.startsWith('-')) throw negative('HourlyRate');
  for (const [property, table] of [['AssignedUsers', users.table], ['AssignedTasks', tasks.table]] as const) {
    const list = values[property];
    if (typeof list !== 'string') continue;
    const ids = idList(list, property);
    const known = await existingIds(ctx, table, ids);
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new ValidationError(messages.unknownIds(noun, property, unknown), LANG, property);
    // Normalised to `1,5,7`: visibility and assignment checks match on exactly that form.
    checked[property] = ids.length === 0 ? null : ids.join(',');
  }
  return checked;
}

function negative(property: string): ValidationError {
  return new ValidationError(messages.negative(noun, property), LANG, property);
}

/** `"3, 7,3"` -> [3, 7]; anything but IDs separated by commas is a validation error. */
export function idList(text: string, property: string): number[] {
  const parts = text.split(',').map((part) => part.trim()).filter((part) => part !== '');
  if (parts.some((part) => !/^\d{1,9}$/.test(part))) throw new ValidationError(messages.idList(noun, property), LANG, property);
  return [...new Set(parts.map(Number))];
}

export const projects: EntitySetDefinition = {
  name: 'Projects',
  table: 'projects',
  noun,
  visibleToStandardUser: (caller: Caller, alias: string) => assignedTo(alias, caller.userId),
  computed: {
    properties: ['AssignedToCurrentUser'],
    complete(record, caller) {
      record.AssignedToCurrentUser = isListed(record.AssignedUsers, caller.userId);
    },
  },
  writes: adminWrites({ check: checkProject }),
};
