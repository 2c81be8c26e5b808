// Loads a large, realistic set of time entries into one account, for benchmarks (`timegate seed`).
// Shape: enough employees that each books about `entriesPerUser` entries (default 1000: four a
// workday, about a year back), on the active projects they may book on, with tasks the project
// allows. Deterministic for a given seed and `now`.
//
// Speed: multi-row INSERTs of `rowsPerStatement` rows, many statements per transaction; the only
// per-row work is building one small object.
import type { Kysely } from 'kysely';
import type { Database, Flag, TimeEntriesTable } from './schema.js';
import { ACCESS_RIGHTS, TIME_ENTRY_TYPE } from './schema.js';
import { seededRandom } from './seeded-random.js';
import type { SeededRandom } from './seeded-random.js';
import type { Insertable } from 'kysely';

export interface SeedEntriesOptions {
  readonly accountId: number;
  readonly entries: number;
  readonly onProgress?: (inserted: number, total: number) => void;
  readonly entriesPerUser?: number;
  readonly seed?: number;
  /** The entries end before this instant (ms). */
  readonly now?: number;
  readonly rowsPerStatement?: number;
  readonly rowsPerTransaction?: number;
}

export interface SeedEntriesResult {
  readonly inserted: number;
  readonly users: number;
  /** Earliest and latest StartTime of the inserted entries (ms), to aim benchmark filters. */
  readonly firstStartTime: number;
  readonly lastStartTime: number;
}

interface Bookable {
  readonly userId: number;
  readonly projects: ReadonlyArray<{ readonly id: number; readonly tasks: readonly Task[] }>;
}

