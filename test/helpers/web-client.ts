// A browser-like client of the web interface over real HTTP: keeps cookies, reads the CSRF token
// from the last page, posts forms (application/x-www-form-urlencoded) without following
// redirects, so a test sees every status and Location.
import { createInvitation } from '../../service/accounts/invitations.js';
import type { DatabaseHandle } from '../../service/storage/database.js';

export interface WebAnswer {
  readonly status: number;
  readonly location: string | null;
  readonly headers: Headers;
  readonly text: string;
}

export interface WebDownload {
  readonly status: number;
  readonly type: string | null;
  readonly disposition: string | null;
  readonly bytes: Buffer;
}

export class WebClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page that had a form. */
  csrf = '';

  constructor(readonly origin: string, private readonly address?: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private async answer(response: Response): Promise<WebAnswer> {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token !== undefined) this.csrf = token;
    return { status: response.status, location: response.headers.get('location'), headers: response.headers, text };
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      cookie: this.cookieHeader(), 'accept-language': 'de-DE,de;q=0.9',
      ...(this.address === undefined ? {} : { 'x-forwarded-for': this.address }), ...extra,
    };
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<WebAnswer> {
    return this.answer(await fetch(`${this.origin}${path}`, { redirect: 'manual', headers: this.headers(headers) }));
  }

  /** Posts the form with the current CSRF token unless `_csrf` is given (or null: none). */
  async post(path: string, form: Record<string, string | null> = {}, headers: Record<string, string> = {}): Promise<WebAnswer> {
    const body = new URLSearchParams();
    const fields: Record<string, string | null> = { _csrf: this.csrf, ...form };
    for (const [name, value] of Object.entries(fields)) if (value !== null) body.set(name, value);
    return this.answer(await fetch(`${this.origin}${path}`, {
      method: 'POST', redirect: 'manual', body,
      headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded', ...headers }),
    }));
  }

  async signIn(email: string, password: string): Promise<WebAnswer> {
    await this.get('/sign-in');
    return this.post('/sign-in', { email, password });
  }

  /** Fetches a file with this client's cookies alone (no other header), as the bytes sent. */
  async download(path: string): Promise<WebDownload> {
    const response = await fetch(`${this.origin}${path}`, { headers: { cookie: this.cookieHeader() }, redirect: 'manual' });
    return {
      status: response.status, type: response.headers.get('content-type'),
      disposition: response.headers.get('content-disposition'), bytes: Buffer.from(await response.arrayBuffer()),
    };
  }
}

/**
 * The row version a page's form (by its action) carries in its hidden `version` field, as a
 * browser would post it back; undefined when the page has no such form or field.
 */
export function formVersion(page: string, action: string): string | undefined {
  const at = page.indexOf(`action="${action}"`);
  if (at === -1) return undefined;
  const form = page.slice(at, page.indexOf('</form>', at));
  return /name="version" value="(\d+)"/.exec(form)?.[1];
}

/** Gives the user a password through a real invitation; a client signed in as them. */
export async function signedInClient(origin: string, database: DatabaseHandle, userId: number, email: string, password = 'ein-sicheres-passwort'): Promise<WebClient> {
  const { token } = await createInvitation(database.db, userId);
  const client = new WebClient(origin);
  await client.get(`/invitation/${token}`);
  const set = await client.post(`/invitation/${token}`, { password, repeat: password });
  if (set.status !== 200) throw new Error(`setting the password answered ${set.status}`);
  const signedIn = await client.signIn(email, password);
  if (signedIn.status !== 303) throw new Error(`signing in answered ${signedIn.status}`);
  return client;
}
