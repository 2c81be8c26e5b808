// A replay of the GrandTotal time-import plugin for the original service (mediaatelier/
// GrandTotal-Plugins, "Time Importer/LogMyTime"): its five GETs as it sends them (its key header,
// `Accept: application/json`, the time-entry filter with `orderby` lacking its `$`), then its
// arithmetic on `StartTime`, run where it runs, on a machine whose clock is in Berlin: it makes a
// Date of the `\/Date(ms)\/` number, moves it by the machine's own UTC offset and prints the local
// time with that offset. Its start dates match the stopwatch's wall clock only when the service
// writes the account's wall-clock time (issue 25): 22:32 for a stopwatch started at 22:32 in Berlin.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { ODataClient, expectStatus } from '../helpers/odata-client.js';
import { demoCatalogue } from '../helpers/odata-payloads.js';
import { startTestService } from '../helpers/service.js';
import type { TestService } from '../helpers/service.js';

interface PluginEntry {
  readonly ID: number;
  readonly StartTime: string;
  readonly DurationSeconds: number;
  readonly RevenuePerHour: string | null;
  readonly ProjectID: number;
}

/**
 * The plugin's date arithmetic, in a process whose local zone is the user's (`TZ`): `new Date(ms)`
 * from the text without its slashes, plus the machine's offset in hours at the moment it runs
 * (`now`), printed as local time with the local offset.
 */
const PLUGIN_DATES = `
const [starts, now] = JSON.parse(process.argv[1]);
const pad = (n) => String(Math.abs(Math.floor(n))).padStart(2, '0');
const iso = (d) => { const tzo = -d.getTimezoneOffset();
  return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + 'T' + pad(d.getHours()) + ':' +
    pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + (tzo >= 0 ? '+' : '-') + pad(tzo / 60) + ':' + pad(tzo % 60); };
const offsetHours = new Date(now).getTimezoneOffset() / 60;
const ms = (text) => Number(/^Date\\((-?\\d+)\\)$/.exec(text.replace(/[/]/g, ''))[1]);
process.stdout.write(JSON.stringify(starts.map((s) => iso(new Date(ms(s) + offsetHours * 3600000)))));
`;

function pluginStartDates(starts: readonly string[], now: string, timeZone: string): string[] {
  const run = spawnSync(process.execPath, ['-e', PLUGIN_DATES, JSON.stringify([starts, now])], { env: { ...process.env, TZ: timeZone }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as string[];
}

describe.each(testDatabases)('the GrandTotal import plugin against the service on $name', (kind) => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(kind, { apiKeyHeaderAliases: ['X-LogMyTimeApiKey'] }, { timeZone: 'Europe/Berlin' });
  });

  afterAll(() => service?.close());

  it('imports a stopwatch started at 22:32:51 in Berlin as starting at 22:32:51+01:00', async () => {
    const demo = await demoCatalogue(service);
    const jana = new ODataClient(service.root, service.jana.apiKey);
    vi.useFakeTimers({ toFake: ['Date'] });
    let id: number;
    try {
      vi.setSystemTime(new Date('2026-11-20T21:32:51Z'));
      const started = await jana.get(`/StartStopWatch?ProjectID=${demo.projects.websiteRelaunch}&Billable=True`, { format: 'json' });
      expectStatus(started, 200);
      id = (JSON.parse(started.text) as { d: { ID: number } }).d.ID;
      vi.setSystemTime(new Date('2026-11-20T23:02:51Z'));
      expectStatus(await jana.get('/HaltStopWatch'), 200);
    } finally {
      vi.useRealTimers();
    }

    // The plugin's five requests, in its order, with its headers.
    const get = async (path: string) => {
      const response = await fetch(`${service.root}${path}`, { headers: { 'X-LogMyTimeApiKey': service.jana.apiKey, accept: 'application/json' } });
      expect(response.status, path).toBe(200);
      return ((await response.json()) as { d: { results: unknown[] } }).d.results;
    };
    const clients = await get('/Clients');
    const projects = await get('/Projects');
    const users = await get('/Users');
    const tasks = await get('/Tasks');
    const entries = (await get('/TimeEntries?$filter=Billable eq true&orderby=StartTime desc')) as PluginEntry[];
    expect([clients.length, projects.length, users.length, tasks.length].every((n) => n > 0)).toBe(true);

    const entry = entries.find((e) => e.ID === id);
    expect(entry).toBeDefined();
    const [startDate] = pluginStartDates([entry?.StartTime as string], '2026-11-20T23:02:51Z', 'Europe/Berlin');
    expect(startDate).toBe('2026-11-20T22:32:51+01:00');
    // minutes and cost as it computes them: 90 minutes at 95 an hour.
    const minutes = Math.round((entry?.DurationSeconds as number) / 60);
    expect([minutes, Number(entry?.RevenuePerHour) * (minutes / 60)]).toEqual([90, 142.5]);

    // Every imported start is the wall clock the service wrote, in winter and in summer alike
    // (the plugin moves all by the offset of the moment it runs, so it is run in November).
    const wallClock = (e: PluginEntry) => Number(/-?\d+/.exec(e.StartTime)?.[0]);
    const winter = entries.filter((e) => wallClock(e) >= Date.UTC(2026, 9, 25, 3)).slice(0, 8);
    expect(winter.length).toBeGreaterThan(3);
    const shown = pluginStartDates(winter.map((e) => e.StartTime), '2026-11-20T23:02:51Z', 'Europe/Berlin');
    expect(shown).toEqual(winter.map((e) => `${new Date(wallClock(e)).toISOString().slice(0, 19)}+01:00`));
  });
});
