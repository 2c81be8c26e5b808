// Employees for administrators: the account's users with role and state, inviting one (the
// one-time link is shown in the answer, for the administrator to copy and pass on), a new link
// for one who has lost theirs, deactivating and reactivating, the role, and the projects they
// may book on (the projects' AssignedUsers, changed through the project rules of the API).
// Administrators cannot change their own role or access here (no locking oneself out). The
// details form is admin-employee-details.ts; every form that changes the user's row carries its
// internal row version (row-versions.ts), so two administrators cannot overwrite each other.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EdmRecord } from '../../../odata/edm.js';
import { inviteUser, setActive, setRole } from '../../accounts/account-admin.js';
import type { ChangedBy } from '../../accounts/account-admin.js';
import { AccountAdminError } from '../../accounts/account-errors.js';
import { INVITATION_PATH, createInvitation } from '../../accounts/invitations.js';
import { ACCESS_RIGHTS } from '../../storage/schema.js';
import { wallClock } from '../clock.js';
import { formText, formTexts, recordFromForm } from '../form-values.js';
import type { FieldErrors } from '../form-values.js';
import { flag, html } from '../html.js';
import type { Html } from '../html.js';
import { fill } from '../i18n.js';
import { csrfField, described, field } from '../layout.js';
import type { PageContext } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { sendPage } from '../plugin.js';
import { internalVersionField, isStale, postedInternalVersion, versionOf } from '../row-versions.js';
import { detailsForm, detailsStateOf, registerEmployeeDetails } from './admin-employee-details.js';
import type { DetailsState, Employee } from './admin-employee-details.js';
import { adminPage, administrator, notFound, refusalOf } from './admin.js';

const INVITE_FIELDS = ['FirstName', 'LastName', 'Email'] as const;

function fullName(user: EdmRecord): string {
  return `${user.FirstName as string} ${user.LastName as string}`;
}

/** The language of an invitation: the one chosen, else the page's own (an English page invites in English). */
function invitationLanguage(ctx: PageContext, chosen: string | undefined): 'DE' | 'EN' {
  if (chosen === 'DE' || chosen === 'EN') return chosen;
  return ctx.lang === 'en' ? 'EN' : 'DE';
}

