// Tasks (data-model.md): the kinds of activity, master data written by administrators and
// readable by every user. A task a project's AssignedTasks still lists cannot be deleted: its ID
// would dangle in the list.
import { sql } from 'kysely';
import { ConflictError } from '../../odata-server/errors.js';
import { LANG, messages } from '../messages.js';
import type { WriteContext } from '../write-support.js';
import { adminWrites } from './admin-writes.js';
import type { EntitySetDefinition } from './entity-set.js';
import { projects } from './projects.js';

async function refuseIfAssigned(ctx: WriteContext, taskId: number): Promise<void> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(projects.table)} where account_id = ${ctx.caller.accountId}
    and (',' || assigned_tasks || ',') like ${`%,${taskId},%`}`.execute(ctx.db);
  const count = Number(rows[0]?.n ?? 0);
  if (count > 0) throw new ConflictError(messages.hasDependants(tasks.noun, count, projects.noun), LANG);
}

export const tasks: EntitySetDefinition = {
  name: 'Tasks',
  table: 'tasks',
  noun: { de: { the: 'Die Tätigkeit', one: 'Tätigkeit', plural: 'Tätigkeiten' }, en: { the: 'The task', one: 'task', plural: 'tasks' } },
  writes: adminWrites({ beforeDelete: refuseIfAssigned }),
};
