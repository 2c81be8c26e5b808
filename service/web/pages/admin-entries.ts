// The team's entries for administrators: filtered by employee, project, client, task, date range
// and billable, with their total; and locking or unlocking every entry up to a date (locked
// entries cannot be changed by standard users, in these pages or through the API).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { durationString } from '../../timetracking/sets/time-entries.js';
import type { EntryFilter } from '../administration.js';
import { addDays, instantOf, isDate, wallClock } from '../clock.js';
import { formText } from '../form-values.js';
import { flag, html } from '../html.js';
import type { Html } from '../html.js';
import { fill } from '../i18n.js';
import { csrfField, field } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { sendPage } from '../plugin.js';
import { duration, timeSpan } from './entry-view.js';
import { adminPage, administrator } from './admin.js';

/** Most entries one page lists. */
const LIMIT = 500;

export type FilterForm = Record<'user' | 'project' | 'client' | 'task' | 'from' | 'to' | 'billable', string>;

const ID = /^\d{1,9}$/;

/** The filter of the query's text (ids of digits, real dates; anything else is no filter), on the account's clock. */
export function filterOf(form: FilterForm, timeZone: string): EntryFilter {
  const id = (text: string) => (ID.test(text) ? Number(text) : undefined);
  return {
    ...(id(form.user) === undefined ? {} : { userId: id(form.user) }),
    ...(id(form.project) === undefined ? {} : { projectId: id(form.project) }),
    ...(id(form.client) === undefined ? {} : { clientId: id(form.client) }),
    ...(id(form.task) === undefined ? {} : { taskId: id(form.task) }),
    ...(isDate(form.from) ? { from: instantOf(form.from, 0, timeZone) } : {}),
    ...(isDate(form.to) ? { to: instantOf(addDays(form.to, 1), 0, timeZone) } : {}),
    ...(form.billable === '1' || form.billable === '0' ? { billable: form.billable === '1' } : {}),
  };
}

export function filterFormOf(query: unknown): FilterForm {
  const text = (name: string) => formText(query, name, 20).trim();
  return { user: text('user'), project: text('project'), client: text('client'), task: text('task'), from: text('from'), to: text('to'), billable: text('billable') };
}

