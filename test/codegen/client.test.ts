import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { emitClient } from '../../codegen/emit-client.js';
import { emitTypes } from '../../codegen/emit-types.js';
import { lintMessages, tempFolders, typeErrors } from '../helpers/emitted-code.js';

const freshDir = tempFolders();

async function emitInto(edmx: string, extra: Record<string, string>): Promise<string> {
  const dir = freshDir('client-');
  const model = readEdmx(readFileSync(edmx, 'utf8'));
  for (const file of [...(await emitTypes(model)), ...(await emitClient(model))]) {
    writeFileSync(path.join(dir, file.path), file.contents);
  }
  for (const [name, text] of Object.entries(extra)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const timeTrackingUsage = `
import { BatchItemError, ProblemError, createClient, etagOf } from './client.js';
import type * as T from './types.js';

/** true only when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends <V>() => V extends B ? 1 : 2 ? true : false;

const client = createClient({ baseUrl: 'https://example.com/api/v1', apiKey: 'key', auth: 'bearer' });

export async function use(): Promise<number> {
  const page: T.ProjectList = await client.projects.list({ clientId: 7, active: true, limit: 10 });
  // @ts-expect-error clientId is an integer
  await client.projects.list({ clientId: '7' });
  const project: T.Project = await client.projects.get(7, { expand: 'client' });
  // A plain read answers the whole entity: name is a string, never undefined.
  const nameIsString: Equal<typeof project.name, string> = true;
  const selectedName = (await client.projects.get(7, { select: 'name' })).name;
  const selectedNameIsOptional: Equal<typeof selectedName, string | undefined> = true;
  const firstName = (await client.projects.list()).items[0]?.name;
  const listNameIsString: Equal<typeof firstName, string | undefined> = true;
  const maybeSelect: string | undefined = Math.random() > 0.5 ? 'name' : undefined;
  // A select that may be absent answers either shape.
  const either: T.Project | T.ProjectSelection = await client.projects.get(7, { select: maybeSelect });
  // @ts-expect-error a select that may be given can leave properties out
  const notEither: T.Project = await client.projects.get(7, { select: maybeSelect });
  const bulk: T.TimeEntry[] = await client.timeEntries.createAll([{ projectId: 7, startTime: '2026-11-22T09:00:00+01:00' }]);
  // @ts-expect-error users are read-only: no bulk create either
  await client.users.createAll([]);
  const partial: T.ProjectSelection = await client.projects.get(7, { select: 'name,client/name', expand: 'client' });
  const partialName: string | undefined = partial.client?.name;
  // @ts-expect-error a select leaves properties out: the answer is a ProjectSelection
  const notFull: T.Project = await client.projects.get(7, { select: 'name' });
  const partialPage: T.ProjectSelectionList = await client.projects.list({ select: 'id', limit: 10 });
  // @ts-expect-error a selected page holds ProjectSelections
  const notFullPage: T.ProjectList = await client.projects.list({ select: 'id' });
  const partialOwner: T.ClientSelection = await client.projects.client(7, { select: 'name' });
  const partialEntries: T.TimeEntrySelectionList = await client.projects.timeEntries(7, { select: 'id' });
  const cached: T.Project | null = await client.projects.get(7, { ifNoneMatch: '"abc"' });
  // @ts-expect-error a conditional read resolves to null when nothing changed
  const notNull: T.Project = await client.projects.get(7, { ifNoneMatch: '"abc"' });
  const created: T.Project = await client.projects.create({ name: 'Website' });
  // @ts-expect-error name is required on create
  await client.projects.create({ comment: 'x' });
  await client.projects.update(7, { comment: null }, { ifMatch: etagOf(project) });
  await client.projects.delete(created.id, { ifMatch: '"abc"' });
  // @ts-expect-error users are read-only: no create
  await client.users.create({});
  // @ts-expect-error account settings cannot be deleted
  await client.accountSettings.delete(1);
  const entries: T.TimeEntryList = await client.projects.timeEntries(7, { billable: true, orderBy: 'startTime desc' });
  const owner: T.Client = await client.projects.client(7);
  const running: T.TimeEntry = await client.startStopWatch({ projectId: 7, comment: 'standup' });
  // @ts-expect-error projectId is required to start the stopwatch
  await client.startStopWatch({});
  const halted: T.TimeEntry = await client.haltStopWatch();
  const current: T.TimeEntry = await client.currentStopWatch();
  const digest: T.ChangeSet = await client.getChangesDigest({ lastSynchronizationTime: '2026-11-22T09:00:00Z' });
  let count = 0;
  for await (const each of client.timeEntries.pages({ userId: 3, limit: 1000 })) count += each.items.length;
  try {
    await client.users.get(1);
  } catch (error) {
    if (error instanceof ProblemError) count += error.status + error.problem.status;
    if (error instanceof BatchItemError) count += error.index;
  }
  count += Number(nameIsString && selectedNameIsOptional && listNameIsString) + (either.id ?? 0) + notEither.id + bulk.length;
  count += (partialName ?? '').length + (notFull.id ?? 0) + partialPage.items.length + notFullPage.items.length + (partialOwner.id ?? 0) + partialEntries.items.length;
  return page.items.length + (cached?.id ?? 0) + notNull.id + entries.items.length + owner.id + running.id + halted.id + current.id + digest.totalClients + count;
}
`;

describe('client.ts', () => {
  it('type-checks and lints clean for the time-tracking model, typed the way a caller relies on', async () => {
    const dir = await emitInto('spec/timetracking.edmx', { 'usage.ts': timeTrackingUsage });
    const files = ['types.ts', 'client.ts', 'usage.ts'].map((f) => path.join(dir, f));
    expect(typeErrors(files)).toEqual([]);
    expect(await lintMessages([path.join(dir, 'client.ts')])).toEqual([]);
  }, 60_000);

  it('is headed as generated, imports nothing at runtime and is byte-identical when emitted again', async () => {
    const model = readEdmx(readFileSync('spec/timetracking.edmx', 'utf8'));
    const [first] = await emitClient(model);
    // another model in between must not leak into the next output
    const [northwind] = await emitClient(readEdmx(readFileSync('test/fixtures/northwind/northwind.edmx', 'utf8')));
    expect(northwind?.contents).toContain("export type OrderDetailsKey = Pick<T.OrderDetail, 'orderId' | 'productId'>;");
    const [second] = await emitClient(readEdmx(readFileSync('spec/timetracking.edmx', 'utf8')));
    expect(first?.path).toBe('client.ts');
    expect(second?.contents).toBe(first?.contents);
    const text = first?.contents ?? '';
    expect(text.split('\n')[0]).toBe('// generated by timegate codegen, do not edit');
    const imports = text.split('\n').filter((line) => /^import\b/.test(line));
    expect(imports).toEqual(["import type * as T from './types.js';"]);
  });
});
