// The employee's details on their administration page: names, title, address, language, comment
// and the custom fields the account labels (UserCustomNLabel, as admin-master-data.ts shows them
// for clients, projects and tasks; the others keep what is stored). Checked against the model's
// User type by the payload rules, with messages in the page's language; the address must be one
// and no other user's of the account. The form carries the user's internal row version
// (row-versions.ts), so an administrator's save cannot undo another's made meanwhile.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EdmRecord } from '../../../odata/edm.js';
import type { EntityType } from '../../../odata/model.js';
import type { ValidationMessages } from '../../odata-server/messages.js';
import { AccountAdminError } from '../../accounts/account-errors.js';
import { changeUserDetails } from '../../accounts/user-details.js';
import { formText, recordFromForm } from '../form-values.js';
import type { FieldErrors } from '../form-values.js';
import { flag, html } from '../html.js';
import type { Html } from '../html.js';
import { fill } from '../i18n.js';
import { csrfField, described, field } from '../layout.js';
import type { PageContext } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { sendPage } from '../plugin.js';
import { internalVersionField, isStale, postedInternalVersion } from '../row-versions.js';
import { administrator, notFound, refusalOf } from './admin.js';

/** The account's user of a page with the version read before it (Administration.userVersion). */
export interface Employee {
  readonly user: EdmRecord;
  readonly version: number;
}

/** The details form's fields as text: what was typed, or the user's values. */
export type DetailsState = Record<string, string>;

const LANGUAGES = [['DE', 'Deutsch'], ['EN', 'English']] as const;

export function detailsStateOf(user: EdmRecord): DetailsState {
  return Object.fromEntries(Object.entries(user).map(([name, value]) => [name, value === null || value === undefined ? '' : String(value)]));
}

/** The page's own words for the model's checks of a field, naming it by its label. */
function pageMessages(ctx: PageContext, labels: ReadonlyMap<string, string>): ValidationMessages {
  const { t } = ctx;
  const label = (name: string) => labels.get(name) ?? name;
  return {
    lang: ctx.lang,
    required: (_type, p) => fill(t.fieldRequired, { field: label(p.name) }),
    notNullable: (_type, p) => fill(t.fieldRequired, { field: label(p.name) }),
    tooLong: (_type, p, max) => fill(t.fieldTooLong, { field: label(p.name), max: String(max) }),
    invalidValue: (_type, p) => fill(t.fieldInvalid, { field: label(p.name) }),
  };
}

