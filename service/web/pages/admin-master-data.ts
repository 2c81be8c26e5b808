// Clients, projects and tasks for administrators: lists with archived ones marked, create, edit,
// archive (Active = false) and reactivate. The forms only turn fields into values of the model's
// properties; every rule (required, MaxLength, a client or user or task of the account,
// no negative budget or rate) and its message is the API's (PayloadRules and sets/), shown in the
// page's language.
// Custom fields show with the account's labels, and only those that have one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EdmRecord } from '../../../odata/edm.js';
import { textIn } from '../../odata-server/error-texts.js';
import type { MasterSet } from '../administration.js';
import { formText, formTexts, recordFromForm } from '../form-values.js';
import type { FieldErrors } from '../form-values.js';
import { flag, html } from '../html.js';
import type { Html } from '../html.js';
import type { Texts } from '../i18n.js';
import { csrfField, described, field } from '../layout.js';
import type { PageContext } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { sendPage } from '../plugin.js';
import { isStale, postedVersion, versionField } from '../row-versions.js';
import { adminPage, administrator, deletedMeanwhile, notFound, refusalOf } from './admin.js';

interface SetPage {
  readonly set: MasterSet;
  readonly path: string;
  readonly nameProperty: 'Name' | 'Description';
  /** The prefix of the account settings' custom field labels (`ProjectCustom1Label`). */
  readonly labelPrefix: string;
  readonly list: keyof Texts;
  readonly create: keyof Texts;
  readonly edit: keyof Texts;
  /** Properties read from the form as they are (beside the name, custom fields and the specials). */
  readonly plain: readonly string[];
}

const PAGES: readonly SetPage[] = [
  { set: 'Clients', path: 'clients', nameProperty: 'Name', labelPrefix: 'Client', list: 'clients', create: 'newClient', edit: 'editClient', plain: ['Comment'] },
  { set: 'Projects', path: 'projects', nameProperty: 'Name', labelPrefix: 'Project', list: 'projects', create: 'newProject', edit: 'editProject', plain: ['ClientID', 'HourlyRate', 'Comment'] },
  { set: 'Tasks', path: 'tasks', nameProperty: 'Description', labelPrefix: 'Task', list: 'tasks', create: 'newTask', edit: 'editTask', plain: ['Billable', 'Comment'] },
];

const CUSTOM = ['Custom1', 'Custom2', 'Custom3', 'Custom4', 'Custom5'] as const;

/** The form's fields as text (what was typed, or the entity's values). */
type FormState = Record<string, string | readonly string[]>;

function stateOf(record: EdmRecord): FormState {
  const state: FormState = {};
  for (const [name, value] of Object.entries(record)) {
    if (value === null || value === undefined) state[name] = '';
    else if (typeof value === 'boolean') state[name] = value ? '1' : '';
    else state[name] = String(value);
  }
  if (typeof record.TimeBudget === 'number') state.TimeBudgetHours = String(Math.round((record.TimeBudget / 3600) * 100) / 100);
  for (const list of ['AssignedUsers', 'AssignedTasks']) state[list] = typeof record[list] === 'string' ? (record[list] as string).split(',') : [];
  return state;
}

function stateFrom(body: unknown): FormState {
  const state: FormState = {};
  for (const name of ['Name', 'Description', 'Comment', 'ClientID', 'HourlyRate', 'TimeBudgetHours', 'Billable', 'Active', ...CUSTOM]) state[name] = formText(body, name, 5000);
  for (const list of ['AssignedUsers', 'AssignedTasks']) state[list] = formTexts(body, list);
  return state;
}

