// Writes of the master data: Projects, Clients and Tasks. Administrators only; references must
// point into the caller's account; an entity others still refer to cannot be deleted.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { EdmRecord } from '../../odata/edm.js';
import { ConflictError, ForbiddenError, ValidationError } from '../odata-server/errors.js';
import { LANG, messages } from './messages.js';
import type { EntityTable } from './tables.js';
import type { WriteContext } from './write-support.js';
import { changeStamp, existingIds, refuseIfReferenced, toColumns } from './write-support.js';

type MasterTable = 'projects' | 'clients' | 'tasks';

/** What refers to an entity of each set, and so blocks its delete. */
const DEPENDANTS: Readonly<Record<MasterTable, readonly [table: 'projects' | 'time_entries', column: string, typeName: string][]>> = {
  clients: [['projects', 'client_id', 'Project']],
  projects: [['time_entries', 'project_id', 'TimeEntry']],
  tasks: [['time_entries', 'task_id', 'TimeEntry']],
};

function masterTable(table: EntityTable): MasterTable {
  if (table.table === 'projects' || table.table === 'clients' || table.table === 'tasks') return table.table;
  throw new Error(`${table.set.name} is not master data`);
}

function requireAdmin(ctx: WriteContext, table: EntityTable): void {
  if (!ctx.caller.isAdmin) throw new ForbiddenError(messages.adminsOnly(table.type.name), LANG);
}

// Kysely's types cannot follow a table chosen at run time; the columns come from the model.
const untyped = (ctx: WriteContext) => ctx.trx as unknown as Kysely<Record<MasterTable, Record<string, unknown>>>;

export async function createMasterData(ctx: WriteContext, table: EntityTable, values: EdmRecord): Promise<number> {
  requireAdmin(ctx, table);
  const name = masterTable(table);
  const checked = name === 'projects' ? await checkProject(ctx, values) : values;
  const row = { ...toColumns(table, checked), account_id: ctx.caller.accountId, ...changeStamp(ctx) };
  const created = await untyped(ctx).insertInto(name).values(row).returning('id').executeTakeFirstOrThrow();
  return Number(created.id);
}

export async function updateMasterData(ctx: WriteContext, table: EntityTable, id: number, values: EdmRecord): Promise<void> {
  requireAdmin(ctx, table);
  const name = masterTable(table);
  const checked = name === 'projects' ? await checkProject(ctx, values) : values;
  await untyped(ctx).updateTable(name).set({ ...toColumns(table, checked), ...changeStamp(ctx) })
    .where('account_id', '=', ctx.caller.accountId).where('id', '=', id).execute();
}

export async function deleteMasterData(ctx: WriteContext, table: EntityTable, id: number): Promise<void> {
  requireAdmin(ctx, table);
  const name = masterTable(table);
  await refuseIfReferenced(ctx, table.type.name, id, DEPENDANTS[name]);
  if (name === 'tasks') await refuseIfAssigned(ctx, id);
  await untyped(ctx).deleteFrom(name).where('account_id', '=', ctx.caller.accountId).where('id', '=', id).execute();
}

/** A task a project's AssignedTasks still lists stays: its ID would dangle in the list. */
async function refuseIfAssigned(ctx: WriteContext, taskId: number): Promise<void> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from projects where account_id = ${ctx.caller.accountId}
    and (',' || assigned_tasks || ',') like ${`%,${taskId},%`}`.execute(ctx.trx);
  const count = Number(rows[0]?.n ?? 0);
  if (count > 0) throw new ConflictError(messages.hasDependants('Task', count, 'Project'), LANG);
}

/** Project rules: a client of the account, no negative budget or rate, lists of known IDs. */
async function checkProject(ctx: WriteContext, values: EdmRecord): Promise<EdmRecord> {
  const checked = { ...values };
  const clientId = values.ClientID;
  if (typeof clientId === 'number' && !(await existingIds(ctx, 'clients', [clientId])).has(clientId)) {
    throw new ValidationError(messages.unknownReference('Project', 'ClientID', clientId, 'Client'), LANG, 'ClientID');
  }
  if (typeof values.TimeBudget === 'number' && values.TimeBudget < 0) throw negative('TimeBudget');
  if (typeof values.HourlyRate === 'string' && values.HourlyRate.startsWith('-')) throw negative('HourlyRate');
  for (const [property, table] of [['AssignedUsers', 'users'], ['AssignedTasks', 'tasks']] as const) {
    const list = values[property];
    if (typeof list !== 'string') continue;
    const ids = idList(list, property);
    const known = await existingIds(ctx, table, ids);
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new ValidationError(messages.unknownIds('Project', property, unknown), LANG, property);
    // Normalised to `1,5,7`: visibility and assignment checks match on exactly that form.
    checked[property] = ids.length === 0 ? null : ids.join(',');
  }
  return checked;
}

function negative(property: string): ValidationError {
  return new ValidationError(messages.negative('Project', property), LANG, property);
}

/** `"3, 7,3"` -> [3, 7]; anything but IDs separated by commas is a validation error. */
export function idList(text: string, property: string): number[] {
  const parts = text.split(',').map((part) => part.trim()).filter((part) => part !== '');
  if (parts.some((part) => !/^\d{1,9}$/.test(part))) throw new ValidationError(messages.idList('Project', property), LANG, property);
  return [...new Set(parts.map(Number))];
}