export function registerEmployeePages(admin: FastifyInstance, deps: WebDependencies): void {
  const { administration, db } = deps;

  async function invitationNotice(request: FastifyRequest, userId: number, name: string): Promise<Html> {
    const { t } = request.page;
    const { token, expiresAt } = await createInvitation(db, userId);
    const link = `${request.protocol}://${request.host}${INVITATION_PATH}${token}`;
    const expires = wallClock(expiresAt, administrator(request).timeZone).date;
    return html`<div class="new-key" role="status">
      <p>${fill(t.invitationLink, { name, date: expires })}</p>
      <p class="copyable"><code id="invitation-link">${link}</code> <button type="button" data-copy="invitation-link" data-copied="${t.copied}">${t.copy}</button></p>
    </div>`;
  }

  async function listPage(request: FastifyRequest, form: Record<string, string>, errors: FieldErrors, created?: Html): Promise<string> {
    const ctx = request.page;
    const { t } = ctx;
    const caller = administrator(request).caller;
    const [users, pending] = await Promise.all([administration.list(caller, 'Users'), administration.pendingUsers(caller)]);
    const e = (name: string) => errors[name];
    const language = invitationLanguage(ctx, form.language);
    const input = (name: string, label: string, type = 'text') =>
      field(`f-${name}`, label, html`<input id="f-${name}" name="${name}" type="${type}" required value="${form[name] ?? ''}"${described(`f-${name}`, e(name))}>`, e(name));
    return adminPage(ctx, t.employees, html`
      ${created ?? ''}
      <div class="scroll" role="region" aria-label="${t.employees}" tabindex="0"><table class="list">
        <thead><tr><th scope="col">${t.name}</th><th scope="col">${t.email}</th><th scope="col">${t.role}</th><th scope="col">${t.status}</th></tr></thead>
        <tbody>${users.map((u) => html`<tr data-id="${String(u.ID)}">
          <td><a href="/admin/employees/${String(u.ID)}">${fullName(u)}</a></td><td>${u.Email as string}</td>
          <td>${u.AccessRights === ACCESS_RIGHTS.administrator ? t.roleAdmin : t.roleUser}</td>
          <td>${u.Active !== true ? t.inactive : pending.has(u.ID as number) ? t.invitationPending : t.active}</td>
        </tr>`)}</tbody>
      </table></div>
      <section class="card" aria-labelledby="invite">
        <h2 id="invite">${t.inviteEmployee}</h2>
        <form method="post" action="/admin/employees/invite" novalidate>
          ${csrfField(ctx)}
          ${errors.form === undefined ? '' : html`<p class="error" role="alert">${errors.form}</p>`}
          ${input('FirstName', t.firstName)}
          ${input('LastName', t.lastName)}
          ${input('Email', t.email, 'email')}
          ${field('f-role', t.role, html`<select id="f-role" name="role"><option value="user"${flag('selected', form.role !== 'admin')}>${t.roleUser}</option><option value="admin"${flag('selected', form.role === 'admin')}>${t.roleAdmin}</option></select>`, undefined)}
          ${field('f-language', t.language, html`<select id="f-language" name="language"><option value="DE"${flag('selected', language === 'DE')}>Deutsch</option><option value="EN"${flag('selected', language === 'EN')}>English</option></select>`, undefined)}
          <button type="submit" class="primary">${t.invite}</button>
        </form>
      </section>`, { scripts: ['/assets/copy.js'] });
  }

  admin.get('/employees', async (request, reply) => sendPage(reply, 200, await listPage(request, {}, {})));

  admin.post('/employees/invite', async (request, reply) => {
    const caller = administrator(request).caller;
    const { t } = request.page;
    const body = request.body;
    const form = Object.fromEntries(['FirstName', 'LastName', 'Email', 'role', 'language'].map((name) => [name, formText(body, name, 500)]));
    // Names and address checked against the model's User type, with the API's messages.
    const { values, errors } = recordFromForm(administration.typeOf('Users'), INVITE_FIELDS, body, administration.messages, request.page.lang);
    if (form.role !== 'user' && form.role !== 'admin') errors.form = t.required;
    if (Object.keys(errors).length === 0) {
      try {
        administration.checkUser(values);
        const { userId } = await inviteUser(db, {
          accountId: caller.accountId, firstName: values.FirstName as string, lastName: values.LastName as string, email: values.Email as string,
          role: form.role as 'user' | 'admin', language: invitationLanguage(request.page, form.language), authorUserId: caller.userId,
        });
        return sendPage(reply, 201, await listPage(request, {}, {}, await invitationNotice(request, userId, `${values.FirstName as string} ${values.LastName as string}`)));
      } catch (error) {
        if (error instanceof AccountAdminError) Object.assign(errors, { Email: error.code === 'email-taken' ? t.emailTaken : t.invalidEmail });
        else Object.assign(errors, refusalOf(error, [...INVITE_FIELDS], request.page.lang));
      }
    }
    return sendPage(reply, 422, await listPage(request, form, errors));
  });

  /**
   * The account's user of the URL with their row version, read first (so a change between the
   * reads makes the page's forms stale, never blind); undefined for another account's or none.
   */
  async function employeeOf(request: FastifyRequest): Promise<Employee | undefined> {
    const caller = administrator(request).caller;
    const id = (request.params as { id: string }).id;
    const version = await administration.userVersion(caller, id);
    const user = version === undefined ? undefined : await administration.one(caller, 'Users', id);
    return user === undefined || version === undefined ? undefined : { user, version };
  }

  interface DetailOptions {
    created?: Html; error?: string; notice?: string;
    /** The details form as typed (or refused as stale), else the user's values on their version. */
    details?: { state: DetailsState; errors: FieldErrors; version: number };
  }

  async function detailPage(request: FastifyRequest, employee: Employee, options: DetailOptions = {}): Promise<string> {
    const ctx = request.page;
    const { t } = ctx;
    const { user, version } = employee;
    const session = administrator(request);
    const isSelf = user.ID === session.caller.userId;
    const [projects, labelled] = await Promise.all([administration.list(session.caller, 'Projects'), deps.bookings.customLabels(session.caller, 'User')]);
    const id = String(user.ID);
    const listed = (p: EdmRecord) => typeof p.AssignedUsers === 'string' && p.AssignedUsers.split(',').includes(id);
    const details = options.details ?? { state: detailsStateOf(user), errors: {}, version };
    return adminPage(ctx, fullName(user), html`
      ${options.created ?? ''}
      <p>${user.Email as string} · ${user.AccessRights === ACCESS_RIGHTS.administrator ? t.roleAdmin : t.roleUser} · ${user.Active === true ? t.active : t.inactive}</p>
      ${isSelf ? html`<p class="hint">${t.ownAccount}</p>` : html`
      <section class="card" aria-labelledby="access">
        <h2 id="access">${t.role}</h2>
        <form method="post" action="/admin/employees/${id}/role" class="inline">${csrfField(ctx)}${internalVersionField(version)}
          ${field('f-role', t.role, html`<select id="f-role" name="role"><option value="user"${flag('selected', user.AccessRights !== ACCESS_RIGHTS.administrator)}>${t.roleUser}</option><option value="admin"${flag('selected', user.AccessRights === ACCESS_RIGHTS.administrator)}>${t.roleAdmin}</option></select>`, undefined)}
          <button type="submit">${t.saveRole}</button>
        </form>
        <div class="actions">
          <form method="post" action="/admin/employees/${id}/active">${csrfField(ctx)}${internalVersionField(version)}<input type="hidden" name="active" value="${user.Active === true ? '0' : '1'}"><button type="submit">${user.Active === true ? t.deactivate : t.reactivate}</button></form>
          ${user.Active === true ? html`<form method="post" action="/admin/employees/${id}/invitation">${csrfField(ctx)}<button type="submit">${t.newInvitation}</button></form>` : ''}
        </div>
      </section>`}
      ${detailsForm(ctx, id, details.state, details.version, details.errors, labelled)}
      <section class="card" aria-labelledby="assigned">
        <h2 id="assigned">${t.assignedProjects}</h2>
        <form method="post" action="/admin/employees/${id}/projects">${csrfField(ctx)}
          <fieldset class="choices" aria-describedby="assigned-hint"><legend class="visually-hidden">${t.assignedProjects}</legend>
            <p class="hint" id="assigned-hint">${t.assignedProjectsHint}</p>
            ${projects.map((p) => p.AssignedUsers === null
              ? html`<label><input type="checkbox" checked disabled> ${p.Name as string} (${t.openToAll})</label>`
              : html`<label><input type="checkbox" name="project" value="${String(p.ID)}"${flag('checked', listed(p))}> ${p.Name as string}${p.Active === true ? '' : ` (${t.archived})`}</label>`)}
          </fieldset>
          <button type="submit" class="primary">${t.saveAssignments}</button>
        </form>
      </section>
      <p><a href="/admin/employees">${t.employees}</a></p>`, { scripts: ['/assets/copy.js'], error: options.error, notice: options.notice });
  }

  admin.get('/employees/:id', async (request, reply) => {
    const employee = await employeeOf(request);
    if (employee === undefined) return notFound(request, reply);
    const done = (request.query as { done?: string }).done;
    return sendPage(reply, 200, await detailPage(request, employee, { notice: done === 'saved' ? request.page.t.saved : undefined }));
  });

  registerEmployeeDetails(admin, deps, employeeOf, detailPage);

  /** Changes of one's own access are refused (403): no administrator locks themselves out. */
  async function otherUser(request: FastifyRequest, reply: FastifyReply): Promise<Employee | undefined> {
    const employee = await employeeOf(request);
    if (employee === undefined) {
      notFound(request, reply);
      return undefined;
    }
    if (employee.user.ID === administrator(request).caller.userId) {
      void sendPage(reply, 403, await detailPage(request, employee, { error: request.page.t.ownAccount }));
      return undefined;
    }
    return employee;
  }

  /**
   * A change of the user's access from the version the page showed (row-versions.ts): a garbled
   * version is 400, a change by someone else meanwhile 409 with the page as it is now.
   */
  async function changeAccess(request: FastifyRequest, reply: FastifyReply, employee: Employee, change: (by: ChangedBy) => Promise<unknown>): Promise<FastifyReply> {
    const { t } = request.page;
    const expectedVersion = postedInternalVersion(request.body);
    if (expectedVersion === undefined) return sendPage(reply, 400, await detailPage(request, employee, { error: t.versionMissing }));
    try {
      await change({ authorUserId: administrator(request).caller.userId, expectedVersion });
    } catch (error) {
      if (!isStale(error)) throw error;
      const current = await employeeOf(request);
      if (current === undefined) return notFound(request, reply);
      return sendPage(reply, 409, await detailPage(request, current, { error: t.changedMeanwhile }));
    }
    return reply.redirect(`/admin/employees/${String(employee.user.ID)}?done=saved`, 303);
  }

  admin.post('/employees/:id/role', async (request, reply) => {
    const employee = await otherUser(request, reply);
    if (employee === undefined) return reply;
    const role = formText(request.body, 'role');
    if (role !== 'user' && role !== 'admin') return sendPage(reply, 422, await detailPage(request, employee, { error: request.page.t.required }));
    return changeAccess(request, reply, employee, (by) => setRole(db, employee.user.ID as number, role, by));
  });

  admin.post('/employees/:id/active', async (request, reply) => {
    const employee = await otherUser(request, reply);
    if (employee === undefined) return reply;
    const active = formText(request.body, 'active');
    if (active !== '0' && active !== '1') return sendPage(reply, 422, await detailPage(request, employee, { error: request.page.t.required }));
    return changeAccess(request, reply, employee, (by) => setActive(db, employee.user.ID as number, active === '1', by));
  });

  admin.post('/employees/:id/invitation', async (request, reply) => {
    const employee = await otherUser(request, reply);
    if (employee === undefined) return reply;
    const { user } = employee;
    if (user.Active !== true) return sendPage(reply, 422, await detailPage(request, employee, { error: request.page.t.inactive }));
    return sendPage(reply, 201, await detailPage(request, employee, { created: await invitationNotice(request, user.ID as number, fullName(user)) }));
  });

  admin.post('/employees/:id/projects', async (request, reply) => {
    const employee = await employeeOf(request);
    if (employee === undefined) return notFound(request, reply);
    const { user } = employee;
    const caller = administrator(request).caller;
    const id = String(user.ID);
    const chosen = new Set(formTexts(request.body, 'project'));
    // Only projects with a list of their own change: one open to everybody stays open.
    for (const project of await administration.list(caller, 'Projects')) {
      if (typeof project.AssignedUsers !== 'string') continue;
      const ids = project.AssignedUsers.split(',');
      const has = ids.includes(id);
      const wants = chosen.has(String(project.ID));
      if (has === wants) continue;
      const next = wants ? [...ids, id] : ids.filter((other) => other !== id);
      // The last one taken off would leave an empty list, which the API reads as "everybody".
      if (next.length === 0) {
        return sendPage(reply, 422, await detailPage(request, employee, { error: fill(request.page.t.lastAssignee, { project: project.Name as string }) }));
      }
      try {
        // On the version just read: another change of the list in between is not overwritten.
        await administration.update(caller, 'Projects', project.ID as number, { AssignedUsers: next.join(',') }, versionOf(administration.typeOf('Projects'), project));
      } catch (error) {
        if (isStale(error)) return sendPage(reply, 409, await detailPage(request, employee, { error: request.page.t.changedMeanwhile }));
        return sendPage(reply, 422, await detailPage(request, employee, { error: refusalOf(error, [], request.page.lang).form }));
      }
    }
    return reply.redirect(`/admin/employees/${id}?done=saved`, 303);
  });
}