export function registerMasterDataPages(admin: FastifyInstance, deps: WebDependencies): void {
  const { administration } = deps;

  /**
   * The entity's values from the form, or the fields' errors. Only the custom fields the account
   * labels are in the form; the others keep what is stored (an API client may use them).
   */
  async function valuesOf(request: FastifyRequest, page: SetPage, isCreate: boolean): Promise<{ values: EdmRecord; errors: FieldErrors }> {
    const body = request.body;
    const type = administration.typeOf(page.set);
    const labelled = (await deps.bookings.customLabels(administrator(request).caller, page.labelPrefix)).map(([name]) => name);
    const names = [page.nameProperty, ...page.plain, ...labelled, ...(isCreate ? ['Active'] : [])];
    const { values, errors } = recordFromForm(type, names, body, administration.messages, request.page.lang);
    if (page.set === 'Projects') {
      const hours = formText(body, 'TimeBudgetHours').trim().replace(',', '.');
      const budget = type.properties.find((p) => p.name === 'TimeBudget');
      if (hours === '') values.TimeBudget = null;
      else if (/^\d{1,6}(?:\.\d{1,4})?$/.test(hours)) values.TimeBudget = Math.round(Number(hours) * 3600);
      else if (budget !== undefined) errors.TimeBudget = textIn(administration.messages.invalidValue(type, budget), request.page.lang);
      // None chosen is null: everybody, all tasks (data-model.md).
      for (const list of ['AssignedUsers', 'AssignedTasks']) {
        const ids = formTexts(body, list);
        values[list] = ids.length === 0 ? null : ids.join(',');
      }
    }
    return { values, errors };
  }

  /** The create or edit form; `version` (an edit's) is the row version the form's values were made from. */
  async function form(request: FastifyRequest, page: SetPage, action: string, state: FormState, errors: FieldErrors, version?: EdmRecord): Promise<Html> {
    const ctx: PageContext = request.page;
    const { t } = ctx;
    const caller = administrator(request).caller;
    const settings = await administration.settings(caller);
    // The budget is typed in hours; the rules speak of TimeBudget (seconds).
    const e = (name: string) => errors[name] ?? (name === 'TimeBudgetHours' ? errors.TimeBudget : undefined);
    const text = (name: string) => (typeof state[name] === 'string' ? state[name] as string : '');
    const input = (name: string, label: string, attributes: Html = html``) =>
      field(`f-${name}`, label, html`<input id="f-${name}" name="${name}" value="${text(name)}"${attributes}${described(`f-${name}`, e(name))}>`, e(name));
    const checks = (name: string, label: string, hint: string, choices: ReadonlyArray<{ id: number; name: string }>) => {
      const chosen = state[name] as readonly string[];
      return html`<fieldset class="choices"${described(`f-${name}`, e(name), true)}><legend>${label}</legend>
        <p class="hint" id="f-${name}-hint">${hint}</p>
        ${choices.map((c) => html`<label><input type="checkbox" name="${name}" value="${c.id}"${flag('checked', chosen.includes(String(c.id)))}> ${c.name}</label>`)}
        ${e(name) === undefined ? '' : html`<p class="field-error" id="f-${name}-error">${e(name)}</p>`}
      </fieldset>`;
    };
    let specific: Html = html``;
    if (page.set === 'Projects') {
      const [clients, users, tasks] = await Promise.all([
        administration.list(caller, 'Clients'), administration.list(caller, 'Users'), administration.list(caller, 'Tasks'),
      ]);
      specific = html`
        ${field('f-ClientID', t.client, html`<select id="f-ClientID" name="ClientID"${described('f-ClientID', e('ClientID'))}><option value="">${t.noClient}</option>${clients.map((c) =>
          html`<option value="${String(c.ID)}"${flag('selected', String(c.ID) === text('ClientID'))}>${c.Name as string}${c.Active === true ? '' : ` (${t.archived})`}</option>`)}</select>`, e('ClientID'))}
        ${input('TimeBudgetHours', t.timeBudget, html` inputmode="decimal"`)}
        ${settings.HourlyRatesEnabled === true ? input('HourlyRate', `${t.hourlyRate} (${settings.Currency as string})`, html` inputmode="decimal"`) : ''}
        ${checks('AssignedUsers', t.assignedUsers, t.assignedUsersHint, users.filter((u) => u.Active === true || (state.AssignedUsers as string[]).includes(String(u.ID)))
          .map((u) => ({ id: u.ID as number, name: `${u.FirstName as string} ${u.LastName as string}` })))}
        ${checks('AssignedTasks', t.assignedTasks, t.assignedTasksHint, tasks.map((task) => ({ id: task.ID as number, name: task.Description as string })))}`;
    } else if (page.set === 'Tasks') {
      specific = html`<div class="field check"><input id="f-Billable" name="Billable" type="checkbox" value="1"${flag('checked', text('Billable') === '1')}><label for="f-Billable">${t.billableByDefault}</label></div>`;
    }
    const labelled = await deps.bookings.customLabels(caller, page.labelPrefix);
    const isCreate = action.endsWith('/new');
    return html`
      <form method="post" action="${action}" class="card" novalidate>
        ${csrfField(ctx)}${version === undefined ? '' : versionField(administration.typeOf(page.set), version)}
        ${errors.form === undefined ? '' : html`<p class="error" role="alert">${errors.form}</p>`}
        ${input(page.nameProperty, page.nameProperty === 'Name' ? t.name : t.description, html` required`)}
        ${specific}
        ${field('f-Comment', t.comment, html`<textarea id="f-Comment" name="Comment" rows="2"${described('f-Comment', e('Comment'))}>${text('Comment')}</textarea>`, e('Comment'))}
        ${labelled.map(([name, label]) => input(name, label))}
        ${isCreate ? html`<div class="field check"><input id="f-Active" name="Active" type="checkbox" value="1"${flag('checked', text('Active') === '1')}><label for="f-Active">${t.active}</label></div>` : ''}
        <button type="submit" class="primary">${t.save}</button>
      </form>`;
  }

  for (const page of PAGES) {
    const base = `/${page.path}`;
    const type = administration.typeOf(page.set);
    const ofId = async (request: FastifyRequest) => administration.one(administrator(request).caller, page.set, (request.params as { id: string }).id);

    /**
     * The answer to a form the data source refused as stale: the record as it is now, with
     * `message` and its current version (409), or that it is gone (404). Nothing was written.
     */
    const staleForm = async (request: FastifyRequest, reply: FastifyReply, id: number, message: string) => {
      const current = await administration.one(administrator(request).caller, page.set, String(id));
      if (current === undefined) return deletedMeanwhile(request, reply);
      return sendPage(reply, 409, await editPage(request, page, current, stateOf(current), { form: message }));
    };

    /** The posted form's version, or the 400 page sent (with the record's current values) when it has none. */
    const postedRecordVersion = async (request: FastifyRequest, reply: FastifyReply, record: EdmRecord) => {
      const version = postedVersion(type, request.body);
      if (version === undefined) void sendPage(reply, 400, await editPage(request, page, record, stateOf(record), { form: request.page.t.versionMissing }));
      return version;
    };

    admin.get(base, async (request, reply) => {
      const ctx = request.page;
      const { t } = ctx;
      const caller = administrator(request).caller;
      const [records, clients] = await Promise.all([administration.list(caller, page.set), page.set === 'Projects' ? administration.list(caller, 'Clients') : []]);
      const clientNames = new Map(clients.map((c) => [c.ID as number, c.Name as string]));
      const done = (request.query as { done?: string }).done;
      return sendPage(reply, 200, adminPage(ctx, t[page.list], html`
        <p><a class="button" href="/admin${base}/new">${t[page.create]}</a></p>
        <div class="scroll" role="region" aria-label="${t[page.list]}" tabindex="0"><table class="list">
          <thead><tr><th scope="col">${page.nameProperty === 'Name' ? t.name : t.description}</th>${page.set === 'Projects' ? html`<th scope="col">${t.client}</th>` : ''}<th scope="col">${t.status}</th><th scope="col"><span class="visually-hidden">${t.actions}</span></th></tr></thead>
          <tbody>${records.map((r) => html`<tr data-id="${String(r.ID)}">
            <td><a href="/admin${base}/${String(r.ID)}">${r[page.nameProperty] as string}</a></td>
            ${page.set === 'Projects' ? html`<td>${clientNames.get(r.ClientID as number) ?? ''}</td>` : ''}
            <td>${r.Active === true ? t.active : t.archived}</td>
            <td><form method="post" action="/admin${base}/${String(r.ID)}/active">${csrfField(ctx)}${versionField(type, r)}<input type="hidden" name="active" value="${r.Active === true ? '0' : '1'}">
              <button type="submit" aria-label="${r.Active === true ? t.archive : t.reactivate}: ${r[page.nameProperty] as string}">${r.Active === true ? t.archive : t.reactivate}</button></form></td>
          </tr>`)}</tbody>
        </table></div>`, { notice: done === 'saved' ? t.saved : undefined }));
    });

    admin.get(`${base}/new`, async (request, reply) => {
      const state: FormState = { Active: '1', Billable: '1', AssignedUsers: [], AssignedTasks: [] };
      return sendPage(reply, 200, adminPage(request.page, request.page.t[page.create], await form(request, page, `/admin${base}/new`, state, {})));
    });

    admin.post(`${base}/new`, async (request, reply) => {
      const caller = administrator(request).caller;
      const { values, errors } = await valuesOf(request, page, true);
      let shown = errors;
      if (Object.keys(errors).length === 0) {
        try {
          await administration.create(caller, page.set, values);
          return reply.redirect(`/admin${base}?done=saved`, 303);
        } catch (error) {
          shown = refusalOf(error, Object.keys(values), request.page.lang);
        }
      }
      return sendPage(reply, 422, adminPage(request.page, request.page.t[page.create], await form(request, page, `/admin${base}/new`, stateFrom(request.body), shown)));
    });

    admin.get(`${base}/:id`, async (request, reply) => {
      const record = await ofId(request);
      if (record === undefined) return notFound(request, reply);
      return sendPage(reply, 200, await editPage(request, page, record, stateOf(record), {}));
    });

    admin.post(`${base}/:id`, async (request, reply) => {
      const record = await ofId(request);
      if (record === undefined) return deletedMeanwhile(request, reply);
      const version = await postedRecordVersion(request, reply, record);
      if (version === undefined) return reply;
      const { values, errors } = await valuesOf(request, page, false);
      let shown = errors;
      if (Object.keys(errors).length === 0) {
        try {
          await administration.update(administrator(request).caller, page.set, record.ID as number, values, version);
          return reply.redirect(`/admin${base}?done=saved`, 303);
        } catch (error) {
          if (isStale(error)) return staleForm(request, reply, record.ID as number, request.page.t.changedMeanwhile);
          shown = refusalOf(error, Object.keys(values), request.page.lang);
        }
      }
      // What was typed, still on the version it was made from: a change by others meanwhile is not waved through on the next save.
      return sendPage(reply, 422, await editPage(request, page, record, stateFrom(request.body), shown, version));
    });

    // Archiving is a change like any other: from a page showing an older version (renamed,
    // reactivated meanwhile), it is refused as stale rather than made on what the page showed.
    admin.post(`${base}/:id/active`, async (request, reply: FastifyReply) => {
      const record = await ofId(request);
      if (record === undefined) return deletedMeanwhile(request, reply);
      const version = await postedRecordVersion(request, reply, record);
      if (version === undefined) return reply;
      const active = formText(request.body, 'active');
      if (active !== '0' && active !== '1') return sendPage(reply, 400, adminPage(request.page, request.page.t[page.list], html``, { error: request.page.t.required }));
      try {
        await administration.update(administrator(request).caller, page.set, record.ID as number, { Active: active === '1' }, version);
      } catch (error) {
        if (isStale(error)) return staleForm(request, reply, record.ID as number, request.page.t.changedMeanwhile);
        throw error;
      }
      return reply.redirect(`/admin${base}?done=saved`, 303);
    });
  }

  /** The edit page; its forms carry `version` (the posted one when `state` is what was typed), else the record's own. */
  async function editPage(request: FastifyRequest, page: SetPage, record: EdmRecord, state: FormState, errors: FieldErrors, version: EdmRecord = record): Promise<string> {
    const { t } = request.page;
    const action = `/admin/${page.path}/${String(record.ID)}`;
    return adminPage(request.page, `${t[page.edit]}: ${record[page.nameProperty] as string}`, html`
      ${record.Active === true ? '' : html`<p class="tag">${t.archived}</p>`}
      ${await form(request, page, action, state, errors, version)}
      <form method="post" action="${action}/active">${csrfField(request.page)}${versionField(administration.typeOf(page.set), version)}<input type="hidden" name="active" value="${record.Active === true ? '0' : '1'}">
        <button type="submit">${record.Active === true ? t.archive : t.reactivate}</button></form>
      <p><a href="/admin/${page.path}">${t.cancel}</a></p>`);
  }
}
