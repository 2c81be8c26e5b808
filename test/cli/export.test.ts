// `timegate export`: an account's entries as CSV or XLSX from the command line, as a separate
// process on a seeded database: to stdout or a file, filtered, never with another account's rows,
// and every wrong command line refused in one line with a non-zero exit.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneLineError, timegate } from '../helpers/cli.js';
import type { Run } from '../helpers/cli.js';
import { testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';

interface Seeded {
  accountId: number;
  inserted: number;
}

describe.each(testDatabases)('timegate export on $name', (kind) => {
  let place: TestDatabasePlace;
  let folder: string;
  let first: Seeded;
  let second: Seeded;
  let secondIds: Set<string>;

  beforeAll(async () => {
    place = await kind.create();
    folder = await mkdtemp(join(tmpdir(), 'timegate-export-'));
    const seed = async () => {
      const run = await timegate(['seed', '--entries', '3000', '--db', place.url]);
      expect(run.code).toBe(0);
      return JSON.parse(run.stdout) as Seeded;
    };
    first = await seed();
    second = await seed();
    const all = await timegate(['export', '--account', String(second.accountId), '--db', place.url]);
    secondIds = new Set((parse(all.stdout, { delimiter: ';', bom: true }) as string[][]).slice(1).map((row) => row[0] as string));
  }, 120_000);
  afterAll(async () => {
    await place?.dispose();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const exportRun = (...args: string[]) => timegate(['export', ...args, '--db', place.url]);

  it('writes every entry of the account to stdout as German CSV, nothing of the other account, and the progress to stderr', async () => {
    const run = await exportRun('--account', String(first.accountId));
    expect(run.code).toBe(0);
    const [header, ...rows] = parse(run.stdout, { delimiter: ';', bom: true }) as string[][];
    expect(run.stdout.startsWith('\uFEFFID;Datum;Beginn;Ende;Sekunden;Stunden;Mitarbeiter')).toBe(true);
    expect(header).toContain('Umsatz (EUR)');
    expect(rows).toHaveLength(first.inserted);
    expect(secondIds.size).toBe(second.inserted);
    expect(rows.some((row) => secondIds.has(row[0] as string))).toBe(false);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('[##############################] 3,000 / 3,000');
  }, 60_000);

  it('writes an XLSX file with --out and prints one JSON line', async () => {
    const file = join(folder, 'zeiten.xlsx');
    const run = await exportRun('--account', String(first.accountId), '--format', 'xlsx', '--out', file, '--language', 'en');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ accountId: first.accountId, entries: first.inserted, format: 'xlsx', out: file, seconds: expect.any(Number) });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
    const sheet = workbook.worksheets[0];
    expect(sheet?.name).toBe('Time entries');
    expect(sheet?.rowCount).toBe(first.inserted + 1);
    expect(sheet?.getRow(1).getCell(2).value).toBe('Date');
  }, 60_000);

  it('filters by days, employee and billable, with `,` and English headers', async () => {
    const all = parse((await exportRun('--account', String(first.accountId), '--delimiter', ',', '--language', 'en')).stdout, { delimiter: ',', bom: true }) as string[][];
    const [header, ...rows] = all;
    const day = header?.indexOf('Date') ?? -1;
    const email = header?.indexOf('Email') ?? -1;
    const billable = header?.indexOf('Billable') ?? -1;
    const days = [...new Set(rows.map((row) => row[day] as string))].sort();
    const from = days[Math.floor(days.length / 3)] as string;
    const to = days[Math.floor((2 * days.length) / 3)] as string;
    const someone = rows[0]?.[email] as string;
    const listUsers = await timegate(['admin', 'list-users', '--account', String(first.accountId), '--db', place.url]);
    const userId = (JSON.parse(listUsers.stdout) as { users: Array<{ userId: number; email: string }> }).users.find((u) => u.email === someone)?.userId;

    const run = await exportRun('--account', String(first.accountId), '--from', from, '--to', to, '--user', String(userId), '--billable', 'false',
      '--delimiter', ',', '--language', 'en');
    expect(run.code).toBe(0);
    const filtered = (parse(run.stdout, { delimiter: ',', bom: true }) as string[][]).slice(1);
    const expected = rows.filter((row) => (row[day] as string) >= from && (row[day] as string) <= to && row[email] === someone && row[billable] === 'no');
    expect(expected.length).toBeGreaterThan(0);
    expect(filtered).toEqual(expected);
  }, 60_000);

  it('refuses wrong command lines with exit 2 and a failing export with exit 1, in one line, leaving no partial file', async () => {
    const account = String(first.accountId);
    const usage: Array<[string[], string]> = [
      [[], 'missing --account'],
      [['--account', 'eins'], '--account must be a whole number'],
      [['--account', account, '--from', '2026-02-30'], "--from must be a date YYYY-MM-DD, not '2026-02-30'"],
      [['--account', account, '--from', '2026-03-02', '--to', '2026-03-01'], 'from (2026-03-02) is after to (2026-03-01)'],
      [['--account', account, '--format', 'pdf'], "--format must be 'csv' or 'xlsx', not 'pdf'"],
      [['--account', account, '--delimiter', '|'], "--delimiter must be ';' or ',', not '|'"],
      [['--account', account, '--user', '1 or 1=1'], '--user must be a positive whole number'],
      [['--account', account, '--billable', 'vielleicht'], '--billable must be true or false'],
      [['--account', account, '--bogus', 'x'], "Unknown option '--bogus'"],
    ];
    // Each run is a process; side by side they take a few seconds instead of a half-minute.
    const runs = await Promise.all(usage.map(([args]) => exportRun(...args)));
    usage.forEach(([args, message], i) => expect(expectOneLineError(runs[i] as Run, 2, 'export'), args.join(' ')).toContain(message));
    expect(expectOneLineError(await exportRun('--account', '999999'), 1, 'export')).toContain('no account 999999');
    const missingFolder = join(folder, 'no-such-folder', 'x.csv');
    expect(expectOneLineError(await exportRun('--account', account, '--out', missingFolder), 1, 'export')).toContain('ENOENT');
    await expect(stat(missingFolder)).rejects.toThrow();
  }, 120_000);

  it('writes the same CSV to a file as to stdout', async () => {
    const file = join(folder, 'zeiten.csv');
    const toFile = await exportRun('--account', String(first.accountId), '--to', '2026-06-30', '--out', file);
    const toStdout = await exportRun('--account', String(first.accountId), '--to', '2026-06-30');
    expect(toFile.code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(toStdout.stdout);
  }, 60_000);
});