interface Task {
  readonly id: number;
  readonly billable: Flag;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** Start minute after midnight (UTC) and length range of the four bookings of a workday. */
const SLOTS = [[8 * 60, 90, 120], [10 * 60 + 15, 60, 100], [13 * 60, 90, 140], [15 * 60 + 30, 45, 100]] as const;
const COMMENTS = [null, null, 'Abstimmung mit dem Kunden', 'Umsetzung', 'Review', 'Fehleranalyse', 'Dokumentation', 'Tests'];
const LOCKED_AFTER_DAYS = 90;

export async function seedEntries(db: Kysely<Database>, options: SeedEntriesOptions): Promise<SeedEntriesResult> {
  const total = Math.max(0, Math.trunc(options.entries));
  const now = options.now ?? Date.now();
  const random = seededRandom(options.seed ?? 20_240_601);
  const perStatement = options.rowsPerStatement ?? 1000;
  const perTransaction = options.rowsPerTransaction ?? 50_000;
  const bookables = await prepareBookables(db, options.accountId, Math.ceil(total / (options.entriesPerUser ?? 1000)), now);
  const workdays = workdayMidnights(now, Math.ceil(total / bookables.length / SLOTS.length) + 1);

  let inserted = 0;
  let firstStartTime = Number.POSITIVE_INFINITY;
  let lastStartTime = Number.NEGATIVE_INFINITY;
  while (inserted < total) {
    const transactionEnd = Math.min(total, inserted + perTransaction);
    await db.transaction().execute(async (trx) => {
      while (inserted < transactionEnd) {
        const count = Math.min(perStatement, transactionEnd - inserted);
        const rows: Insertable<TimeEntriesTable>[] = new Array(count);
        for (let i = 0; i < count; i++) {
          const row = entry(inserted + i, bookables, workdays, random, options.accountId, now);
          if (row.start_time < firstStartTime) firstStartTime = row.start_time;
          if (row.start_time > lastStartTime) lastStartTime = row.start_time;
          rows[i] = row;
        }
        await trx.insertInto('time_entries').values(rows).execute();
        inserted += count;
        options.onProgress?.(inserted, total);
      }
    });
  }
  return { inserted, users: bookables.length, firstStartTime, lastStartTime };
}

function entry(index: number, bookables: readonly Bookable[], workdays: readonly number[], random: SeededRandom,
  accountId: number, now: number): Insertable<TimeEntriesTable> {
  const bookable = bookables[index % bookables.length] as Bookable;
  const slotNumber = Math.floor(index / bookables.length);
  const day = workdays[Math.floor(slotNumber / SLOTS.length)] as number;
  const [startMinute, shortest, longest] = SLOTS[slotNumber % SLOTS.length] as (typeof SLOTS)[number];
  const project = random.pick(bookable.projects);
  const task = project.tasks.length > 0 && random.next() < 0.9 ? random.pick(project.tasks) : undefined;
  const durationMs = random.int(shortest, longest) * MINUTE_MS;
  // One in ten is a duration entry: StartTime at midnight, EndTime = StartTime + duration.
  const isDuration = random.next() < 0.1;
  const start = isDuration ? day : day + (startMinute + random.int(0, 10)) * MINUTE_MS;
  const end = start + durationMs;
  return {
    account_id: accountId,
    type_id: isDuration ? TIME_ENTRY_TYPE.duration : TIME_ENTRY_TYPE.startEnd,
    user_id: bookable.userId,
    project_id: project.id,
    task_id: task?.id ?? null,
    start_time: start,
    end_time: end,
    comment: random.pick(COMMENTS),
    billable: task === undefined ? 1 : task.billable,
    locked: now - start > LOCKED_AFTER_DAYS * DAY_MS ? 1 : 0,
    last_change_time: Math.min(now, end + random.int(0, 120) * MINUTE_MS),
    last_change_author: bookable.userId,
  };
}

/** UTC midnights of the `count` workdays (Mon-Fri) before the day of `now`, newest first. */
function workdayMidnights(now: number, count: number): number[] {
  const days: number[] = [];
  for (let day = Math.floor(now / DAY_MS) * DAY_MS - DAY_MS; days.length < count; day -= DAY_MS) {
    const weekday = new Date(day).getUTCDay();
    if (weekday !== 0 && weekday !== 6) days.push(day);
  }
  return days;
}

// The account's active users with the projects and tasks each may book on, after adding
// standard users "Seed User n" until there are `wantedUsers` (they need no API keys).
async function prepareBookables(db: Kysely<Database>, accountId: number, wantedUsers: number, now: number): Promise<Bookable[]> {
  const existing = await db.selectFrom('users').select('id').where('account_id', '=', accountId).where('active', '=', 1)
    .orderBy('id').execute();
  const missing = Math.max(0, wantedUsers - existing.length);
  const created = await createSeedUsers(db, accountId, existing.length, missing, now);
  const userIds = [...existing.map((user) => user.id), ...created];
  const projects = await db.selectFrom('projects').select(['id', 'assigned_users', 'assigned_tasks'])
    .where('account_id', '=', accountId).where('active', '=', 1).orderBy('id').execute();
  const tasks = await db.selectFrom('tasks').select(['id', 'billable'])
    .where('account_id', '=', accountId).where('active', '=', 1).orderBy('id').execute();
  const bookables = userIds.map((userId) => ({
    userId,
    projects: projects
      .filter((project) => allows(project.assigned_users, userId))
      .map((project) => ({ id: project.id, tasks: tasks.filter((task) => allows(project.assigned_tasks, task.id)) })),
  })).filter((bookable) => bookable.projects.length > 0);
  if (bookables.length === 0) throw new RangeError(`account ${accountId} has no active user with an active project to book on`);
  return bookables;
}

function allows(assigned: string | null, id: number): boolean {
  return assigned === null || assigned.split(',').some((part) => Number(part.trim()) === id);
}

async function createSeedUsers(db: Kysely<Database>, accountId: number, existing: number, count: number, now: number): Promise<number[]> {
  if (count === 0) return [];
  const rows = Array.from({ length: count }, (_, i) => {
    const n = existing + i + 1;
    return {
      account_id: accountId, first_name: 'Seed', last_name: `User ${n}`, email: `seed.user.${n}.${now}@seed.invalid`,
      language: 'DE', access_rights: ACCESS_RIGHTS.standardUser, active: 1 as const, last_change_time: now, last_change_author: 0,
    };
  });
  const ids: number[] = [];
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 500) {
      const inserted = await trx.insertInto('users').values(rows.slice(i, i + 500)).returning('id').execute();
      ids.push(...inserted.map((row) => row.id));
    }
  });
  return ids;
}
