// `npm start` (`timegate start`): first run creates the database and the demo account, starts the
// gateway in front of the service and prints the URLs and keys; the keys work on both faces; a
// second run prints the same keys from demo-keys.json; the service runs on every core.
import { execFileSync, spawn } from 'node:child_process';
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
  /**
   * Ctrl+C in a terminal sends SIGINT to every process of the group; this makes the order that
   * loses the race for certain: the workers first, the primary 300 ms later.
   */
  interrupt(): Promise<number | null>;
  /** What it printed on stderr. */
  readonly errors: () => string;
}

function childrenOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
}

/** Runs `timegate start` until its banner has been printed. */
function start(db: string): Promise<Started> {
  // Its own process group, as a shell gives a foreground job.
  const child = spawn(process.execPath, ['bin/timegate.js', 'start', '--db', db, '--port', '0', '--gateway-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
    process.stderr.write(chunk);
  });
  return new Promise((resolve, reject) => {
    let banner = '';
    void exited.then((code) => reject(new Error(`timegate start exited with ${code}:\n${banner}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      banner += `${line}\n`;
      if (line.startsWith('Stop with Ctrl+C')) {
        resolve({
          banner,
          pid: child.pid as number,
          stop: () => (child.kill('SIGINT'), exited),
          interrupt: async () => {
            for (const worker of childrenOf(child.pid as number)) process.kill(Number(worker), 'SIGINT');
            await new Promise((wait) => setTimeout(wait, 300));
            child.kill('SIGINT');
            return exited;
          },
          errors: () => errors,
        });
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
    // The administrator's too, so the administration can be tried.
    const [, adminEmail, adminPassword] = /or, as administrator, (\S+), password (\S+)/.exec(first.banner) as unknown as [string, string, string];
    const admin = new WebClient(web.slice(0, -1));
    expect((await admin.signIn(adminEmail, adminPassword)).status).toBe(303);
    expect((await admin.get('/admin/employees')).status).toBe(200);
    // The service runs as one worker per core (--workers auto), the gateway in the process itself.
    const cores = availableParallelism();
    const workers = childrenOf(first.pid);
    expect(workers).toHaveLength(cores > 1 ? cores : 0);
    expect(await first.stop()).toBe(0);
    expect(workers.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
    expect((await stat(join(folder, 'data', 'demo-keys.json'))).mode & 0o777).toBe(0o600);

    const second = await start(db);
    expect([...second.banner.matchAll(/\s(tg_[\w-]{43})$/gm)].map((m) => m[1])).toEqual(keys);
    expect(await second.stop()).toBe(0);
  }, 120_000);

  // Found by hand: the terminal's SIGINT reached the workers, which finished and exited cleanly
  // while the primary was still closing the gateway; the primary took that for a crash and
  // started new workers (once on Node 24, they outlived it and kept the port).
  it('stops whole on Ctrl+C in a terminal: no worker restarted, none left, the port free', async () => {
    const started = await start(join(folder, 'data', 'interrupt.sqlite'));
    const root = /OData V2 service\s+(\S+)/.exec(started.banner)?.[1] as string;
    expect(await started.interrupt()).toBe(0);
    expect(started.errors()).not.toMatch(/worker died/);
    const group = execFileSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' }).split('\n').map((line) => line.trim().split(/\s+/));
    expect(group.filter(([, pgid]) => pgid === String(started.pid))).toEqual([]);
    await expect(fetch(`${root}/$metadata`)).rejects.toThrow();
  }, 60_000);
});
