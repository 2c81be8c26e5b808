// Paging through a long entry list (the team's entries): pages of LIMIT entries, oldest first,
// reached by the reports module's keyset cursor (`after=<startTime>.<id>` for the next page,
// `before=...` for the previous one) rather than an offset, so a page costs the same however far
// in it lies, and entries added or removed meanwhile shift nothing: every entry is on exactly one
// page. The links keep the list's filter.
import { cursorText, listEntries, parseCursor } from '../reports/entry-query.js';
import type { EntryCursor, EntryRow } from '../reports/entry-query.js';
import type { EntryFilter, ReportAccount, ReportDatabase, ReportScope } from '../reports/report-scope.js';
import type { FilterForm } from './entry-filters.js';
import { filterQuery } from './entry-filters.js';
import { formText } from './form-values.js';
import { html } from './html.js';
import type { Html } from './html.js';
import { fill } from './i18n.js';
import type { PageContext } from './layout.js';

/** Most entries one page lists. */
export const LIMIT = 500;

/** Where a page starts: after an entry, before one, or at the beginning (neither). */
export interface ListPosition {
  readonly after?: EntryCursor;
  readonly before?: EntryCursor;
}

export interface ListPage {
  readonly rows: readonly EntryRow[];
  /** The page before starts before this entry; null on the first page. */
  readonly previous: EntryCursor | null;
  /** The page after starts after this entry; null on the last page. */
  readonly next: EntryCursor | null;
}

/** The request's position; undefined when `after` or `before` is not a cursor, or both are given. */
export function positionOf(query: unknown): ListPosition | undefined {
  const afterText = formText(query, 'after');
  const beforeText = formText(query, 'before');
  if (afterText !== '' && beforeText !== '') return undefined;
  if (afterText !== '') {
    const after = parseCursor(afterText);
    return after === undefined ? undefined : { after };
  }
  if (beforeText !== '') {
    const before = parseCursor(beforeText);
    return before === undefined ? undefined : { before };
  }
  return {};
}

const cursorOf = (row: EntryRow | undefined): EntryCursor | null => (row === undefined ? null : { startTime: row.startTime, id: row.id });

/** The page of entries at `position`, oldest first, with the cursors of its neighbours. */
export async function pageOfEntries(database: ReportDatabase, scope: ReportScope, filter: EntryFilter, account: ReportAccount,
  position: ListPosition, limit = LIMIT): Promise<ListPage> {
  if (position.before !== undefined) {
    // The entries just before the cursor are the newest ones older than it: read them newest first, then turn them round.
    const found = await listEntries(database, scope, filter, account, { limit, order: 'desc', after: position.before });
    const rows = [...found.rows].reverse();
    // An empty page still leads on: the page after it starts at the cursor's own entry (just after ID - 1).
    const next = cursorOf(rows.at(-1)) ?? { startTime: position.before.startTime, id: Math.max(0, position.before.id - 1) };
    return { rows, previous: found.next === null ? null : cursorOf(rows[0]), next };
  }
  const { after } = position;
  const found = await listEntries(database, scope, filter, account, { limit, ...(after === undefined ? {} : { after }) });
  // The page before ends with the cursor's own entry (just before ID + 1), also when this page is empty.
  const previous = after === undefined ? null : cursorOf(found.rows[0]) ?? { startTime: after.startTime, id: after.id + 1 };
  return { rows: found.rows, previous, next: found.next };
}

/** Links to the previous and next pages of the list at `/admin/entries` filtered by `form`; nothing when it fits one page. */
export function pageLinks(ctx: PageContext, form: FilterForm, page: ListPage): Html | '' {
  if (page.previous === null && page.next === null) return '';
  const { t } = ctx;
  const count = String(LIMIT);
  const link = (name: 'before' | 'after', cursor: EntryCursor, rel: string, text: string) =>
    html`<a class="button" rel="${rel}" href="/admin/entries?${filterQuery(form, { [name]: cursorText(cursor) })}">${text}</a>`;
  return html`<nav class="pages" aria-label="${t.pages}"><ul>
    ${page.previous === null ? '' : html`<li>${link('before', page.previous, 'prev', fill(t.previousPage, { count }))}</li>`}
    ${page.next === null ? '' : html`<li>${link('after', page.next, 'next', fill(t.nextPage, { count }))}</li>`}
  </ul></nav>`;
}
