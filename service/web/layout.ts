// The frame of every page: the document, the header with navigation, language switch and sign
// out, a skip link and one <main>. Pages give their title and body; forms take csrfField().
import { Html, html } from './html.js';
import type { Lang, Texts } from './i18n.js';
import { LANGUAGES } from './i18n.js';
import type { WebSession } from './sessions.js';

/** What every page handler knows about the request it answers. */
export interface PageContext {
  readonly lang: Lang;
  readonly t: Texts;
  /** The signed-in user's session, if any. */
  readonly session: WebSession | undefined;
  /** The token the page's forms carry (the session's, or the pre-session cookie's). */
  readonly csrfToken: string;
  /** The path of this page (for the language switch to return to). */
  readonly path: string;
}

export function csrfField(ctx: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrfToken}">`;
}

const NAV = [['/stopwatch', 'stopwatch'], ['/timesheet', 'timesheet'], ['/reports', 'reports'], ['/profile', 'profile']] as const;
/** Administrators see one more link; standard users never see it (and get 404 behind it). */
const ADMIN_NAV = [['/admin', 'admin']] as const;

export interface PageOptions {
  readonly scripts?: readonly string[];
  /** A notice shown above the page's body (role=status). */
  readonly notice?: string | undefined;
  /** An error shown above the page's body (role=alert). */
  readonly error?: string | undefined;
}

export function layout(ctx: PageContext, title: string, body: Html, options: PageOptions = {}): string {
  const { t, session } = ctx;
  const here = ctx.path.split('?', 1)[0] ?? '/';
  const nav = session === undefined ? html`` : html`
    <nav aria-label="${t.nav}"><ul>
      ${[...NAV, ...(session.caller.isAdmin ? ADMIN_NAV : [])].map(([href, key]) => html`<li><a href="${href}"${here.startsWith(href) ? html` aria-current="page"` : html``}>${t[key]}</a></li>`)}
    </ul></nav>`;
  const languages = html`<ul class="languages" aria-label="${t.language}">${LANGUAGES.map((lang) => lang === ctx.lang
    ? html`<li><span aria-current="true" lang="${lang}">${lang.toUpperCase()}</span></li>`
    : html`<li><a href="/lang/${lang}?back=${encodeURIComponent(ctx.path)}" lang="${lang}" hreflang="${lang}">${lang.toUpperCase()}</a></li>`)}</ul>`;
  const signOut = session === undefined ? html`` : html`
    <form method="post" action="/sign-out" class="sign-out">${csrfField(ctx)}
      <span class="who">${session.user.name}</span> <button type="submit">${t.signOut}</button>
    </form>`;
  const document = html`<!doctype html>
<html lang="${ctx.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${t.appName}</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/app.css">
${(options.scripts ?? []).map((src) => html`<script type="module" src="${src}"></script>`)}
</head>
<body>
<a class="skip" href="#main">${t.skip}</a>
<header>
  <a class="brand" href="/">${t.appName}</a>
  ${nav}
  <div class="tools">${languages}${signOut}</div>
</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${options.notice === undefined ? html`` : html`<p class="notice" role="status">${options.notice}</p>`}
${options.error === undefined ? html`` : html`<p class="error" role="alert">${options.error}</p>`}
${focusFirstInvalid(body)}
</main>
</body>
</html>`;
  return document.text;
}

/**
 * A form sent back with errors opens with the first field at fault focused (and scrolled to), so
 * the keyboard and the screen reader start where the fix is, without a script. User text is
 * escaped (`"` is `&quot;`), so only a control's own attribute can match.
 */
function focusFirstInvalid(body: Html): Html {
  return new Html(body.text.replace(' aria-invalid="true"', ' aria-invalid="true" autofocus'));
}

/** A labelled form field with its error message beside it (aria-describedby). */
export function field(id: string, label: string, control: Html, error: string | undefined, hint?: string): Html {
  return html`<div class="field${error === undefined ? '' : ' invalid'}">
    <label for="${id}">${label}</label>
    ${control}
    ${hint === undefined ? html`` : html`<p class="hint" id="${id}-hint">${hint}</p>`}
    ${error === undefined ? html`` : html`<p class="field-error" id="${id}-error">${error}</p>`}
  </div>`;
}

/** aria attributes of a control for its hint and error. */
export function described(id: string, error: string | undefined, hint = false): Html {
  const ids = [hint ? `${id}-hint` : '', error === undefined ? '' : `${id}-error`].filter((part) => part !== '').join(' ');
  return html`${ids === '' ? '' : html` aria-describedby="${ids}"`}${error === undefined ? '' : html` aria-invalid="true"`}`;
}