export function registerEmployeeDetails(
  admin: FastifyInstance, deps: WebDependencies,
  employeeOf: (request: FastifyRequest) => Promise<Employee | undefined>,
  detailPage: (request: FastifyRequest, employee: Employee, options: { details?: { state: DetailsState; errors: FieldErrors; version: number } }) => Promise<string>,
): void {
  const { administration, db, bookings } = deps;
  const userType: EntityType = administration.typeOf('Users');

  /** The fields' labels on the page: the plain ones, then the custom fields the account labels. */
  async function labelsOf(request: FastifyRequest): Promise<Map<string, string>> {
    const { t } = request.page;
    const labels = new Map<string, string>([
      ['Title', t.userTitle], ['FirstName', t.firstName], ['LastName', t.lastName], ['Email', t.email], ['Language', t.language], ['Comment', t.comment],
    ]);
    for (const [name, label] of await bookings.customLabels(administrator(request).caller, 'User')) labels.set(name, label);
    return labels;
  }

  admin.post('/employees/:id/details', async (request, reply: FastifyReply) => {
    const employee = await employeeOf(request);
    if (employee === undefined) return notFound(request, reply);
    const { t } = request.page;
    const caller = administrator(request).caller;
    const body = request.body;
    const version = postedInternalVersion(body);
    if (version === undefined) return sendPage(reply, 400, await detailPage(request, employee, { details: { state: detailsStateOf(employee.user), errors: { form: t.versionMissing }, version: employee.version } }));
    const labels = await labelsOf(request);
    const names = [...labels.keys()];
    const messages = pageMessages(request.page, labels);
    const { values, errors } = recordFromForm(userType, names, body, messages, request.page.lang);
    // The languages the interface speaks, and whatever the user has now (set with `timegate admin`).
    const language = formText(body, 'Language', 10).trim().toUpperCase();
    if (errors.Language === undefined && !LANGUAGES.some(([code]) => code === language) && language !== employee.user.Language) errors.Language = fill(t.fieldInvalid, { field: t.language });
    if (Object.keys(errors).length === 0) {
      try {
        const checked = administration.checkUser(values, messages);
        const text = (name: string) => checked[name] as string;
        const nullable = (name: string) => (checked[name] ?? null) as string | null;
        const custom = Object.fromEntries(names.filter((name) => name.startsWith('Custom')).map((name) => [name.toLowerCase(), nullable(name)]));
        await changeUserDetails(db, { accountId: caller.accountId, userId: employee.user.ID as number, authorUserId: caller.userId, expectedVersion: version }, {
          title: nullable('Title'), firstName: text('FirstName'), lastName: text('LastName'), email: text('Email'),
          language: text('Language'), comment: nullable('Comment'), custom,
        });
        return reply.redirect(`/admin/employees/${String(employee.user.ID)}?done=saved`, 303);
      } catch (error) {
        if (isStale(error)) {
          const current = await employeeOf(request);
          if (current === undefined) return notFound(request, reply);
          return sendPage(reply, 409, await detailPage(request, current, { details: { state: detailsStateOf(current.user), errors: { form: t.changedMeanwhile }, version: current.version } }));
        }
        if (error instanceof AccountAdminError) Object.assign(errors, { Email: error.code === 'email-taken' ? t.emailTaken : t.invalidEmail });
        else Object.assign(errors, refusalOf(error, names, request.page.lang));
      }
    }
    const state = Object.fromEntries(names.map((name) => [name, formText(body, name, 5000)]));
    // What was typed, still on the version it was made from: a change meanwhile is caught on the next save.
    return sendPage(reply, 422, await detailPage(request, employee, { details: { state, errors, version } }));
  });
}

/** The details form: `state` made from (and carrying) `version`; `labelled` the custom fields the account labels. */
export function detailsForm(
  ctx: PageContext, id: string, state: DetailsState, version: number, errors: FieldErrors, labelled: ReadonlyArray<readonly [string, string]>,
): Html {
  const { t } = ctx;
  const e = (name: string) => errors[name];
  const input = (name: string, label: string, attributes: Html = html``) =>
    field(`d-${name}`, label, html`<input id="d-${name}" name="${name}" value="${state[name] ?? ''}"${attributes}${described(`d-${name}`, e(name))}>`, e(name));
  const current = state.Language ?? 'DE';
  const languages = LANGUAGES.some(([code]) => code === current) || current === '' ? LANGUAGES : [...LANGUAGES, [current, current] as const];
  return html`<section class="card" aria-labelledby="details">
    <h2 id="details">${t.employeeDetails}</h2>
    <form method="post" action="/admin/employees/${id}/details" novalidate>
      ${csrfField(ctx)}${internalVersionField(version)}
      ${errors.form === undefined ? '' : html`<p class="error" role="alert">${errors.form}</p>`}
      ${input('Title', t.userTitle)}
      ${input('FirstName', t.firstName, html` required autocomplete="off"`)}
      ${input('LastName', t.lastName, html` required autocomplete="off"`)}
      ${input('Email', t.email, html` type="email" required autocomplete="off"`)}
      ${field('d-Language', t.language, html`<select id="d-Language" name="Language"${described('d-Language', e('Language'))}>${languages.map(([code, name]) =>
        html`<option value="${code}"${flag('selected', code === current)}>${name}</option>`)}</select>`, e('Language'))}
      ${field('d-Comment', t.comment, html`<textarea id="d-Comment" name="Comment" rows="2"${described('d-Comment', e('Comment'))}>${state.Comment ?? ''}</textarea>`, e('Comment'))}
      ${labelled.map(([name, label]) => input(name, label))}
      <button type="submit" class="primary">${t.saveDetails}</button>
    </form>
  </section>`;
}
