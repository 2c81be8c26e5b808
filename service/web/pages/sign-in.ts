// Signing in and out, and setting the first password through an invitation link.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { INVITATION_PATH, invitedUser, redeemInvitation } from '../../accounts/invitations.js';
import { passwordProblem } from '../../accounts/passwords.js';
import { checkPassword } from '../../accounts/sign-in.js';
import { formText } from '../form-values.js';
import { html } from '../html.js';
import { fill } from '../i18n.js';
import type { Texts } from '../i18n.js';
import { csrfField, described, field, layout } from '../layout.js';
import type { PageContext } from '../layout.js';
import type { WebDependencies } from '../plugin.js';
import { SESSION_COOKIE, cookieOptions, safeLocalPath, sendPage } from '../plugin.js';
import { SESSION_TTL_MS, endSession, startSession } from '../sessions.js';


/** The sign-in form; after a refused password (`passwordRefused`) that field is marked and focused, as the layout does for any field at fault. */
function signInPage(ctx: PageContext, email: string, next: string, options: { error?: string; notice?: string }, passwordRefused = false): string {
  const { t } = ctx;
  return layout(ctx, t.signIn, html`
    <form method="post" action="/sign-in" class="card narrow">
      ${csrfField(ctx)}
      <input type="hidden" name="next" value="${next}">
      ${field('email', t.email, html`<input id="email" name="email" type="email" autocomplete="username" required value="${email}">`, undefined)}
      ${field('password', t.password, html`<input id="password" name="password" type="password" autocomplete="current-password" required${passwordRefused ? html` aria-invalid="true"` : ''}>`, undefined)}
      <button type="submit" class="primary">${t.signIn}</button>
    </form>`, options);
}

/** An error message for a new password and its repetition, or undefined when it will do. */
export function newPasswordError(t: Texts, password: string, repeated: string): string | undefined {
  const problem = passwordProblem(password);
  if (problem === 'too-short') return t.passwordTooShort;
  if (problem === 'too-long') return t.passwordTooLong;
  return password === repeated ? undefined : t.passwordsDiffer;
}

export function newPasswordFields(t: Texts, error: string | undefined) {
  return html`
    ${field('new-password', t.newPassword, html`<input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200"${described('new-password', error, true)}>`, error, t.passwordHint)}
    ${field('repeat-password', t.repeatPassword, html`<input id="repeat-password" name="repeat" type="password" autocomplete="new-password" required>`, undefined)}`;
}

export function registerSignInPages(web: FastifyInstance, deps: WebDependencies): void {
  web.get('/sign-in', async (request, reply) => {
    const next = safeLocalPath((request.query as { next?: string }).next);
    if (request.page.session !== undefined) return reply.redirect(next === '/' ? '/stopwatch' : next, 303);
    const signedOut = (request.query as Record<string, string | undefined>)['signed-out'] !== undefined;
    return sendPage(reply, 200, signInPage(request.page, '', next, signedOut ? { notice: request.page.t.signedOut } : {}));
  });

  web.post('/sign-in', async (request, reply) => {
    const ctx = request.page;
    const email = formText(request.body, 'email').slice(0, 200);
    const password = formText(request.body, 'password');
    const next = safeLocalPath(formText(request.body, 'next'));
    const address = request.ip;
    if (deps.throttle.isLocked(email, address)) {
      return sendPage(reply.header('retry-after', '900'), 429, signInPage(ctx, email, next, { error: ctx.t.throttled }));
    }
    const principal = await checkPassword(deps.db, email, password);
    if (principal === undefined) {
      deps.throttle.recordFailure(email, address);
      return sendPage(reply, 401, signInPage(ctx, email, next, { error: ctx.t.signInFailed }, true));
    }
    deps.throttle.recordSuccess(email);
    const token = await startSession(deps.db, principal.accountId, principal.userId);
    void reply.setCookie(SESSION_COOKIE, token, cookieOptions(request, SESSION_TTL_MS / 1000));
    return reply.redirect(next === '/' ? '/stopwatch' : next, 303);
  });

  web.post('/sign-out', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token !== undefined) await endSession(deps.db, token);
    void reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
    return reply.redirect('/sign-in?signed-out=1', 303);
  });

  const invitationPage = async (request: FastifyRequest, reply: FastifyReply) => {
    const ctx = request.page;
    const { token } = request.params as { token: string };
    const user = await invitedUser(deps.db, token);
    if (user === undefined) return sendPage(reply, 404, layout(ctx, ctx.t.invitationTitle, html``, { error: ctx.t.invitationInvalid }));
    let error: string | undefined;
    if (request.method === 'POST') {
      const password = formText(request.body, 'password');
      error = newPasswordError(ctx.t, password, formText(request.body, 'repeat'));
      if (error === undefined) {
        const redeemed = await redeemInvitation(deps.db, token, password);
        if (redeemed === undefined) return sendPage(reply, 404, layout(ctx, ctx.t.invitationTitle, html``, { error: ctx.t.invitationInvalid }));
        return sendPage(reply, 200, signInPage(ctx, redeemed.email, '/', { notice: ctx.t.passwordSet }));
      }
    }
    return sendPage(reply, error === undefined ? 200 : 422, layout(ctx, ctx.t.invitationTitle, html`
      <p>${fill(ctx.t.invitationFor, { name: user.name })}</p>
      <form method="post" action="${INVITATION_PATH}${token}" class="card narrow">
        ${csrfField(ctx)}
        <input type="text" name="username" autocomplete="username" value="${user.email}" hidden>
        ${newPasswordFields(ctx.t, error)}
        <button type="submit" class="primary">${ctx.t.setPassword}</button>
      </form>`));
  };
  web.get(`${INVITATION_PATH}:token`, invitationPage);
  web.post(`${INVITATION_PATH}:token`, invitationPage);
}
