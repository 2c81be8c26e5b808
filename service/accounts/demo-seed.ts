// The demo account `npm start` creates on first run: a small company with an administrator, two
// employees, clients, projects, tasks and a few weeks of bookings, so every API call has
// something to show. Created only when the database has no account at all, in one transaction.
// Deterministic for a given `now` (seeded pseudo-random), relative to today so it looks current.
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Database, TimeEntriesTable } from '../storage/schema.js';
import { TIME_ENTRY_TYPE } from '../storage/schema.js';
import { seededRandom } from '../storage/seeded-random.js';
import { withTransaction } from '../storage/transaction.js';
import { createAccount, createUser } from './account-admin.js';
import type { Role } from './account-admin.js';
import { setPassword } from './passwords.js';

export interface DemoUser {
  readonly userId: number;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  /** Shown once, to print at start-up. */
  readonly apiKey: string;
}

export type DemoSeedResult =
  | { readonly created: false }
  | { readonly created: true; readonly accountId: number; readonly users: readonly DemoUser[]; readonly timeEntries: number };

/** A demo user's known password for the web interface, printed by `npm start` (demo data only). */
export interface DemoSignIn {
  readonly email: string;
  readonly password: string;
  readonly role: Role;
}

/** The demo employee's. */
export const DEMO_SIGN_IN: DemoSignIn = { email: 'jana.schmidt@demo.example', password: 'demo-passwort', role: 'user' };
/**
 * The demo administrator's, so the administration pages can be tried too; it grants nothing the
 * administrator's API key, printed beside it, does not.
 */
export const DEMO_ADMIN_SIGN_IN: DemoSignIn = { email: 'alex.berger@demo.example', password: 'demo-admin-passwort', role: 'admin' };

/**
 * Gives the demo employee and administrator their known passwords when they have none yet (a
 * demo database made before the web interface existed, too); leaves one the user changed alone.
 * The sign-ins of those who are in the database.
 */
