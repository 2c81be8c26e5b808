// The web interface's week view against the API's answer a client waits for most (issue 26): an
// employee with a year of entries (about 1,000, among 20,000 of the account) opens a week of their
// timesheet; the baseline is a JSON page of 100 of their time entries from /V1/Api.svc. The
// service runs as `timegate service` pinned to core 0, this process (the client) on core 1; each
// round sends both sides one after another on one kept-alive connection, the first alternating.
// A ratio is week ÷ page, the median of the per-round ratios, their spread the noise.
import { fileURLToPath } from 'node:url';
import type { Insertable } from 'kysely';
import { Pool } from 'undici';
import { createAccount, createUser } from '../service/accounts/account-admin.js';
import { insertCatalogue } from '../service/accounts/demo-seed.js';
import { setPassword } from '../service/accounts/passwords.js';
import { seedEntries } from '../service/storage/bulk-seed.js';
import { openDatabase } from '../service/storage/database.js';
import type { TimeEntriesTable } from '../service/storage/schema.js';
import type { RunningServer } from './http-load.js';
import { cpuMs, pinThisProcess, startPinnedServer } from './http-load.js';
import { formatRatio, markdownTable, median } from './report.js';
import type { BenchPlace } from './service-fixture.js';
import { postgresPlace, sqlitePlace } from './service-fixture.js';
import type { BenchSuite } from './suite.js';

const OTHER_ENTRIES = 20_000;
const ROUNDS = 7;
const PER_ROUND = 50;
const SERVER_CORE = 0;
const LOAD_CORE = 1;
const DAY_MS = 86_400_000;
const EMAIL = 'woche@lastprofil.example';
const PASSWORD = 'bench-passwort-1';
const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

interface Seeded {
  readonly key: string;
  readonly entries: number;
  /** A Monday in the middle of the year of entries, `YYYY-MM-DD`. */
  readonly week: string;
}

