// What the write and bad-input suites of the service share: the demo account's catalogue by name,
// a snapshot of everything stored (to prove a refused request changed nothing), the checks of an
// OData error document (status, negotiated format, `code` element, no stack trace), a second
// company account (for cross-account IDs), and short-hands to create entities to work on.
import { expect } from 'vitest';
import { createAccount } from '../../service/accounts/account-admin.js';
import type { EdmRecord } from '../../odata/edm.js';
import type { ErrorBody, Format, ODataClient, PayloadValue, Reply } from './odata-client.js';
import { ERROR_CONTENT_TYPE, expectStatus, idOf, payload, readEntry, readError } from './odata-client.js';
import type { TestService } from './service.js';

/** The demo account's master data (service/accounts/demo-seed.ts), IDs by name. */
export interface DemoCatalogue {
  readonly clients: { readonly nordwind: number; readonly stadtwerke: number; readonly baeckerei: number };
  readonly projects: {
    /** Active, open to everybody, HourlyRate 95.00; Tom's stopwatch runs on it. */
    readonly websiteRelaunch: number;
    /** Assigned to Alex and Jana only (Tom cannot see it). */
    readonly mobileApp: number;
    readonly kundenportal: number;
    /** Allows the tasks Konzeption, Entwicklung and Besprechung only. */
    readonly energieDashboard: number;
    /** Archived (Active false). */
    readonly kassensystem: number;
    /** No client, no HourlyRate; allows Besprechung and Verwaltung only. */
    readonly interneOrganisation: number;
  };
  readonly tasks: {
    readonly konzeption: number;
    readonly entwicklung: number;
    readonly besprechung: number;
    readonly support: number;
    /** Not billable. */
    readonly verwaltung: number;
  };
}

export async function demoCatalogue(service: TestService): Promise<DemoCatalogue> {
  const { db } = service.database;
  const of = async (table: 'clients' | 'projects', name: string) =>
    (await db.selectFrom(table).select('id').where('account_id', '=', service.accountId).where('name', '=', name).executeTakeFirstOrThrow()).id;
  const task = async (description: string) =>
    (await db.selectFrom('tasks').select('id').where('account_id', '=', service.accountId).where('description', '=', description).executeTakeFirstOrThrow()).id;
  return {
    clients: { nordwind: await of('clients', 'Nordwind AG'), stadtwerke: await of('clients', 'Stadtwerke Musterstadt'), baeckerei: await of('clients', 'Bäckerei Sonnenschein') },
    projects: {
      websiteRelaunch: await of('projects', 'Website-Relaunch'),
      mobileApp: await of('projects', 'Mobile App'),
      kundenportal: await of('projects', 'Kundenportal'),
      energieDashboard: await of('projects', 'Energie-Dashboard'),
      kassensystem: await of('projects', 'Kassensystem'),
      interneOrganisation: await of('projects', 'Interne Organisation'),
    },
    tasks: {
      konzeption: await task('Konzeption'),
      entwicklung: await task('Entwicklung'),
      besprechung: await task('Besprechung'),
      support: await task('Support'),
      verwaltung: await task('Verwaltung'),
    },
  };
}

/** The tables an API request could change, every row of every account, in key order. */
const SNAPSHOT_TABLES = ['accounts', 'account_settings', 'users', 'clients', 'projects', 'tasks', 'time_entries', 'deleted_time_entries'] as const;

export type DataSnapshot = Readonly<Record<(typeof SNAPSHOT_TABLES)[number], readonly unknown[]>>;

export async function snapshot(service: TestService): Promise<DataSnapshot> {
  const { db } = service.database;
  const tables: Partial<Record<(typeof SNAPSHOT_TABLES)[number], unknown[]>> = {};
  for (const table of SNAPSHOT_TABLES) {
    tables[table] = await db.selectFrom(table).selectAll().orderBy('id').execute();
  }
  return tables as DataSnapshot;
}

/** Asserts that nothing stored differs from `before`. */
export async function expectUnchanged(service: TestService, before: DataSnapshot): Promise<void> {
  const after = await snapshot(service);
  for (const table of SNAPSHOT_TABLES) {
    expect(after[table], `rows of ${table}`).toEqual(before[table]);
  }
}

/**
 * Asserts an OData error document of `status` in the negotiated `format` (XML `m:error` as
 * application/xml, or the JSON `{"error":...}`), with a `code` element, a message, and nothing
 * of the server's inside (no stack trace, no source path, no SQL).
 */
