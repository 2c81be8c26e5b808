// `npm start` (`timegate start`): first run creates the database and the demo account, starts the
// gateway in front of the service and prints the URLs and keys; the keys work on both faces; a
// second run prints the same keys from demo-keys.json; the service runs on every core.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebClient } from '../helpers/web-client.js';

interface Started {
  readonly banner: string;
  readonly pid: number;
  stop(): Promise<number | null>;
}

/** Runs `timegate start` until its banner has been printed. */
function start(db: string): Promise<Started> {
  const child = spawn(process.execPath, ['bin/timegate.js', 'start', '--db', db, '--port', '0', '--gateway-port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let banner = '';
    void exited.then((code) => reject(new Error(`timegate start exited with ${code}:\n${banner}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      banner += `${line}\n`;
      if (line.startsWith('Stop with Ctrl+C')) {
        resolve({ banner, pid: child.pid as number, stop: () => (child.kill('SIGINT'), exited) });
      }
    });
  });
}

describe('timegate start', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'timegate-start-'));
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('prints the service and gateway URLs and three demo keys that work on both, and the same keys on the next run', async () => {
    const db = join(folder, 'data', 'demo.sqlite');
    const first = await start(db);
    const root = /OData V2 service\s+(\S+)/.exec(first.banner)?.[1] as string;
    const keys = [...first.banner.matchAll(/\s(tg_[\w-]{43})$/gm)].map((m) => m[1] as string);
    expect(root).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/V1\/Api\.svc$/);
    expect(keys).toHaveLength(3);
    expect(first.banner).toContain('Alex Berger (admin');
    const restRoot = /REST gateway\s+(\S+)/.exec(first.banner)?.[1] as string;
    const openapiUrl = /OpenAPI\s+(\S+)/.exec(first.banner)?.[1] as string;
    const docsUrl = /API docs\s+(\S+)/.exec(first.banner)?.[1] as string;
    expect(restRoot).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(openapiUrl).toBe(restRoot.replace('/api/v1', '/openapi.json'));
    expect(docsUrl).toBe(restRoot.replace('/api/v1', '/docs'));
    for (const key of keys) {
      const response = await fetch(`${root}/Projects?$format=json`, { headers: { 'x-serviceapikey': key } });
      expect(response.status).toBe(200);
      const odata = (await response.json()) as { d: { results: { ID: number; Name: string }[] } };
      const rest = await fetch(`${restRoot}/projects?orderBy=id`, { headers: { 'x-serviceapikey': key } });
      expect(rest.status).toBe(200);
      const page = (await rest.json()) as { items: { id: number; name: string }[] };
      // The gateway shows each key the same projects the service does, in REST names.
      expect(page.items.map((p) => [p.id, p.name]).sort()).toEqual(odata.d.results.map((p) => [p.ID, p.Name]).sort());
    }
    const document = (await (await fetch(openapiUrl)).json()) as { openapi: string };
    expect(document.openapi).toBe('3.1.0');
    expect((await fetch(docsUrl)).status).toBe(200);
    // The web interface, with the demo employee's printed sign-in and bookings to show.
    const web = /Web interface\s+(\S+)/.exec(first.banner)?.[1] as string;
    expect(web).toBe(root.replace('/V1/Api.svc', '/'));
    const [, email, password] = /sign in as (\S+), password (\S+)/.exec(first.banner) as unknown as [string, string, string];
    const browser = new WebClient(web.slice(0, -1));
    expect((await browser.signIn(email, password)).status).toBe(303);
    const week = await browser.get('/timesheet');
    const previous = /href="([^"]+)" rel="prev"/.exec(week.text)?.[1] as string;
    expect((await browser.get(previous)).text).toMatch(/data-entry="\d+"/);
    // The service runs as one worker per core (--workers auto), the gateway in the process itself.
    const cores = availableParallelism();
    const workers = readFileSync(`/proc/${first.pid}/task/${first.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    expect(workers).toHaveLength(cores > 1 ? cores : 0);
    expect(await first.stop()).toBe(0);
    expect(workers.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
    expect((await stat(join(folder, 'data', 'demo-keys.json'))).mode & 0o777).toBe(0o600);

    const second = await start(db);
    expect([...second.banner.matchAll(/\s(tg_[\w-]{43})$/gm)].map((m) => m[1])).toEqual(keys);
    expect(await second.stop()).toBe(0);
  }, 120_000);
});