export async function ensureDemoSignIn(db: Kysely<Database>): Promise<DemoSignIn[]> {
  const present: DemoSignIn[] = [];
  for (const signIn of [DEMO_SIGN_IN, DEMO_ADMIN_SIGN_IN]) {
    const user = await db.selectFrom('users').select(['id', 'password_hash'])
      .where('email', '=', signIn.email).orderBy('id').executeTakeFirst();
    if (user === undefined) continue;
    if (user.password_hash === null) await setPassword(db, user.id, signIn.password);
    present.push(signIn);
  }
  return present;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const WORKDAYS = 30;
const COMMENTS = [null, 'Abstimmung mit dem Kunden', 'Umsetzung', 'Review', 'Fehleranalyse', 'Workshop', 'Tests'];

export async function seedDemoAccount(db: Kysely<Database>, now: number = Date.now()): Promise<DemoSeedResult> {
  return withTransaction(db, async (trx) => {
    const anyAccount = await trx.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
    if (anyAccount !== undefined) return { created: false };

    const account = await createAccount(trx, {
      name: 'Demo GmbH', adminEmail: 'alex.berger@demo.example', adminFirstName: 'Alex', adminLastName: 'Berger',
      timeZone: 'Europe/Berlin',
    });
    const admin: DemoUser = { userId: account.userId, email: 'alex.berger@demo.example', name: 'Alex Berger', role: 'admin', apiKey: account.apiKey };
    const employees: DemoUser[] = [];
    for (const [firstName, lastName] of [['Jana', 'Schmidt'], ['Tom', 'Weber']] as const) {
      const email = `${firstName.toLowerCase()}.${lastName.toLowerCase()}@demo.example`;
      const user = await createUser(trx, { accountId: account.accountId, email, firstName, lastName, role: 'user', authorUserId: admin.userId });
      employees.push({ userId: user.userId, email, name: `${firstName} ${lastName}`, role: 'user', apiKey: user.apiKey });
    }
    const [jana, tom] = employees as [DemoUser, DemoUser];
    await trx.updateTable('account_settings').set({ project_custom1_label: 'Kostenstelle', time_entry_custom1_label: 'Ticket' })
      .where('account_id', '=', account.accountId).execute();

    const catalogue = await insertCatalogue(trx, account.accountId, admin.userId, jana.userId, now);
    const timeEntries = await insertBookings(trx, account.accountId, [admin, jana, tom], catalogue, now);
    return { created: true, accountId: account.accountId, users: [admin, jana, tom], timeEntries };
  });
}

interface Catalogue {
  readonly projects: ReadonlyArray<{ id: number; active: boolean; assignedUsers: readonly number[] | null; taskIds: readonly number[] }>;
  readonly taskBillable: ReadonlyMap<number, 0 | 1>;
}

/**
 * The demo company's clients, projects and tasks, in an account of its own (the bulk seed books
 * on them); `limitedUserId` is the one standard user the "Mobile App" project is assigned to.
 */
export async function insertCatalogue(trx: Kysely<Database>, accountId: number, adminId: number, limitedUserId: number,
  now: number): Promise<Catalogue> {
  const stamp = { account_id: accountId, last_change_time: now, last_change_author: adminId };
  const clientIds = await ids(trx.insertInto('clients').values(
    ['Nordwind AG', 'Stadtwerke Musterstadt', 'Bäckerei Sonnenschein'].map((name) => ({ ...stamp, name, active: 1 as const })))
    .returning('id').execute());
  const tasks = [['Konzeption', 1], ['Entwicklung', 1], ['Besprechung', 1], ['Support', 1], ['Verwaltung', 0]] as const;
  const taskIds = await ids(trx.insertInto('tasks').values(
    tasks.map(([description, billable]) => ({ ...stamp, description, billable, active: 1 as const })))
    .returning('id').execute());
  const [nordwind, stadtwerke, baeckerei] = clientIds as [number, number, number];
  const [konzeption, entwicklung, besprechung, support, verwaltung] = taskIds as [number, number, number, number, number];
  const projects = [
    { name: 'Website-Relaunch', client_id: nordwind, hourly_rate: '95.00', time_budget: 200 * 3600, custom1: 'KST-100' },
    { name: 'Mobile App', client_id: nordwind, hourly_rate: '110.00', assigned_users: `${adminId},${limitedUserId}` },
    { name: 'Kundenportal', client_id: stadtwerke, hourly_rate: '85.50', comment: 'Rahmenvertrag 2024' },
    { name: 'Energie-Dashboard', client_id: stadtwerke, assigned_tasks: `${konzeption},${entwicklung},${besprechung}` },
    { name: 'Kassensystem', client_id: baeckerei, hourly_rate: '70.00', active: 0 as const },
    { name: 'Interne Organisation', assigned_tasks: `${besprechung},${verwaltung}` },
  ];
  const projectIds = await ids(trx.insertInto('projects')
    .values(projects.map((project) => ({ active: 1 as const, ...stamp, ...project }))).returning('id').execute());
  const allTasks = [konzeption, entwicklung, besprechung, support, verwaltung];
  return {
    projects: projects.map((project, i) => ({
      id: projectIds[i] as number,
      active: project.active !== 0,
      assignedUsers: project.assigned_users === undefined ? null : project.assigned_users.split(',').map(Number),
      taskIds: project.assigned_tasks === undefined ? allTasks : project.assigned_tasks.split(',').map(Number),
    })),
    taskBillable: new Map(tasks.map(([, billable], i) => [taskIds[i] as number, billable])),
  };
}

// Three to four bookings per user and workday over the last six weeks; the archived project only
// in the older half; Tom's stopwatch is running since 25 minutes.
async function insertBookings(trx: Transaction<Database>, accountId: number, users: readonly DemoUser[],
  catalogue: Catalogue, now: number): Promise<number> {
  const random = seededRandom(4004);
  const rows: Insertable<TimeEntriesTable>[] = [];
  let day = Math.floor(now / DAY_MS) * DAY_MS;
  for (let workday = 0; workday < WORKDAYS; day -= DAY_MS) {
    const weekday = new Date(day - DAY_MS).getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    const date = day - DAY_MS;
    for (const user of users) {
      const bookable = catalogue.projects.filter((project) => (project.active || workday > WORKDAYS / 2)
        && (project.assignedUsers === null || project.assignedUsers.includes(user.userId)));
      let start = date + (7 * 60 + random.int(0, 60)) * MINUTE_MS;
      for (let n = random.int(3, 4); n > 0; n--) {
        const project = random.pick(bookable);
        const taskId = random.pick(project.taskIds);
        const end = start + random.int(2, 10) * 15 * MINUTE_MS;
        rows.push({
          account_id: accountId, type_id: TIME_ENTRY_TYPE.startEnd, user_id: user.userId, project_id: project.id,
          task_id: taskId, start_time: start, end_time: end, comment: random.pick(COMMENTS),
          billable: catalogue.taskBillable.get(taskId) ?? 1, locked: workday >= 20 ? 1 : 0,
          custom1: random.next() < 0.2 ? `T-${random.int(1000, 9999)}` : null,
          last_change_time: end, last_change_author: user.userId,
        });
        start = end + random.int(0, 4) * 15 * MINUTE_MS;
      }
    }
    workday++;
  }
  const tom = users[2] as DemoUser;
  const running = catalogue.projects[0] as Catalogue['projects'][number];
  rows.push({
    account_id: accountId, type_id: TIME_ENTRY_TYPE.startEnd, user_id: tom.userId, project_id: running.id, task_id: null,
    start_time: now - 25 * MINUTE_MS, end_time: null, comment: 'Stoppuhr läuft', billable: 1, locked: 0,
    last_change_time: now - 25 * MINUTE_MS, last_change_author: tom.userId,
  });
  // Rows of 18 columns: 200 per statement stays far below both databases' parameter limits.
  for (let i = 0; i < rows.length; i += 200) {
    await trx.insertInto('time_entries').values(rows.slice(i, i + 200)).execute();
  }
  return rows.length;
}

async function ids(inserted: Promise<ReadonlyArray<{ id: number }>>): Promise<number[]> {
  return (await inserted).map((row) => row.id);
}
