// The web interface at the service's root: sign-in, the stopwatch, the timesheet, reports and the
// profile for employees, the administration pages (pages/admin*.ts) for administrators, server-rendered, on the same data source and rules as the OData API.
// Encapsulated: its cookies, form parser, security headers (CSP) and error pages apply to its
// own routes only; the OData service beside it is unchanged.
//
// Every request: the language (cookie or Accept-Language), the session (cookie -> database),
// and for every POST the CSRF token: the session's, or before sign-in the pre-session cookie's
// (so a foreign site cannot sign a browser in either). Cookies are HttpOnly, SameSite=Lax, and
// Secure when the request came over TLS.
import { timingSafeEqual } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { refusalText } from '../odata-server/error-texts.js';
import type { ReportDatabase } from '../reports/report-scope.js';
import type { Database } from '../storage/schema.js';
import { serveAssets } from './assets.js';
import type { Administration } from './administration.js';
import type { Bookings } from './bookings.js';
import { html } from './html.js';
import type { Html } from './html.js';
import { TEXTS, pickLanguage } from './i18n.js';
import { layout } from './layout.js';
import type { PageContext } from './layout.js';
import { registerAdministrationPages } from './pages/admin.js';
import { registerProfilePages } from './pages/profile.js';
import { registerReportPages } from './pages/reports.js';
import { registerSignInPages } from './pages/sign-in.js';
import { registerStopwatchPages } from './pages/stopwatch.js';
import { registerTimesheetPages } from './pages/timesheet.js';
import { newToken, sessionOf } from './sessions.js';
import { SignInThrottle } from './sign-in-throttle.js';
import type { ThrottleLimits } from './sign-in-throttle.js';

export const SESSION_COOKIE = 'tg_session';
const PRE_SESSION_COOKIE = 'tg_csrf';
const LANG_COOKIE = 'tg_lang';

export interface WebDependencies {
  readonly db: Kysely<Database>;
  readonly bookings: Bookings;
  readonly administration: Administration;
  /** The database as the reports module reads it (with its dialect). */
  readonly reports: ReportDatabase;
  readonly throttle: SignInThrottle;
}

export interface WebOptions {
  readonly db: Kysely<Database>;
  readonly bookings: Bookings;
  readonly administration: Administration;
  readonly reports: ReportDatabase;
  readonly throttleLimits?: ThrottleLimits;
}

declare module 'fastify' {
  interface FastifyRequest {
    page: PageContext;
  }
}

export function cookieOptions(request: FastifyRequest, maxAgeSeconds?: number) {
  return {
    path: '/', httpOnly: true, sameSite: 'lax' as const, secure: request.protocol === 'https',
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** A page that needs a signed-in user: the session, or a redirect to sign-in sent. */
export function signedIn(request: FastifyRequest, reply: FastifyReply): NonNullable<PageContext['session']> | undefined {
  const { session } = request.page;
  if (session === undefined) {
    void reply.redirect(`/sign-in?next=${encodeURIComponent(request.url)}`, 303);
    return undefined;
  }
  return session;
}

export function sendPage(reply: FastifyReply, status: number, document: string): FastifyReply {
  return reply.code(status).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(document);
}

export function registerWebInterface(app: FastifyInstance, options: WebOptions): void {
  const deps: WebDependencies = { db: options.db, bookings: options.bookings, administration: options.administration, reports: options.reports, throttle: new SignInThrottle(options.throttleLimits) };
  void app.register(async (web) => {
    await web.register(fastifyCookie);
    await web.register(fastifyFormbody, { bodyLimit: 64 * 1024 });
    await web.register(fastifyHelmet, {
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"], scriptSrc: ["'self'"], styleSrc: ["'self'"], imgSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"], formAction: ["'self'"], frameAncestors: ["'none'"], baseUri: ["'none'"], objectSrc: ["'none'"],
        },
      },
      // HSTS only means something under TLS; on plain HTTP it is ignored and only misleads.
      strictTransportSecurity: false,
    });
    web.decorateRequest('page', null as unknown as PageContext);

    web.addHook('preHandler', async (request, reply) => {
      const lang = pickLanguage(request.cookies[LANG_COOKIE], request.headers['accept-language']);
      const session = await sessionOf(options.db, request.cookies[SESSION_COOKIE]);
      let csrfToken = session?.csrfToken;
      if (csrfToken === undefined) {
        csrfToken = request.cookies[PRE_SESSION_COOKIE] ?? '';
        if (!/^[\w-]{43}$/.test(csrfToken)) {
          csrfToken = newToken();
          void reply.setCookie(PRE_SESSION_COOKIE, csrfToken, cookieOptions(request));
        }
      }
      request.page = { lang, t: TEXTS[lang], session, csrfToken, path: request.url };
      if (request.method === 'POST') {
        const given = (request.body as Record<string, unknown> | undefined)?._csrf;
        if (typeof given !== 'string' || !sameToken(given, csrfToken)) {
          return sendPage(reply, 403, layout(request.page, request.page.t.signIn, errorBody(), { error: request.page.t.csrf }));
        }
      }
      return undefined;
    });

    web.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
      request.log.error({ err: error }, 'web page failed');
      const status = error.statusCode ?? 500;
      const known = status >= 400 && status < 500;
      const page = request.page ?? { lang: 'de', t: TEXTS.de, session: undefined, csrfToken: '', path: '/' };
      return sendPage(reply, known ? status : 500, layout(page, known ? 'Error' : 'Fehler / Error', errorBody(), {
        error: known ? refusalText(error, page.lang) : 'Interner Fehler / Internal error',
      }));
    });

    web.get('/', async (request, reply) => reply.redirect(request.page.session === undefined ? '/sign-in' : '/stopwatch', 303));
    web.get('/lang/:lang', async (request, reply) => {
      const { lang } = request.params as { lang: string };
      const back = (request.query as { back?: string }).back;
      if (lang === 'de' || lang === 'en') void reply.setCookie(LANG_COOKIE, lang, cookieOptions(request, 365 * 86_400));
      return reply.redirect(safeLocalPath(back), 303);
    });
    serveAssets(web);
    registerSignInPages(web, deps);
    registerStopwatchPages(web, deps);
    registerTimesheetPages(web, deps);
    registerProfilePages(web, deps);
    registerReportPages(web, deps);
    registerAdministrationPages(web, deps);
  });
}

function errorBody(): Html {
  return html`<p><a href="/">timegate</a></p>`;
}

/**
 * A path on this site to go back to; anything else (another origin, `//host`) is `/`. Only
 * visible ASCII: a browser sends paths percent-encoded, and a Location header cannot carry a
 * control character or one beyond Latin-1 (Node refuses to write it: a 500).
 */
export function safeLocalPath(path: string | undefined): string {
  return typeof path === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(path) && path.length < 500 ? path : '/';
}
