// The team's entries (/admin/entries) a page of 500 at a time over real HTTP: an administrator
// follows "Next" from the first page to the last and "Previous" back, and sees each of 1,200
// entries of a month exactly once (entries sharing a start time included), the filter kept in
// every link; a cursor that is not one is refused with a page (400), never a 500; a standard
// user gets 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { DEMO_NOW, startTestService } from '../helpers/service.js';
import type { WebClient } from '../helpers/web-client.js';
import { signedInClient } from '../helpers/web-client.js';

const ENTRIES = 1_200;
const MARCH = Date.UTC(2025, 2, 1);
const FILTER = 'from=2025-03-01&to=2025-03-31';

/** The entry IDs a page lists, in order, and its previous and next links (with `&amp;` undone). */
function listed(page: string): { ids: number[]; previous?: string; next?: string } {
  const link = (rel: string) => new RegExp(`<a class="button" rel="${rel}" href="([^"]+)"`).exec(page)?.[1]?.replaceAll('&amp;', '&');
  const previous = link('prev');
  const next = link('next');
  return {
    ids: [...page.matchAll(/<tr data-entry="(\d+)">/g)].map((m) => Number(m[1])),
    ...(previous === undefined ? {} : { previous }),
    ...(next === undefined ? {} : { next }),
  };
}

describe.each(testDatabases)('paging through the team\'s entries on $name', (kind) => {
  let t: TestService;
  let alex: WebClient;
  let jana: WebClient;
  let seeded: number[];

  beforeAll(async () => {
    t = await startTestService(kind);
    alex = await signedInClient(t.origin, t.database, t.admin.userId, t.admin.email);
    jana = await signedInClient(t.origin, t.database, t.jana.userId, t.jana.email);
    const project = await t.database.db.selectFrom('projects').select('id').where('account_id', '=', t.accountId).orderBy('id').executeTakeFirstOrThrow();
    const users = [t.admin.userId, t.jana.userId, t.tom.userId];
    // Every fifth entry starts with the one before it (entries 499 and 500 too, across the first page's end): the order and the cursor fall back to the ID.
    const rows = Array.from({ length: ENTRIES }, (_, i) => {
      const start = MARCH + (i - (i > 0 && i % 5 === 0 ? 1 : 0)) * 30 * 60_000;
      return {
        account_id: t.accountId, type_id: 2, user_id: users[i % 3] as number, project_id: project.id, task_id: null,
        start_time: start, end_time: start + 20 * 60_000, billable: 1 as const, locked: 0 as const, comment: `Eintrag ${i}`,
        last_change_time: DEMO_NOW, last_change_author: t.admin.userId,
      };
    });
    for (let i = 0; i < rows.length; i += 300) await t.database.db.insertInto('time_entries').values(rows.slice(i, i + 300)).execute();
    seeded = (await t.database.db.selectFrom('time_entries').select('id').where('account_id', '=', t.accountId)
      .where('start_time', '>=', MARCH).where('start_time', '<', Date.UTC(2025, 3, 1)).execute()).map((row) => row.id).sort((a, b) => a - b);
  }, 60_000);
  afterAll(() => t?.close());

  it('visits each of 1,200 entries once, forward by "Next" and back by "Previous", the filter kept', async () => {
    expect(seeded.length).toBe(ENTRIES);
    const forward: number[][] = [];
    let path: string | undefined = `/admin/entries?${FILTER}`;
    let first = true;
    let lastPrevious: string | undefined;
    while (path !== undefined) {
      const page = await alex.get(path);
      expect(page.status, path).toBe(200);
      const { ids, previous, next } = listed(page.text);
      expect(previous === undefined, path).toBe(first);
      expect(page.text).toContain('Eine Seite zeigt 500 Einträge');
      for (const link of [previous, next]) if (link !== undefined) expect(link).toMatch(/^\/admin\/entries\?from=2025-03-01&to=2025-03-31&(after|before)=\d+\.\d+$/);
      forward.push(ids);
      lastPrevious = previous;
      path = next;
      first = false;
    }
    expect(forward.map((ids) => ids.length)).toEqual([500, 500, 200]);
    const all = forward.flat();
    expect(new Set(all).size).toBe(ENTRIES);
    expect([...all].sort((a, b) => a - b)).toEqual(seeded);

    // Back from the last page: the same pages in reverse.
    const backward: number[][] = [];
    let back = lastPrevious;
    while (back !== undefined) {
      const { ids, previous } = listed((await alex.get(back)).text);
      backward.unshift(ids);
      back = previous;
    }
    expect(backward).toEqual(forward.slice(0, -1));
  });

  it('keeps a narrower filter in the links: one employee\'s 400 entries on one page, no links', async () => {
    const page = await alex.get(`/admin/entries?${FILTER}&user=${t.jana.userId}`);
    const { ids, previous, next } = listed(page.text);
    expect(ids.length).toBe(ENTRIES / 3);
    expect([previous, next]).toEqual([undefined, undefined]);
    expect(page.text).not.toContain('Eine Seite zeigt');
    const paged = await alex.get(`/admin/entries?${FILTER}&user=${t.tom.userId}&after=${MARCH}.0`);
    expect(listed(paged.text).ids.length).toBe(ENTRIES / 3);
  });

  it('refuses a cursor that is not one with a page (400), and a standard user with 404', async () => {
    for (const query of ['after=abc', 'before=1.2.3', `after=${MARCH}.1&before=${MARCH}.2`, 'after=99999999999999999.1', 'after=', 'before=-']) {
      const page = await alex.get(`/admin/entries?${FILTER}&${query}`);
      if (query === 'after=') {
        expect(page.status, query).toBe(200);
        continue;
      }
      expect(page.status, query).toBe(400);
      expect(page.text, query).toContain('Diese Seite gibt es nicht.');
    }
    const far = await alex.get(`/admin/entries?${FILTER}&after=${Date.UTC(2030, 0, 1)}.1`);
    expect(far.status).toBe(200);
    expect(listed(far.text).ids).toEqual([]);
    // Past the end, "Previous" still leads to the last 500.
    const last = await alex.get(listed(far.text).previous as string);
    expect(listed(last.text).ids).toEqual(seeded.slice(-500));
    expect((await jana.get(`/admin/entries?${FILTER}&after=${MARCH}.1`)).status).toBe(404);
  });
});

