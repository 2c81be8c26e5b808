// The web interface's door, attacked over real HTTP: invitations (one-time, expiring, not for
// inactive users), signing in (no user enumeration by answer or timing, throttled per account and
// per address), session cookies and their flags, CSRF on every form, and sessions that end when
// the user is deactivated or the password changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createUser } from '../../service/accounts/account-admin.js';
import { createInvitation } from '../../service/accounts/invitations.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import { WebClient, signedInClient } from '../helpers/web-client.js';

const PASSWORD = 'ein-sicheres-passwort';

describe.each(testDatabases)('web sign-in on $name', (kind) => {
  let t: TestService;

  beforeAll(async () => {
    // Behind a proxy (the gateway) the service believes X-Forwarded-*: the address limit and
    // the Secure flag under TLS follow them.
    t = await startTestService(kind, { trustProxy: true });
  }, 60_000);
  afterAll(() => t?.close());

  const newUser = async (email: string) => (await createUser(t.database.db, { accountId: t.accountId, email, firstName: 'Neu', lastName: 'Person', role: 'user' })).userId;

  it('an invited user sets a password once and signs in; the cookie is HttpOnly, SameSite=Lax, not Secure on plain HTTP', async () => {
    const userId = await newUser('eins@demo.example');
    const { token } = await createInvitation(t.database.db, userId);
    const client = new WebClient(t.origin);
    const page = await client.get(`/invitation/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Neu Person');
    expect((await client.post(`/invitation/${token}`, { password: 'kurz', repeat: 'kurz' })).text).toContain('mindestens 10 Zeichen');
    expect((await client.post(`/invitation/${token}`, { password: PASSWORD, repeat: 'etwas-anderes-1' })).text).toContain('stimmen nicht überein');
    expect((await client.post(`/invitation/${token}`, { password: PASSWORD, repeat: PASSWORD })).status).toBe(200);
    // One time only.
    const again = await client.post(`/invitation/${token}`, { password: 'noch-ein-passwort', repeat: 'noch-ein-passwort' });
    expect(again.status).toBe(404);
    expect(again.text).toContain('ungültig, abgelaufen oder wurde bereits verwendet');

    await client.get('/sign-in');
    const signIn = await client.post('/sign-in', { email: 'EINS@demo.example', password: PASSWORD });
    expect(signIn.status).toBe(303);
    expect(signIn.location).toBe('/stopwatch');
    const cookie = signIn.headers.getSetCookie().find((line) => line.startsWith('tg_session='));
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).not.toMatch(/; Secure/);
    expect((await client.get('/timesheet')).status).toBe(200);
  });

  it('sets the Secure flag when the request came over TLS', async () => {
    const userId = await newUser('tls@demo.example');
    await signedInClient(t.origin, t.database, userId, 'tls@demo.example');
    const client = new WebClient(t.origin);
    await client.get('/sign-in', { 'x-forwarded-proto': 'https' });
    const answer = await client.post('/sign-in', { email: 'tls@demo.example', password: 'ein-sicheres-passwort' }, { 'x-forwarded-proto': 'https' });
    expect(answer.status).toBe(303);
    expect(answer.headers.getSetCookie().find((line) => line.startsWith('tg_session='))).toMatch(/; Secure/);
  });

  it('an expired invitation, an unknown token and an inactive user\'s invitation let nobody in', async () => {
    const userId = await newUser('alt@demo.example');
    const expired = await createInvitation(t.database.db, userId, Date.now() - 8 * 86_400_000);
    const client = new WebClient(t.origin);
    for (const token of [expired.token, 'x'.repeat(43), '%00', 'a'.repeat(5000)]) {
      const answer = await client.get(`/invitation/${encodeURIComponent(token)}`);
      expect([404, 414]).toContain(answer.status);
    }
    const fresh = await createInvitation(t.database.db, userId);
    const older = await createInvitation(t.database.db, userId);
    // A new invitation voids the older one.
    expect((await client.get(`/invitation/${fresh.token}`)).status).toBe(404);
    await t.database.db.updateTable('users').set({ active: 0 }).where('id', '=', userId).execute();
    expect((await client.get(`/invitation/${older.token}`)).status).toBe(404);
    await client.get('/sign-in');
    expect((await client.post(`/invitation/${older.token}`, { password: PASSWORD, repeat: PASSWORD })).status).toBe(404);
  });

  it('answers an unknown email exactly as a wrong password, in about the same time', async () => {
    const userId = await newUser('zeit@demo.example');
    await signedInClient(t.origin, t.database, userId, 'zeit@demo.example');
    const attempt = async (email: string) => {
      const client = new WebClient(t.origin, `10.9.0.${email.length}`);
      await client.get('/sign-in');
      const started = performance.now();
      const answer = await client.post('/sign-in', { email, password: 'falsches-passwort' });
      return { ms: performance.now() - started, status: answer.status, page: answer.text.replace(/value="[^"]*"/g, '') };
    };
    const wrong = [];
    const unknown = [];
    for (let i = 0; i < 4; i++) {
      wrong.push(await attempt('zeit@demo.example'));
      unknown.push(await attempt('niemand@demo.example'));
    }
    expect(new Set([...wrong, ...unknown].map((a) => a.status))).toEqual(new Set([401]));
    expect(unknown[0]?.page).toBe(wrong[0]?.page);
    expect(wrong[0]?.page).toContain('E-Mail oder Passwort ist falsch.');
    // The password is the field to type again: it opens focused, the address kept as typed.
    expect(wrong[0]?.page).toMatch(/<input id="password" name="password" type="password"[^>]* aria-invalid="true" autofocus>/);
    expect(wrong[0]?.page.match(/autofocus/g)).toHaveLength(1);
    // Both derive one scrypt key (tens of ms); without the decoy an unknown email would answer
    // in about one ms. The margin leaves room for a loaded machine.
    const median = (list: { ms: number }[]) => list.map((a) => a.ms).sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
    expect(median(unknown)).toBeGreaterThan(median(wrong) * 0.4);
    expect(median(wrong)).toBeGreaterThan(median(unknown) * 0.4);
  }, 60_000);

  it('throttles 20 wrong passwords in a row for one account, even with the right one after them, and not another account', async () => {
    const userId = await newUser('ziel@demo.example');
    await signedInClient(t.origin, t.database, userId, 'ziel@demo.example');
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      // From ever new addresses: the account's own limit must hold on its own.
      const client = new WebClient(t.origin, `10.1.${i}.1`);
      await client.get('/sign-in');
      statuses.push((await client.post('/sign-in', { email: 'ziel@demo.example', password: `rate-${i}-falsch` })).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(10).fill(429));
    const right = new WebClient(t.origin, '10.2.0.1');
    await right.get('/sign-in');
    const locked = await right.post('/sign-in', { email: 'ziel@demo.example', password: PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.text).toContain('Zu viele Anmeldeversuche');
    expect(locked.headers.get('retry-after')).toBe('900');

    const otherId = await newUser('andere@demo.example');
    await signedInClient(t.origin, t.database, otherId, 'andere@demo.example');
  }, 60_000);

  it('throttles one address trying many accounts', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 52; i++) {
      const client = new WebClient(t.origin, '10.3.0.7');
      await client.get('/sign-in');
      statuses.push((await client.post('/sign-in', { email: `probe${i}@demo.example`, password: 'falsches-passwort' })).status);
    }
    expect(statuses.slice(0, 50).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(50)).toEqual([429, 429]);
  }, 120_000);

  it('counts the address the proxy saw, not one the client forged in front of it in X-Forwarded-For', async () => {
    // A proxy appends the address it saw to what the client sent: `forged, real`. Only the last
    // entry is the proxy's word; the first is whatever the attacker typed.
    const statuses: number[] = [];
    for (let i = 0; i < 52; i++) {
      const client = new WebClient(t.origin, `203.0.113.${i}, 10.3.0.8`);
      await client.get('/sign-in');
      statuses.push((await client.post('/sign-in', { email: `forged${i}@demo.example`, password: 'falsches-passwort' })).status);
    }
    expect(statuses.slice(0, 50).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(50)).toEqual([429, 429]);
  }, 120_000);

  it('refuses every form post without the CSRF token, or with another session\'s, and changes nothing', async () => {
    const userId = await newUser('csrf@demo.example');
    const client = await signedInClient(t.origin, t.database, userId, 'csrf@demo.example');
    const other = await signedInClient(t.origin, t.database, await newUser('csrf2@demo.example'), 'csrf2@demo.example');
    await client.get('/stopwatch');
    const forms: Array<[string, Record<string, string>]> = [
      ['/stopwatch/start', { project: '1' }], ['/stopwatch/halt', {}], ['/timesheet/new', { date: '2026-11-20', start: '09:00', end: '10:00', project: '1' }],
      ['/profile/keys', {}], ['/profile/keys/revoke-all', {}], ['/sign-out', {}],
    ];
    for (const [path, form] of forms) {
      expect((await client.post(path, { ...form, _csrf: null })).status).toBe(403);
      expect((await client.post(path, { ...form, _csrf: other.csrf })).status).toBe(403);
      expect((await client.post(path, { ...form, _csrf: '' })).status).toBe(403);
    }
    const refused = await client.post('/stopwatch/start', { project: '1', _csrf: null });
    expect(refused.text).toContain('Das Formular ist abgelaufen');
    const entries = await t.database.db.selectFrom('time_entries').select('id').where('user_id', '=', userId).execute();
    expect(entries).toEqual([]);
    const keys = await t.database.db.selectFrom('api_keys').select('id').where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
    expect(keys).toHaveLength(1);
    // Still signed in: the refused sign-out did nothing.
    expect((await client.get('/timesheet')).status).toBe(200);
    // Signing in needs the pre-session token too (no login CSRF).
    const fresh = new WebClient(t.origin);
    expect((await fresh.post('/sign-in', { email: 'csrf@demo.example', password: PASSWORD, _csrf: 'a'.repeat(43) })).status).toBe(403);
  });

  it('a deactivated user\'s session stops working and they cannot sign in again', async () => {
    const userId = await newUser('weg@demo.example');
    const client = await signedInClient(t.origin, t.database, userId, 'weg@demo.example');
    expect((await client.get('/timesheet')).status).toBe(200);
    await t.database.db.updateTable('users').set({ active: 0 }).where('id', '=', userId).execute();
    const after = await client.get('/timesheet');
    expect(after.status).toBe(303);
    expect(after.location).toMatch(/^\/sign-in/);
    expect((await client.post('/stopwatch/start', { project: '1' })).status).toBe(403);
    expect((await client.signIn('weg@demo.example', PASSWORD)).status).toBe(401);
  });

  it('changing the password ends the other sessions, keeps this one, and the old password stops working', async () => {
    const userId = await newUser('wechsel@demo.example');
    const first = await signedInClient(t.origin, t.database, userId, 'wechsel@demo.example');
    const second = new WebClient(t.origin);
    expect((await second.signIn('wechsel@demo.example', PASSWORD)).status).toBe(303);
    await first.get('/profile');
    const wrong = await first.post('/profile/password', { current: 'nicht-das-alte', password: 'neues-passwort-1', repeat: 'neues-passwort-1' });
    expect(wrong.status).toBe(422);
    expect(wrong.text).toContain('Das bisherige Passwort ist falsch.');
    const changed = await first.post('/profile/password', { current: PASSWORD, password: 'neues-passwort-1', repeat: 'neues-passwort-1' });
    expect(changed.status).toBe(303);
    expect((await first.get('/profile')).status).toBe(200);
    expect((await second.get('/profile')).status).toBe(303);
    expect((await new WebClient(t.origin).signIn('wechsel@demo.example', PASSWORD)).status).toBe(401);
    expect((await new WebClient(t.origin).signIn('wechsel@demo.example', 'neues-passwort-1')).status).toBe(303);
  });

  it('signing out ends the session on the server, not only in the browser', async () => {
    const userId = await newUser('aus@demo.example');
    const client = await signedInClient(t.origin, t.database, userId, 'aus@demo.example');
    const token = client.cookies.get('tg_session') as string;
    await client.get('/profile');
    expect((await client.post('/sign-out')).location).toBe('/sign-in?signed-out=1');
    const replay = new WebClient(t.origin);
    replay.cookies.set('tg_session', token);
    expect((await replay.get('/profile')).status).toBe(303);
  });

  it('pages carry a CSP allowing only our own scripts and styles; the OData API answers as before', async () => {
    const page = await new WebClient(t.origin).get('/sign-in');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    // The page's icon is ours, served from the same origin (no 404 in the browser's console).
    const icon = /<link rel="icon" href="(\/assets\/[\w.-]+)" type="image\/svg\+xml">/.exec(page.text)?.[1];
    expect(icon).toBeDefined();
    const iconAnswer = await fetch(`${t.origin}${icon as string}`);
    expect(iconAnswer.status).toBe(200);
    expect(iconAnswer.headers.get('content-type')).toBe('image/svg+xml');
    expect(await iconAnswer.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>[\s\S]*<\/svg>\s*$/);
    const api = await fetch(`${t.root}/Projects?$format=json`, { headers: { 'x-serviceapikey': t.jana.apiKey } });
    expect(api.status).toBe(200);
    expect(api.headers.get('content-security-policy')).toBeNull();
  });

  it('speaks English when the browser asks for it, and switches by the language link', async () => {
    const client = new WebClient(t.origin);
    expect((await client.get('/sign-in', { 'accept-language': 'en-US,en;q=0.9,de;q=0.5' })).text).toContain('<html lang="en">');
    expect((await client.get('/sign-in', { 'accept-language': 'fr-FR' })).text).toContain('<html lang="de">');
    const switched = await client.get('/lang/en?back=%2Fsign-in');
    expect(switched.location).toBe('/sign-in');
    expect((await client.get('/sign-in')).text).toContain('<title>Sign in · timegate</title>');
    // The way back never leads off the site.
    expect((await client.get('/lang/de?back=%2F%2Fevil.example')).location).toBe('/');
    expect((await client.get('/lang/de?back=https%3A%2F%2Fevil.example')).location).toBe('/');
  });

  it('users of another account with the same email are separate people', async () => {
    const other = await createAccount(t.database.db, { name: 'Andere AG', adminEmail: 'gleich@demo.example' });
    const mine = await newUser('gleich@demo.example');
    await signedInClient(t.origin, t.database, other.userId, 'gleich@demo.example', 'passwort-der-anderen');
    await signedInClient(t.origin, t.database, mine, 'gleich@demo.example', 'passwort-von-hier-1');
    const client = new WebClient(t.origin);
    expect((await client.signIn('gleich@demo.example', 'passwort-von-hier-1')).status).toBe(303);
    expect((await client.get('/profile')).text).toContain('Neu Person');
  });

  it('answers hostile requests to the pages with a 4xx page, never a 5xx or an echo of markup', async () => {
    const userId = await newUser('feind@demo.example');
    const client = await signedInClient(t.origin, t.database, userId, 'feind@demo.example');
    await client.get('/timesheet');
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const form = 'application/x-www-form-urlencoded';
    const cases: Array<[string, string, Record<string, string>, string | undefined]> = [
      ['POST', '/sign-in', { 'content-type': 'application/json' }, '{"email":"a","password":"b"}'],
      ['POST', '/sign-in', { 'content-type': 'multipart/mixed; boundary=x' }, '--x--'],
      ['POST', '/sign-in', { 'content-type': form }, '%zz=%&_csrf=%E0%A4%A'],
      ['POST', '/sign-in', { 'content-type': form }, `email=${'a'.repeat(70_000)}`],
      ['POST', '/timesheet/new', { 'content-type': form, cookie }, `_csrf=${client.csrf}&_csrf=${client.csrf}&date=2026-11-18&date=x&project=1&project=2`],
      ['POST', '/timesheet/new', { 'content-type': form, cookie }, `_csrf=${client.csrf}&date=2026-11-18&kind=1&duration=999:59&project=1`],
      ['POST', '/stopwatch/start', { 'content-type': form, cookie }, `_csrf=${client.csrf}&project=99999999999999999999&task=-1&comment=%00`],
      ['POST', '/stopwatch/start', { 'content-type': form, cookie }, `_csrf=${client.csrf}&project=1&comment=a%00b%EF%BF%BE`],
      ['POST', '/timesheet/new', { 'content-type': form, cookie }, `_csrf=${client.csrf}&date=2026-11-18&kind=2&start=08:00&end=09:00&project=1&comment=a%00b`],
      ['GET', '/timesheet?week=<script>alert(1)</script>', { cookie }, undefined],
      ['GET', '/timesheet?week=2026-11-18&week=2026-11-25', { cookie }, undefined],
      ['GET', '/timesheet/new?date=%3Cscript%3E', { cookie }, undefined],
      ['GET', '/lang/xx?back=javascript:alert(1)', {}, undefined],
      ['GET', '/profile', { cookie: `tg_session=${'%'.repeat(200)}; tg_lang=<x>` }, undefined],
      ['GET', '/assets/..%2f..%2fpackage.json', {}, undefined],
      ['GET', '/invitation/%E0%A4%A', {}, undefined],
    ];
    for (const [method, path, headers, body] of cases) {
      const response = await fetch(`${t.origin}${path}`, { method, headers, body, redirect: 'manual' });
      const text = await response.text();
      expect(response.status, `${method} ${path}`).toBeLessThan(500);
      expect(text, `${method} ${path}`).not.toContain('<script>');
    }
    // What the hostile posts could have stored is a valid entry or nothing.
    const stored = await t.database.db.selectFrom('time_entries').select(['start_time', 'end_time']).where('user_id', '=', userId).execute();
    for (const row of stored) expect(row.end_time ?? row.start_time).toBeGreaterThanOrEqual(row.start_time);
  });
});