export function expectError(reply: Reply, status: number, format: Format): ErrorBody {
  expectStatus(reply, status);
  expect(reply.contentType, `content type of ${reply.url}`).toBe(ERROR_CONTENT_TYPE[format]);
  if (format === 'json') {
    const document = JSON.parse(reply.text) as { error?: Record<string, unknown> };
    expect(Object.keys(document)).toEqual(['error']);
    expect(document.error).toHaveProperty('code');
  } else {
    expect(reply.text).toMatch(/<(?:\w+:)?code(?:\s*\/>|>)/);
  }
  const body = readError(reply);
  expect(body.message.length).toBeGreaterThan(0);
  expect(reply.text).not.toMatch(/\bat \S+ \(|\.ts:\d+|node_modules|\bselect\b.+\bfrom\b|SQLITE_|violates/i);
  return body;
}

/** Nominative nouns of service/timetracking/messages.ts, as a reader of the message sees them. */
export const NOUN = {
  Project: 'Das Projekt',
  Client: 'Der Kunde',
  Task: 'Die Tätigkeit',
  TimeEntry: 'Der Zeiteintrag',
} as const;

/**
 * service-api.md §7: a failed validation is a 409 whose German message names the resource type
 * and the reason (`reason` is matched against the message).
 */
export function expectValidationError(reply: Reply, format: Format, type: keyof typeof NOUN, reason: RegExp): ErrorBody {
  const body = expectError(reply, 409, format);
  expect(body.lang).toBe('de-DE');
  expect(body.message).toMatch(new RegExp(`^${NOUN[type]} kann nicht gespeichert werden: `));
  expect(body.message).toMatch(reason);
  return body;
}

/** POSTs `properties` in `format` and returns the created entity as read from the 201. */
export async function create(client: ODataClient, setName: string, properties: Readonly<Record<string, PayloadValue>>, format: Format = 'json'): Promise<EdmRecord> {
  const reply = await client.send('POST', `/${setName}`, payload(format, properties), { format });
  expectStatus(reply, 201);
  const record = readEntry(reply, setName);
  expect(record.ID).toBe(idOf(reply.headers.get('location')));
  return record;
}

/** The entity as the caller reads it now. */
export async function readBack(client: ODataClient, path: string, setName: string): Promise<EdmRecord> {
  const reply = await client.get(path, { format: 'json' });
  expectStatus(reply, 200);
  return readEntry(reply, setName);
}

export interface OtherAccount {
  readonly accountId: number;
  /** The other company's administrator. */
  readonly adminKey: string;
  readonly clientId: number;
  readonly projectId: number;
  readonly taskId: number;
  readonly timeEntryId: number;
}

/** A second company with a client, a project, a task and one booking, made through the API. */
export async function otherAccount(service: TestService, demoClient: ODataClient): Promise<OtherAccount> {
  const account = await createAccount(service.database.db, { name: 'Andere Firma KG', adminEmail: 'chefin@andere.example' });
  const client = demoClient.as(account.apiKey);
  const customer = await create(client, 'Clients', { Name: 'Fremdkunde', Active: true });
  const project = await create(client, 'Projects', { Name: 'Fremdprojekt', Active: true, ClientID: customer.ID as number });
  const task = await create(client, 'Tasks', { Description: 'Fremdtätigkeit' });
  const entry = await create(client, 'TimeEntries', {
    ProjectID: project.ID as number, TaskID: task.ID as number,
    StartTime: new Date(Date.UTC(2026, 10, 18, 9)), EndTime: new Date(Date.UTC(2026, 10, 18, 10)),
  });
  return {
    accountId: account.accountId,
    adminKey: account.apiKey,
    clientId: customer.ID as number,
    projectId: project.ID as number,
    taskId: task.ID as number,
    timeEntryId: entry.ID as number,
  };
}

/** A finished start/end booking of one hour on `day` (UTC date) from 09:00. */
export function booking(projectId: number, day: string, extra: Readonly<Record<string, PayloadValue>> = {}): Record<string, PayloadValue> {
  return {
    ProjectID: projectId,
    StartTime: new Date(`${day}T09:00:00Z`),
    EndTime: new Date(`${day}T10:00:00Z`),
    ...extra,
  };
}
