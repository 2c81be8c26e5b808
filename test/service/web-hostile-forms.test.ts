// The web interface attacked with what a browser never sends but a script can: fields repeated
// or sent where one value is expected, and redirect targets (`back`, `next`) that hold characters
// no Location header can carry, and a body that trickles in to hold a connection (slowloris).
// Each gets a page or a redirect on this site, never a 500, and no connection is held for ever.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../service/accounts/account-admin.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import { WebClient, signedInClient } from '../helpers/web-client.js';

/** Posts a form whose fields may repeat (the WebClient sends each name once). */
async function postRepeated(client: WebClient, path: string, fields: Array<[string, string]>) {
  const body = new URLSearchParams([['_csrf', client.csrf], ...fields]);
  const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return fetch(`${client.origin}${path}`, {
    method: 'POST', redirect: 'manual', body, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'de' },
  });
}

describe.each(testDatabases)('hostile web forms on $name', (kind) => {
  let t: TestService;
  let jana: WebClient;

  beforeAll(async () => {
    // A short deadline for a whole request, so the slow body below does not keep the suite waiting.
    t = await startTestService(kind, { requestTimeoutMs: 1_500 });
    jana = await signedInClient(t.origin, t.database, t.jana.userId, t.jana.email);
  }, 60_000);
  afterAll(() => t?.close());

  it('a stopwatch start with every field repeated starts on the first of each, as every other form reads them', async () => {
    await jana.get('/stopwatch');
    const started = await postRepeated(jana, '/stopwatch/start', [
      ['project', '1'], ['project', '3'], ['task', '2'], ['task', '1'], ['comment', 'erster'], ['comment', 'zweiter'], ['billable', '1'], ['billable', '0'],
    ]);
    expect(started.status).toBe(303);
    const page = await jana.get('/stopwatch');
    expect(page.text).toContain('Website-Relaunch');
    expect(page.text).toContain('erster');
    expect(page.text).not.toContain('zweiter');
    await jana.post('/stopwatch/halt');
  });

  it('a stopwatch start sent as JSON with arrays and objects is refused with a page, never a 500', async () => {
    await jana.get('/stopwatch');
    const cookie = [...jana.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    for (const body of [{ project: ['1', '2'] }, { project: '1', comment: { a: 1 } }, { project: 1, task: [] }]) {
      const answer = await fetch(`${t.origin}/stopwatch/start`, {
        method: 'POST', redirect: 'manual', body: JSON.stringify({ _csrf: jana.csrf, ...body }), headers: { cookie, 'content-type': 'application/json' },
      });
      expect(answer.status, JSON.stringify(body)).toBeLessThan(500);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    }
  });

  it('a way back or onward that no Location header can carry leads to the start page, not to a 500', async () => {
    const anonymous = new WebClient(t.origin);
    // A euro sign and a non-character (decoded: beyond Latin-1), NUL, DEL, another control character.
    for (const target of ['%2F%E2%82%AC', '%2Fx%EF%BF%BE', '%2F%00', '%2F%7F', '%2Fa%1Bb']) {
      const back = await anonymous.get(`/lang/en?back=${target}`);
      expect(back.status, target).toBe(303);
      expect(back.location, target).toBe('/');
      const next = await jana.get(`/sign-in?next=${target}`);
      expect(next.status, target).toBe(303);
      expect(next.location, target).toBe('/stopwatch');
    }
    const client = new WebClient(t.origin);
    await client.get('/sign-in');
    const signIn = await client.post('/sign-in', { email: t.jana.email, password: 'ein-sicheres-passwort', next: '/€' });
    expect(signIn.status).toBe(303);
    expect(signIn.location).toBe('/stopwatch');
    // A way back that is a local path in plain ASCII still works, percent-encoding and all.
    expect((await anonymous.get('/lang/en?back=%2Freports%3Ffrom%3D2026-11-01%26x%3D%25E2%2582%25AC')).location).toBe('/reports?from=2026-11-01&x=%E2%82%AC');
  });

  it('a sign-in whose body trickles in a byte at a time is cut off with 408 at the request deadline', async () => {
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(t.origin).port), '127.0.0.1', () => {
        socket.write('POST /sign-in HTTP/1.1\r\nHost: timegate\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 60000\r\n\r\n');
      });
      const trickle = setInterval(() => socket.writable && socket.write('a'), 200);
      let received = '';
      socket.on('data', (chunk) => {
        received += String(chunk);
      });
      socket.on('close', () => {
        clearInterval(trickle);
        resolve(received);
      });
      socket.on('error', () => undefined);
      setTimeout(() => reject(new Error(`still open after 45 s: ${received}`)), 45_000).unref();
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    // The deadline, plus Node's check of open connections (at most every few seconds).
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 60_000);

  it('an employee, client, project or task of another account named in a filter is 404 on every list, report and download', async () => {
    const other = await createAccount(t.database.db, { name: 'Fremde GmbH', adminEmail: 'chefin@fremd.example' });
    const stranger = await signedInClient(t.origin, t.database, other.userId, 'chefin@fremd.example');
    const theirs = await createAccount(t.database.db, { name: 'Noch eine GmbH', adminEmail: 'chef@noch.example' });
    // The demo account's: Jana, its first client, project and task; the other account's own admin.
    const foreign = [`user=${t.jana.userId}`, 'client=1', 'project=1', 'task=1'];
    for (const filter of foreign) {
      for (const path of [`/admin/entries?${filter}`, `/admin/entries/export?format=csv&${filter}`, `/reports?${filter}`,
        `/reports/export?format=xlsx&${filter}`, `/reports/table?format=csv&${filter}`]) {
        const answer = await stranger.get(path);
        expect(answer.status, path).toBe(404);
        expect(answer.text, path).not.toContain('Schmidt');
      }
    }
    // A standard user naming another account's employee, or a project there is none of: the same.
    expect((await jana.get(`/reports?user=${theirs.userId}`)).status).toBe(404);
    expect((await jana.get(`/reports/export?format=csv&user=${t.jana.userId}&project=999999`)).status).toBe(404);
    expect((await jana.get('/reports/table?format=csv&task=999999')).status).toBe(404);
    // Their own employee is theirs to filter by.
    expect((await stranger.get(`/admin/entries?user=${other.userId}`)).status).toBe(200);
    expect((await stranger.get(`/reports/table?format=csv&user=${other.userId}`)).status).toBe(200);
    expect((await jana.get(`/reports?user=${t.jana.userId}&project=1`)).status).toBe(200);
  });
});