export function registerEntryPages(admin: FastifyInstance, deps: WebDependencies): void {
  const { administration } = deps;

  async function page(request: FastifyRequest, options: { notice?: string; error?: string; lockError?: string } = {}): Promise<string> {
    const ctx = request.page;
    const { t } = ctx;
    const { caller, timeZone } = administrator(request);
    const form = filterFormOf(request.query);
    const [users, projects, clients, tasks, found, labels] = await Promise.all([
      administration.list(caller, 'Users'), administration.list(caller, 'Projects'), administration.list(caller, 'Clients'),
      administration.list(caller, 'Tasks'), administration.entries(caller, filterOf(form, timeZone), LIMIT), deps.bookings.customLabels(caller, 'TimeEntry'),
    ]);
    const names = (list: readonly Record<string, unknown>[], label: (r: Record<string, unknown>) => string) => new Map(list.map((r) => [r.ID as number, label(r)]));
    const userNames = names(users, (u) => `${u.FirstName as string} ${u.LastName as string}`);
    const projectNames = names(projects, (p) => p.Name as string);
    const taskNames = names(tasks, (task) => task.Description as string);
    const select = (name: keyof FilterForm, label: string, choices: ReadonlyMap<number, string>): Html =>
      field(`f-${name}`, label, html`<select id="f-${name}" name="${name}"><option value="">${t.all}</option>${[...choices].map(([id, text]) =>
        html`<option value="${id}"${flag('selected', String(id) === form[name])}>${text}</option>`)}</select>`, undefined);
    const total = found.records.reduce((sum, entry) => sum + (entry.DurationSeconds as number), 0);
    const badDate = (text: string) => (text !== '' && !isDate(text) ? t.invalidDate : undefined);
    return adminPage(ctx, t.teamEntries, html`
      <form method="get" action="/admin/entries" class="card filters" aria-label="${t.filter}">
        <div class="grid">
          ${select('user', t.user, userNames)}
          ${select('client', t.client, names(clients, (c) => c.Name as string))}
          ${select('project', t.project, projectNames)}
          ${select('task', t.task, taskNames)}
          ${field('f-from', t.from, html`<input id="f-from" name="from" type="date" value="${form.from}">`, badDate(form.from))}
          ${field('f-to', t.to, html`<input id="f-to" name="to" type="date" value="${form.to}">`, badDate(form.to))}
          ${field('f-billable', t.billable, html`<select id="f-billable" name="billable"><option value="">${t.all}</option>
            <option value="1"${flag('selected', form.billable === '1')}>${t.yes}</option><option value="0"${flag('selected', form.billable === '0')}>${t.no}</option></select>`, undefined)}
        </div>
        <button type="submit" class="primary">${t.filter}</button>
      </form>
      <p class="week-total" data-count="${found.records.length}">${fill(t.entryCount, { count: String(found.records.length), total: '' })}<strong data-total="entries">${durationString(total)}</strong></p>
      ${found.isCut ? html`<p class="notice">${fill(t.listCut, { count: String(LIMIT) })}</p>` : ''}
      <div class="scroll" role="region" aria-label="${t.entriesOfTeam}" tabindex="0"><table class="list entries-table">
        <caption class="visually-hidden">${t.entriesOfTeam}</caption>
        <thead><tr><th scope="col">${t.date}</th><th scope="col">${t.time}</th><th scope="col">${t.user}</th><th scope="col">${t.project}</th><th scope="col">${t.task}</th><th scope="col">${t.comment}</th>${labels.map(([, label]) => html`<th scope="col">${label}</th>`)}<th scope="col">${t.duration}</th><th scope="col">${t.billable}</th><th scope="col">${t.locked}</th></tr></thead>
        <tbody>${found.records.map((entry) => html`<tr data-entry="${String(entry.ID)}">
          <td>${wallClock((entry.StartTime as Date).getTime(), timeZone).date}</td><td>${timeSpan(entry, timeZone)}</td>
          <td>${userNames.get(entry.UserID as number) ?? ''}</td><td>${projectNames.get(entry.ProjectID as number) ?? ''}</td>
          <td>${entry.TaskID === null ? '' : taskNames.get(entry.TaskID as number) ?? ''}</td><td>${(entry.Comment as string | null) ?? ''}</td>
          ${labels.map(([name]) => html`<td>${(entry[name] as string | null) ?? ''}</td>`)}
          <td class="duration">${duration(entry)}</td><td>${entry.Billable === true ? t.yes : t.no}</td><td>${entry.Locked === true ? t.locked : ''}</td>
        </tr>`)}</tbody>
      </table></div>
      <section class="card" aria-labelledby="lock">
        <h2 id="lock">${t.lockEntries}</h2>
        <form method="post" action="/admin/entries/lock">${csrfField(ctx)}
          ${field('f-until', t.lockUntil, html`<input id="f-until" name="until" type="date" required${options.lockError === undefined ? '' : html` aria-invalid="true" aria-describedby="f-until-error"`}>`, options.lockError)}
          <div class="actions"><button type="submit" name="action" value="lock" class="primary">${t.lock}</button><button type="submit" name="action" value="unlock">${t.unlock}</button></div>
        </form>
      </section>`, { notice: options.notice, error: options.error });
  }

  admin.get('/entries', async (request, reply) => {
    const query = request.query as { locked?: string; unlocked?: string };
    const { t } = request.page;
    const count = (text: string | undefined) => (typeof text === 'string' && /^\d{1,9}$/.test(text) ? text : undefined);
    const notice = count(query.locked) !== undefined ? fill(t.lockedCount, { count: query.locked as string })
      : count(query.unlocked) !== undefined ? fill(t.unlockedCount, { count: query.unlocked as string }) : undefined;
    return sendPage(reply, 200, await page(request, { notice }));
  });

  admin.post('/entries/lock', async (request, reply) => {
    const { caller, timeZone } = administrator(request);
    const until = formText(request.body, 'until').trim();
    const action = formText(request.body, 'action');
    if (!isDate(until) || (action !== 'lock' && action !== 'unlock')) {
      return sendPage(reply, 422, await page(request, { lockError: request.page.t.invalidDate }));
    }
    const changed = await administration.lockEntries(caller, instantOf(addDays(until, 1), 0, timeZone), action === 'lock');
    return reply.redirect(`/admin/entries?${action === 'lock' ? 'locked' : 'unlocked'}=${changed}`, 303);
  });
}
