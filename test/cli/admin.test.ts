// `timegate admin`: accounts, users and keys from the command line, one JSON line per action;
// the keys it prints work against the service at once, and revoked ones stop working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { WebClient } from '../helpers/web-client.js';
import type { TestDatabasePlace } from '../helpers/databases.js';
import { adminJson, expectOneLineError, timegate } from '../helpers/cli.js';
import { startServiceProcess } from '../helpers/service-process.js';
import type { ServiceProcess } from '../helpers/service-process.js';

/** The service trusts a checked key this long: a revoked key fails at most this much later. */
const AUTH_CACHE_TTL_MS = 500;

async function statusWithin(ms: number, request: () => Promise<Response>, wanted: number): Promise<Response> {
  const deadline = Date.now() + ms;
  for (;;) {
    const response = await request();
    if (response.status === wanted || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(testDatabases)('timegate admin on $name', (kind) => {
  let place: TestDatabasePlace;
  let service: ServiceProcess;

  beforeAll(async () => {
    place = await kind.create();
    service = await startServiceProcess(['--db', place.url, '--auth-cache-ttl', String(AUTH_CACHE_TTL_MS)]);
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await place?.dispose();
  });

  const admin = (...args: string[]) => adminJson(place.url, ...args);
  const projects = (key: string) => fetch(`${service.root}/Projects?$format=json`, { headers: { 'x-serviceapikey': key } });

  it('creates an account and a user whose keys work, issues and revokes keys', async () => {
    const account = await admin('create-account', '--name', 'Kommandozeile AG', '--admin-email', 'chefin@kz.example');
    expect(account).toEqual({ accountId: expect.any(Number), settingsId: expect.any(Number), userId: expect.any(Number), apiKey: expect.stringMatching(/^tg_[\w-]{43}$/) });
    expect((await projects(account.apiKey as string)).status).toBe(200);

    const user = await admin('create-user', '--account', String(account.accountId), '--email', 'max@kz.example',
      '--first-name', 'Max', '--last-name', 'Muster', '--role', 'user');
    expect(user).toEqual({
      userId: expect.any(Number), apiKey: expect.stringMatching(/^tg_/),
      invitationUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4004\/invitation\/[\w-]{43}$/), invitationExpiresAt: expect.any(String),
    });
    const users = await fetch(`${service.root}/Users?$format=json`, { headers: { 'x-serviceapikey': user.apiKey as string } });
    const rows = ((await users.json()) as { d: { results: Array<{ Email: string; AccessRights: number }> } }).d.results;
    expect(rows.map((u) => [u.Email, u.AccessRights])).toEqual([['chefin@kz.example', 20], ['max@kz.example', 10]]);

    const second = await admin('new-key', '--user', String(user.userId));
    expect((await projects(second.apiKey as string)).status).toBe(200);
    expect(await admin('revoke-key', '--user', String(user.userId))).toEqual({ revoked: 2 });
    for (const key of [user.apiKey, second.apiKey] as string[]) {
      const refused = await statusWithin(AUTH_CACHE_TTL_MS + 1000, () => projects(key), 401);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    }
    expect((await projects(account.apiKey as string)).status).toBe(200);
  }, 60_000);

  it('invites a user to the web interface, resets the password with a new link, deactivates and activates', async () => {
    const web = service.root.replace('/V1/Api.svc', '');
    const account = await admin('create-account', '--name', 'Einladung AG', '--admin-email', 'chef@einladung.example');
    const user = await admin('create-user', '--account', String(account.accountId), '--email', 'neu@einladung.example',
      '--first-name', 'Nele', '--last-name', 'Neu', '--role', 'user', '--web-url', `${web}/`);
    const link = user.invitationUrl as string;
    expect(link.startsWith(`${web}/invitation/`)).toBe(true);
    expect(Date.parse(user.invitationExpiresAt as string) - Date.now()).toBeGreaterThan(6 * 86_400_000);
    const browser = new WebClient(web);
    const path = link.slice(web.length);
    expect((await browser.get(path)).text).toContain('Nele Neu');
    expect((await browser.post(path, { password: 'erstes-passwort', repeat: 'erstes-passwort' })).status).toBe(200);
    expect((await new WebClient(web).signIn('neu@einladung.example', 'erstes-passwort')).status).toBe(303);

    const reset = await admin('reset-password', '--user', String(user.userId), '--web-url', web);
    expect(reset.userId).toBe(user.userId);
    expect((await new WebClient(web).signIn('neu@einladung.example', 'erstes-passwort')).status).toBe(401);
    const again = new WebClient(web);
    const newPath = (reset.invitationUrl as string).slice(web.length);
    expect((await again.get(newPath)).status).toBe(200);
    expect((await again.post(newPath, { password: 'zweites-passwort', repeat: 'zweites-passwort' })).status).toBe(200);
    const signedIn = new WebClient(web);
    expect((await signedIn.signIn('neu@einladung.example', 'zweites-passwort')).status).toBe(303);

    expect(await admin('deactivate-user', '--user', String(user.userId))).toEqual({ userId: user.userId, active: false });
    expect((await signedIn.get('/timesheet')).status).toBe(303);
    expect((await new WebClient(web).signIn('neu@einladung.example', 'zweites-passwort')).status).toBe(401);
    expect((await statusWithin(AUTH_CACHE_TTL_MS + 1000, () => projects(user.apiKey as string), 401)).status).toBe(401);
    expect(await admin('activate-user', '--user', String(user.userId))).toEqual({ userId: user.userId, active: true });
    expect((await new WebClient(web).signIn('neu@einladung.example', 'zweites-passwort')).status).toBe(303);
    expect(expectOneLineError(await timegate(['admin', 'reset-password', '--user', '1', '--web-url', 'javascript:alert(1)', '--db', place.url]), 2, 'admin')).toContain('--web-url must be');
  }, 60_000);

  it('creates an account in the time zone given, whose settings say so', async () => {
    const account = await admin('create-account', '--name', 'Ostküste Inc', '--admin-email', 'boss@east.example', '--time-zone', 'America/New_York');
    const settings = await fetch(`${service.root}/AccountSettings?$format=json`, { headers: { 'x-serviceapikey': account.apiKey as string } });
    expect(((await settings.json()) as { d: { results: Array<{ TimeZone: string }> } }).d.results[0]?.TimeZone).toBe('America/New_York');
    expect(expectOneLineError(await timegate(['admin', 'create-account', '--name', 'X', '--admin-email', 'x@x.example',
      // The settings' rule and German message, shared with the web pages (account-settings-rules.ts).
      '--time-zone', 'Mars/Olympus', '--db', place.url]), 1, 'admin')).toContain('TimeZone "Mars/Olympus" ist keine bekannte IANA-Zeitzone');
  }, 60_000);

  it('refuses wrong command lines and unknown users in one line, without a stack trace', async () => {
    expect(expectOneLineError(await timegate(['admin', 'create-user', '--account', '1', '--email', 'a@b.example',
      '--first-name', 'A', '--last-name', 'B', '--role', 'boss', '--db', place.url]), 2, 'admin')).toContain('--role must be admin or user');
    expect(expectOneLineError(await timegate(['admin', 'frobnicate', '--db', place.url]), 2, 'admin')).toContain("unknown action 'frobnicate'");
    expect(expectOneLineError(await timegate(['admin', 'new-key', '--db', place.url]), 2, 'admin')).toContain('missing --user');
    expect(expectOneLineError(await timegate(['admin', 'new-key', '--user', '999999', '--db', place.url]), 1, 'admin')).toContain('no user 999999');
  }, 60_000);
});
