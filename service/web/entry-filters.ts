// The filter of an entry list or report as the pages take it: query text (from, to, user,
// project, client, task, billable) read by the reports module's own checks (report-scope.ts),
// the form's fields to choose it, and the same filter as a query string for the download links.
import type { EdmRecord } from '../../odata/edm.js';
import { ReportError, checkDay, parseEntryFilter } from '../reports/report-scope.js';
import type { EntryFilter } from '../reports/report-scope.js';
import type { Caller } from '../timetracking/caller.js';
import type { Administration } from './administration.js';
import { formText } from './form-values.js';
import { flag, html } from './html.js';
import type { Html } from './html.js';
import { field } from './layout.js';
import type { PageContext } from './layout.js';

export const FILTER_FIELDS = ['from', 'to', 'user', 'project', 'client', 'task', 'billable'] as const;
export type FilterForm = Record<(typeof FILTER_FIELDS)[number], string>;

export function filterFormOf(query: unknown): FilterForm {
  return Object.fromEntries(FILTER_FIELDS.map((name) => [name, formText(query, name, 40).trim()])) as FilterForm;
}

/** The form's filter, or the errors beside its fields; anything else malformed (ids, billable) is `malformed`. */
export function filterOf(form: FilterForm, ctx: PageContext): { filter: EntryFilter } | { errors: Record<string, string>; malformed: boolean } {
  const errors: Record<string, string> = {};
  for (const day of ['from', 'to'] as const) {
    if (form[day] === '') continue;
    try {
      checkDay(day, form[day]);
    } catch {
      errors[day] = ctx.t.invalidDate;
    }
  }
  if (Object.keys(errors).length > 0) return { errors, malformed: false };
  try {
    return {
      filter: parseEntryFilter({
        from: form.from, to: form.to, userId: form.user, projectId: form.project, clientId: form.client, taskId: form.task,
        billable: form.billable === '1' ? 'true' : form.billable === '0' ? 'false' : form.billable,
      }),
    };
  } catch (error) {
    if (!(error instanceof ReportError)) throw error;
    if (form.from !== '' && form.to !== '' && form.from > form.to) return { errors: { to: ctx.t.toBeforeFrom }, malformed: false };
    return { errors: {}, malformed: true };
  }
}

const NAMED = [['userId', 'Users'], ['clientId', 'Clients'], ['projectId', 'Projects'], ['taskId', 'Tasks']] as const;

/**
 * Whether every employee, client, project and task the filter names is one the caller reads (a
 * standard user reads no colleague). Another account's id is asked for as one that is not there:
 * the lists, reports and downloads answer 404, as every page with an id does, not an empty list.
 */
export async function namesOnlyVisible(administration: Administration, caller: Caller, filter: EntryFilter): Promise<boolean> {
  const seen = await Promise.all(NAMED.map(async ([field, set]) => {
    const id = filter[field];
    if (id === undefined || (field === 'userId' && id === caller.userId)) return true;
    if (field === 'userId' && !caller.isAdmin) return false;
    return (await administration.one(caller, set, String(id))) !== undefined;
  }));
  return seen.every(Boolean);
}

/** The filter as a query string (for links to the same list, exports). */
export function filterQuery(form: FilterForm, extra: Readonly<Record<string, string>> = {}): string {
  const params = new URLSearchParams();
  for (const name of FILTER_FIELDS) if (form[name] !== '') params.set(name, form[name]);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  return params.toString();
}

/**
 * A form without any filter starts on the current month and the two before it, up to today (on
 * the account's clock): recent entries first seen, whatever the account's history holds.
 */
export function withDefaultRange(form: FilterForm, today: string): FilterForm {
  if (FILTER_FIELDS.some((name) => form[name] !== '')) return form;
  const [y, m] = today.split('-').map(Number) as [number, number];
  return { ...form, from: new Date(Date.UTC(y, m - 3, 1)).toISOString().slice(0, 10), to: today };
}

/** The filter's fields; the employee choice for administrators only. */
export async function filterFields(ctx: PageContext, administration: Administration, caller: Caller, form: FilterForm, errors: Record<string, string>): Promise<Html> {
  const { t } = ctx;
  const [users, projects, clients, tasks] = await Promise.all([
    caller.isAdmin ? administration.list(caller, 'Users') : Promise.resolve([]), administration.list(caller, 'Projects'),
    administration.list(caller, 'Clients'), administration.list(caller, 'Tasks'),
  ]);
  const select = (name: keyof FilterForm, label: string, records: readonly EdmRecord[], text: (r: EdmRecord) => string) =>
    field(`f-${name}`, label, html`<select id="f-${name}" name="${name}"><option value="">${t.all}</option>${records.map((r) =>
      html`<option value="${String(r.ID)}"${flag('selected', String(r.ID) === form[name])}>${text(r)}</option>`)}</select>`, undefined);
  const day = (name: 'from' | 'to', label: string) => field(`f-${name}`, label, html`<input id="f-${name}" name="${name}" type="date" value="${form[name]}"${errors[name] === undefined ? '' : html` aria-invalid="true" aria-describedby="f-${name}-error"`}>`, errors[name]);
  return html`<div class="grid">
    ${caller.isAdmin ? select('user', t.user, users, (u) => `${u.FirstName as string} ${u.LastName as string}`) : ''}
    ${select('client', t.client, clients, (c) => c.Name as string)}
    ${select('project', t.project, projects, (p) => p.Name as string)}
    ${select('task', t.task, tasks, (task) => task.Description as string)}
    ${day('from', t.from)}
    ${day('to', t.to)}
    ${field('f-billable', t.billable, html`<select id="f-billable" name="billable"><option value="">${t.all}</option>
      <option value="1"${flag('selected', form.billable === '1')}>${t.yes}</option><option value="0"${flag('selected', form.billable === '0')}>${t.no}</option></select>`, undefined)}
  </div>`;
}