/** An account of 20,000 entries, and one employee with four bookings on each workday of a year. */
async function seed(url: string): Promise<Seeded> {
  const database = await openDatabase(url);
  const { db } = database;
  try {
    const now = Date.UTC(2026, 10, 20, 12);
    const account = await createAccount(db, { name: 'Lastprofil GmbH', adminEmail: 'admin@lastprofil.example', timeZone: 'Europe/Berlin' });
    await insertCatalogue(db, account.accountId, account.userId, account.userId, now);
    await seedEntries(db, { accountId: account.accountId, entries: OTHER_ENTRIES });
    const user = await createUser(db, { accountId: account.accountId, email: EMAIL, firstName: 'Wiebke', lastName: 'Woche', role: 'user' });
    await setPassword(db, user.userId, PASSWORD);
    const project = await db.selectFrom('projects').select('id').where('account_id', '=', account.accountId)
      .where('active', '=', 1).where('assigned_users', 'is', null).orderBy('id').executeTakeFirstOrThrow();
    const rows: Insertable<TimeEntriesTable>[] = [];
    const firstDay = Math.floor(now / DAY_MS) * DAY_MS - 365 * DAY_MS;
    for (let day = firstDay; day < firstDay + 365 * DAY_MS; day += DAY_MS) {
      const weekday = new Date(day).getUTCDay();
      if (weekday === 0 || weekday === 6) continue;
      for (let n = 0; n < 4; n++) {
        const start = day + (7 + n * 2) * 3_600_000;
        rows.push({
          account_id: account.accountId, type_id: 2, user_id: user.userId, project_id: project.id, task_id: null,
          start_time: start, end_time: start + 5_400_000, comment: `Eintrag ${n + 1}`, billable: 1, locked: 0,
          last_change_time: start, last_change_author: user.userId,
        });
      }
    }
    for (let i = 0; i < rows.length; i += 200) await db.insertInto('time_entries').values(rows.slice(i, i + 200)).execute();
    const middle = new Date(firstDay + 182 * DAY_MS);
    const monday = new Date(middle.getTime() - ((middle.getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10);
    return { key: user.apiKey, entries: rows.length, week: monday };
  } finally {
    await database.close();
  }
}

async function signIn(pool: Pool): Promise<string> {
  const page = await pool.request({ method: 'GET', path: '/sign-in' });
  const html = await page.body.text();
  const pre = String(page.headers['set-cookie']).split(';')[0] as string;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const answer = await pool.request({
    method: 'POST', path: '/sign-in', headers: { cookie: pre, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email: EMAIL, password: PASSWORD }).toString(),
  });
  await answer.body.text();
  const cookies = ([] as string[]).concat(answer.headers['set-cookie'] ?? []);
  const session = cookies.find((line) => line.startsWith('tg_session='));
  if (answer.statusCode !== 303 || session === undefined) throw new Error(`web week bench: signing in answered ${answer.statusCode}`);
  return session.split(';')[0] as string;
}

async function timed(server: RunningServer, send: () => Promise<void>): Promise<{ wall: number; cpu: number }> {
  const cpuBefore = await cpuMs(server.pid);
  const started = process.hrtime.bigint();
  for (let i = 0; i < PER_ROUND; i++) await send();
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  return { wall: wall / PER_ROUND, cpu: ((await cpuMs(server.pid)) - cpuBefore) / PER_ROUND };
}

async function get(pool: Pool, path: string, headers: Record<string, string>, check: (text: string) => boolean): Promise<void> {
  const response = await pool.request({ method: 'GET', path, headers });
  const text = await response.body.text();
  if (response.statusCode !== 200 || !check(text)) throw new Error(`web week bench: GET ${path} answered ${response.statusCode} ${text.slice(0, 200)}`);
}

async function benchOn(place: BenchPlace): Promise<string[]> {
  const seeded = await seed(place.url);
  const bin = fileURLToPath(new URL('../bin/timegate.js', import.meta.url));
  const server = await startPinnedServer(SERVER_CORE, (port) => [bin, 'service', '--port', String(port), '--log-level', 'warn', '--db', place.url]);
  const pool = new Pool(server.origin, { connections: 1 });
  try {
    const cookie = await signIn(pool);
    const week = () => get(pool, `/timesheet?week=${seeded.week}`, { cookie }, (text) => (text.match(/data-entry=/g) ?? []).length === 20);
    const page = () => get(pool, '/V1/Api.svc/TimeEntries?$format=json&$top=100', { 'x-serviceapikey': seeded.key }, (text) => (text.match(/"__metadata":/g) ?? []).length === 100);
    for (let i = 0; i < 20; i++) {
      await week();
      await page();
    }
    const sides = { week: { wall: [] as number[], cpu: [] as number[] }, page: { wall: [] as number[], cpu: [] as number[] } };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['week', 'page'] as const) : (['page', 'week'] as const);
      for (const side of order) {
        const t = await timed(server, side === 'week' ? week : page);
        sides[side].wall.push(t.wall);
        sides[side].cpu.push(t.cpu);
      }
    }
    const ratio = (a: readonly number[], b: readonly number[]) => {
      const each = a.map((x, i) => x / (b[i] as number));
      return `${formatRatio(median(each))} (${formatRatio(Math.min(...each))} to ${formatRatio(Math.max(...each))})`;
    };
    const ms = (values: readonly number[]) => median(values).toFixed(2);
    return [
      place.name, seeded.entries.toLocaleString('en'),
      ms(sides.week.wall), ms(sides.page.wall), ratio(sides.week.wall, sides.page.wall),
      ms(sides.week.cpu), ms(sides.page.cpu), ratio(sides.week.cpu, sides.page.cpu),
    ];
  } finally {
    await pool.close();
    await server.stop();
  }
}

async function run(): Promise<void> {
  // Configuration read once, here at the edge.
  const postgresUrl = process.env.DATABASE_URL || DEFAULT_POSTGRES_URL;
  pinThisProcess(LOAD_CORE);
  const rows: string[][] = [];
  for (const open of [sqlitePlace, () => postgresPlace(postgresUrl)]) {
    const place = await open();
    try {
      rows.push(await benchOn(place));
    } finally {
      await place.dispose();
    }
  }
  console.log(`One employee's year of entries among ${OTHER_ENTRIES.toLocaleString('en')} others; her week (20 entries) as the page /timesheet?week=, `
    + `against a JSON page of 100 of her entries from the API. ${ROUNDS} rounds of ${PER_ROUND} requests a side on one connection, the first side alternating; `
    + 'ms are medians per request; a ratio is week ÷ JSON page, the median of the per-round ratios (least to greatest: the noise). Server CPU is the service process\'s.\n');
  console.log(markdownTable(['database', 'her entries', 'week ms', 'JSON page ms', 'week ÷ page', 'week server CPU ms', 'page server CPU ms', 'CPU week ÷ page'], rows));
  console.log('');
}

export const webWeek: BenchSuite = {
  name: 'web-week',
  description: 'the web interface\'s week view of an employee with a year of entries, against a JSON page of 100 entries (SQLite and PostgreSQL)',
  run,
};
