// The team's entries for administrators: filtered by employee, client, project, task, date range
// and billable (the reports module's entry list: finished entries, the same ones its exports
// write), a page of 500 at a time with links to the next and previous pages, with the page's total
// and the CSV and XLSX downloads of all of them; and locking or unlocking every entry
// up to a date (locked entries cannot be changed by standard users, in the pages or the API).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { loadReportAccount, scopeOf } from '../../reports/report-scope.js';
import { durationString } from '../../timetracking/sets/time-entries.js';
import { addDays, instantOf, isDate, wallClock } from '../clock.js';
import { downloadLinks, exportFormatOf, sendExport } from '../downloads.js';
import { pageLinks, pageOfEntries, positionOf } from '../entry-paging.js';
import type { ListPage } from '../entry-paging.js';
import { filterFields, filterFormOf, filterOf, filterQuery, namesOnlyVisible, withDefaultRange } from '../entry-filters.js';
import { formText } from '../form-values.js';
import { html } from '../html.js';
import { fill } from '../i18n.js';
import { csrfField, field } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { sendPage } from '../plugin.js';
import { adminPage, administrator, notFound } from './admin.js';

import { LIMIT } from '../entry-paging.js';

export function registerEntryPages(admin: FastifyInstance, deps: WebDependencies): void {
  const { administration, reports } = deps;

  async function page(request: FastifyRequest, options: { notice?: string; lockError?: string } = {}): Promise<{ status: number; document: string }> {
    const ctx = request.page;
    const { t } = ctx;
    const { caller, timeZone } = administrator(request);
    const form = withDefaultRange(filterFormOf(request.query), wallClock(Date.now(), timeZone).date);
    const parsed = filterOf(form, ctx);
    if ('filter' in parsed && !(await namesOnlyVisible(administration, caller, parsed.filter))) {
      return { status: 404, document: adminPage(ctx, t.teamEntries, html``, { error: t.notFound }) };
    }
    const errors = 'errors' in parsed ? parsed.errors : {};
    const position = positionOf(request.query);
    const [account, fields] = await Promise.all([loadReportAccount(reports.db, caller.accountId), filterFields(ctx, administration, caller, form, errors)]);
    const found: ListPage = 'filter' in parsed && position !== undefined
      ? await pageOfEntries(reports, scopeOf(caller), parsed.filter, account, position) : { rows: [], previous: null, next: null };
    const labels = account.customLabels.timeEntry.flatMap((label, slot) => (label === null ? [] : [[slot, label] as const]));
    const total = found.rows.reduce((sum, row) => sum + row.seconds, 0);
    const time = (ms: number) => wallClock(ms, timeZone).time;
    // The total stands where the language puts it ("…, zusammen 05:00", "…, 05:00 in all").
    const [countBefore, countAfter = ''] = fill(t.entryCount, { count: String(found.rows.length) }).split('{total}');
    const document = adminPage(ctx, t.teamEntries, html`
      <form method="get" action="/admin/entries" class="card filters" aria-label="${t.filter}">
        ${fields}
        <button type="submit" class="primary">${t.filter}</button>
      </form>
      ${'filter' in parsed ? downloadLinks(ctx, '/admin/entries/export', filterQuery(form)) : ''}
      <p class="week-total" data-count="${found.rows.length}">${countBefore}<strong data-total="entries">${durationString(total)}</strong>${countAfter}</p>
      ${found.next === null && found.previous === null ? '' : html`<p class="notice">${fill(t.listCut, { count: String(LIMIT) })}</p>`}
      ${pageLinks(ctx, form, found)}
      <div class="scroll" role="region" aria-label="${t.entriesOfTeam}" tabindex="0"><table class="list entries-table">
        <caption class="visually-hidden">${t.entriesOfTeam}</caption>
        <thead><tr><th scope="col">${t.date}</th><th scope="col">${t.time}</th><th scope="col">${t.user}</th><th scope="col">${t.project}</th><th scope="col">${t.task}</th><th scope="col">${t.comment}</th>${labels.map(([, label]) => html`<th scope="col">${label}</th>`)}<th scope="col">${t.duration}</th><th scope="col">${t.billable}</th><th scope="col">${t.locked}</th></tr></thead>
        <tbody>${found.rows.map((row) => html`<tr data-entry="${row.id}">
          <td>${wallClock(row.startTime, timeZone).date}</td><td>${row.typeId === 1 ? '' : `${time(row.startTime)}–${time(row.endTime)}`}</td>
          <td>${row.userName}</td><td>${row.projectName}</td><td>${row.taskName ?? ''}</td><td>${row.comment ?? ''}</td>
          ${labels.map(([slot]) => html`<td>${row.custom.timeEntry[slot] ?? ''}</td>`)}
          <td class="duration">${durationString(row.seconds)}</td><td>${row.billable ? t.yes : t.no}</td><td>${row.locked ? t.locked : ''}</td>
        </tr>`)}</tbody>
      </table></div>
      <section class="card" aria-labelledby="lock">
        <h2 id="lock">${t.lockEntries}</h2>
        <form method="post" action="/admin/entries/lock">${csrfField(ctx)}
          ${field('f-until', t.lockUntil, html`<input id="f-until" name="until" type="date" required${options.lockError === undefined ? '' : html` aria-invalid="true" aria-describedby="f-until-error"`}>`, options.lockError)}
          <div class="actions"><button type="submit" name="action" value="lock" class="primary">${t.lock}</button><button type="submit" name="action" value="unlock">${t.unlock}</button></div>
        </form>
      </section>`, { notice: options.notice, error: position === undefined ? t.invalidPage : 'malformed' in parsed && parsed.malformed ? t.invalidFilter : undefined });
    return { status: position === undefined ? 400 : 'filter' in parsed ? 200 : parsed.malformed ? 400 : 422, document };
  }

  admin.get('/entries', async (request, reply) => {
    const query = request.query as { locked?: string; unlocked?: string };
    const { t } = request.page;
    const count = (text: string | undefined) => (typeof text === 'string' && /^\d{1,9}$/.test(text) ? text : undefined);
    const notice = count(query.locked) !== undefined ? fill(t.lockedCount, { count: query.locked as string })
      : count(query.unlocked) !== undefined ? fill(t.unlockedCount, { count: query.unlocked as string }) : undefined;
    const { status, document } = await page(request, { ...(notice === undefined ? {} : { notice }) });
    return sendPage(reply, status, document);
  });

  admin.get('/entries/export', async (request, reply) => {
    const file = exportFormatOf(request.query);
    const parsed = filterOf(filterFormOf(request.query), request.page);
    if (file === undefined || !('filter' in parsed)) {
      return sendPage(reply, 400, adminPage(request.page, request.page.t.teamEntries, html``, { error: request.page.t.invalidFilter }));
    }
    const { caller } = administrator(request);
    if (!(await namesOnlyVisible(administration, caller, parsed.filter))) return notFound(request, reply);
    return sendExport(request, reply, reports, caller, parsed.filter, file);
  });

  admin.post('/entries/lock', async (request, reply) => {
    const { caller, timeZone } = administrator(request);
    const until = formText(request.body, 'until').trim();
    const action = formText(request.body, 'action');
    if (!isDate(until) || (action !== 'lock' && action !== 'unlock')) {
      return sendPage(reply, 422, (await page(request, { lockError: request.page.t.invalidDate })).document);
    }
    const changed = await administration.lockEntries(caller, instantOf(addDays(until, 1), 0, timeZone), action === 'lock');
    return reply.redirect(`/admin/entries?${action === 'lock' ? 'locked' : 'unlocked'}=${changed}`, 303);
  });
}
