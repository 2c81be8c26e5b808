// The administration pages under /admin: for administrators only. A standard user never sees
// the link and gets 404 (as for a page that does not exist) on every URL below /admin, whatever
// the method; before sign-in, the sign-in page. The pages themselves: admin-employees.ts,
// admin-master-data.ts (clients, projects, tasks), admin-settings.ts, admin-entries.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ODataError } from '../../../odata/errors.js';
import { refusalText } from '../../odata-server/error-texts.js';
import type { FieldErrors } from '../form-values.js';
import type { Lang } from '../i18n.js';
import { html } from '../html.js';
import type { Html } from '../html.js';
import { layout } from '../layout.js';
import type { PageContext, PageOptions } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { sendPage } from '../plugin.js';
import type { WebSession } from '../sessions.js';
import { registerEmployeePages } from './admin-employees.js';
import { registerEntryPages } from './admin-entries.js';
import { registerMasterDataPages } from './admin-master-data.js';
import { registerSettingsPages } from './admin-settings.js';

const SECTIONS = [
  ['/admin/employees', 'employees'], ['/admin/clients', 'clients'], ['/admin/projects', 'projects'], ['/admin/tasks', 'tasks'],
  ['/admin/entries', 'teamEntries'], ['/admin/settings', 'settings'],
] as const;

/** An administration page: the layout with the sections' navigation above the body. */
export function adminPage(ctx: PageContext, title: string, body: Html, options: PageOptions = {}): string {
  const { t } = ctx;
  const here = ctx.path.split('?', 1)[0] ?? '';
  return layout(ctx, title, html`
    <nav class="sections" aria-label="${t.adminNav}"><ul>${SECTIONS.map(([href, key]) =>
      html`<li><a href="${href}"${here.startsWith(href) ? html` aria-current="page"` : ''}>${t[key]}</a></li>`)}</ul></nav>
    ${body}`, options);
}

/** The signed-in administrator of a request under /admin (the guard let only them through). */
export function administrator(request: FastifyRequest): WebSession {
  const { session } = request.page;
  if (session === undefined || !session.caller.isAdmin) throw new Error('an /admin route ran without an administrator');
  return session;
}

export function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendPage(reply, 404, layout(request.page, request.page.t.admin, html``, { error: request.page.t.notFound }));
}

/** The answer to a form posted for a record that is not there (any more): 404, saying it was deleted meanwhile. */
export function deletedMeanwhile(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendPage(reply, 404, layout(request.page, request.page.t.admin, html``, { error: request.page.t.deletedMeanwhile }));
}

/**
 * A refusal of the rules as the form's errors, in the page's language: beside the field of the
 * property it names, else above the form; anything but a client's error is thrown on.
 */
export function refusalOf(error: unknown, fields: readonly string[], language: Lang): FieldErrors {
  if (!(error instanceof ODataError) || error.status >= 500 || error.status === 401) throw error;
  const target = error.target ?? '';
  const message = refusalText(error, language);
  return fields.includes(target) ? { [target]: message } : { form: message };
}

export function registerAdministrationPages(web: FastifyInstance, deps: WebDependencies): void {
  void web.register(async (admin) => {
    admin.addHook('preHandler', async (request, reply) => {
      const { session } = request.page;
      if (session === undefined) return reply.redirect(`/sign-in?next=${encodeURIComponent(request.url)}`, 303);
      if (!session.caller.isAdmin) return notFound(request, reply);
      return undefined;
    });
    admin.get('/', async (request, reply) => {
      const { t } = request.page;
      return sendPage(reply, 200, adminPage(request.page, t.admin, html`<p>${t.adminIntro}</p>`));
    });
    registerEmployeePages(admin, deps);
    registerMasterDataPages(admin, deps);
    registerSettingsPages(admin, deps);
    registerEntryPages(admin, deps);
    // Any other URL below /admin: 404 behind the guard (a standard user learns nothing more).
    admin.all('/*', async (request, reply) => notFound(request, reply));
  }, { prefix: '/admin' });
}
