// My profile: API keys (create one, shown once with a copy button and a ready curl line; the
// list by prefix with creation and last use; revoke one or all) and changing the password, which
// ends every other session of the user.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { listKeys, newKey, revokeKey, revokeKeys } from '../../accounts/account-admin.js';
import { setPassword, verifyPassword } from '../../accounts/passwords.js';
import { SERVICE_ROOT_PATH } from '../../config.js';
import { wallClock } from '../clock.js';
import { formText } from '../form-values.js';
import { html } from '../html.js';
import type { Html } from '../html.js';
import { csrfField, described, field, layout } from '../layout.js';
import type { PageContext } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { SESSION_COOKIE, cookieOptions, sendPage, signedIn } from '../plugin.js';
import type { WebSession } from '../sessions.js';
import { SESSION_TTL_MS, startSession } from '../sessions.js';
import { newPasswordError, newPasswordFields } from './sign-in.js';


/** A cell's column name, shown only where a narrow screen hides the table's header row (app.css). */
function cellLabel(name: string): Html {
  return html`<span class="cell-label">${name}</span>`;
}

export function registerProfilePages(web: FastifyInstance, deps: WebDependencies): void {
  const { db } = deps;

  async function render(request: FastifyRequest, session: WebSession, parts: { created?: Html; passwordError?: string; currentError?: string; notice?: string }): Promise<string> {
    const ctx: PageContext = request.page;
    const { t } = ctx;
    const keys = await listKeys(db, session.caller.userId);
    const when = (ms: number) => {
      const clock = wallClock(ms, session.timeZone);
      return `${clock.date} ${clock.time}`;
    };
    return layout(ctx, t.profile, html`
      <section class="card" aria-labelledby="keys">
        <h2 id="keys">${t.apiKeys}</h2>
        <p>${t.apiKeysIntro}</p>
        ${parts.created ?? ''}
        ${keys.length === 0 ? html`<p>${t.noKeys}</p>` : html`<table class="keys">
          <thead><tr><th scope="col">${t.prefix}</th><th scope="col">${t.createdAt}</th><th scope="col">${t.lastUsed}</th><th scope="col"><span class="visually-hidden">${t.actions}</span></th></tr></thead>
          <tbody>${keys.map((key) => html`<tr>
            <td><code>${key.prefix}…</code></td><td>${cellLabel(t.createdAt)} ${when(key.createdAt)}</td><td>${cellLabel(t.lastUsed)} ${key.lastUsedAt === null ? t.never : when(key.lastUsedAt)}</td>
            <td><form method="post" action="/profile/keys/${key.id}/revoke">${csrfField(ctx)}<button type="submit" aria-label="${t.revoke} ${key.prefix}">${t.revoke}</button></form></td>
          </tr>`)}</tbody></table>`}
        <div class="actions">
          <form method="post" action="/profile/keys">${csrfField(ctx)}<button type="submit" class="primary">${t.createKey}</button></form>
          ${keys.length === 0 ? '' : html`<form method="post" action="/profile/keys/revoke-all">${csrfField(ctx)}<button type="submit">${t.revokeAll}</button></form>`}
        </div>
      </section>
      <section class="card" aria-labelledby="password-heading">
        <h2 id="password-heading">${t.changePassword}</h2>
        <form method="post" action="/profile/password">
          ${csrfField(ctx)}
          <input type="text" name="username" autocomplete="username" value="${session.user.email}" hidden>
          ${field('current-password', t.currentPassword, html`<input id="current-password" name="current" type="password" autocomplete="current-password" required${described('current-password', parts.currentError)}>`, parts.currentError)}
          ${newPasswordFields(t, parts.passwordError)}
          <button type="submit">${t.changePassword}</button>
        </form>
      </section>`, { scripts: ['/assets/copy.js'], notice: parts.notice });
  }

  web.get('/profile', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const done = (request.query as { done?: string }).done;
    const notice = done === 'revoked' ? request.page.t.revoked : done === 'password' ? request.page.t.passwordChanged : undefined;
    return sendPage(reply, 200, await render(request, session, { notice }));
  });

  web.post('/profile/keys', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const { t } = request.page;
    const { apiKey } = await newKey(db, session.caller.userId);
    const curl = `curl -H "X-ServiceApiKey: ${apiKey}" "${request.protocol}://${request.host}${SERVICE_ROOT_PATH}/TimeEntries?$format=json&$top=5"`;
    const created = html`<div class="new-key" role="status">
      <p>${t.newKeyShownOnce}</p>
      <p class="copyable"><code id="new-key">${apiKey}</code> <button type="button" data-copy="new-key" data-copied="${t.copied}">${t.copy}</button></p>
      <p>${t.tryIt}</p>
      <p class="copyable"><code id="curl-line">${curl}</code> <button type="button" data-copy="curl-line" data-copied="${t.copied}">${t.copy}</button></p>
    </div>`;
    // Shown in the answer to the POST itself, never through a redirect: the key is in no URL,
    // no history entry, no cache (no-store).
    return sendPage(reply, 201, await render(request, session, { created }));
  });

  web.post('/profile/keys/:id/revoke', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const id = Number((request.params as { id: string }).id);
    if (!Number.isSafeInteger(id) || !(await revokeKey(db, session.caller.userId, id))) {
      return sendPage(reply, 404, layout(request.page, request.page.t.profile, html``, { error: request.page.t.notFound }));
    }
    return reply.redirect('/profile?done=revoked', 303);
  });

  web.post('/profile/keys/revoke-all', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    await revokeKeys(db, session.caller.userId);
    return reply.redirect('/profile?done=revoked', 303);
  });

  web.post('/profile/password', async (request, reply) => {
    const session = signedIn(request, reply);
    if (session === undefined) return reply;
    const { t } = request.page;
    const password = formText(request.body, 'password');
    const passwordError = newPasswordError(t, password, formText(request.body, 'repeat'));
    // Guessing the current password from a stolen session is throttled like signing in.
    if (deps.throttle.isLocked(session.user.email, request.ip)) {
      return sendPage(reply, 429, await render(request, session, { currentError: t.throttled }));
    }
    const user = await db.selectFrom('users').select('password_hash').where('id', '=', session.caller.userId).executeTakeFirstOrThrow();
    const currentError = await verifyPassword(formText(request.body, 'current'), user.password_hash) ? undefined : t.wrongPassword;
    if (currentError !== undefined) deps.throttle.recordFailure(session.user.email, request.ip);
    if (passwordError !== undefined || currentError !== undefined) {
      return sendPage(reply, 422, await render(request, session, {
        ...(passwordError === undefined ? {} : { passwordError }), ...(currentError === undefined ? {} : { currentError }),
      }));
    }
    // Every session ends with the change, this one included; this browser gets a new one.
    await setPassword(db, session.caller.userId, password);
    const token = await startSession(db, session.caller.accountId, session.caller.userId);
    void reply.setCookie(SESSION_COOKIE, token, cookieOptions(request, SESSION_TTL_MS / 1000));
    return reply.redirect('/profile?done=password', 303);
  });
}
