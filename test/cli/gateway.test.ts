// `timegate gateway` as an operator runs it: options checked at start in one line, the REST face
// in front of the given upstream (the time-tracking service, the Northwind model from its codegen
// folder, or a SAP-flavoured EDMX read with --lenient, in front of another upstream), and a
// graceful stop on SIGTERM.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEdmxWithWarnings } from '../../codegen/edmx-reader.js';
import { model as northwind } from '../fixtures/northwind/generated/model.js';
import { expectOneLineError, timegate } from '../helpers/cli.js';
import { testDatabases } from '../helpers/databases.js';
import { startMemoryUpstream } from '../helpers/memory-data-source.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';

const SAP = 'test/fixtures/sap-gateway/sap-gateway.edmx';

interface GatewayChild {
  readonly restRoot: string;
  readonly logs: string[];
  /** What it wrote on stderr until it listened. */
  readonly stderr: string;
  stop(): Promise<number | null>;
}

/** Runs `timegate gateway` until it logs where it listens. */
function startGatewayProcess(args: readonly string[]): Promise<GatewayChild> {
  // Shedding load (a 503) is not what is tested, and these processes run on a busy machine.
  const env = { ...process.env, TIMEGATE_RESILIENCE__LOAD_SHEDDING__MAX_EVENT_LOOP_DELAY_MS: '0' };
  const child = spawn(process.execPath, ['bin/timegate.js', 'gateway', '--port', '0', '--log-level', 'info', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const logs: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    void exited.then((code) => reject(new Error(`timegate gateway exited with ${code}:\n${logs.join('\n')}\n${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      logs.push(line);
      const rest = (JSON.parse(line) as { rest?: string }).rest;
      if (rest !== undefined) resolve({ restRoot: rest, logs, stderr, stop: () => (child.kill('SIGTERM'), exited) });
    });
  });
}

describe('timegate gateway options', () => {
  it('refuses a missing upstream and bad values in one line', async () => {
    const [missing, scheme, format, model, help] = await Promise.all([
      timegate(['gateway'], { UPSTREAM_URL: '' }),
      timegate(['gateway', '--upstream', 'ftp://x/y']),
      timegate(['gateway', '--upstream', 'http://x/y', '--upstream-format', 'xml', '--port', '80']),
      timegate(['gateway', '--upstream', 'http://x/y', '--model', 'no/such/file.edmx']),
      timegate(['gateway', '--help']),
    ]);
    expect(expectOneLineError(missing, 2, 'gateway')).toContain('missing --upstream');
    expect(expectOneLineError(scheme, 2, 'gateway')).toContain('http(s) URL');
    expect(expectOneLineError(format, 2, 'gateway')).toContain('json, atom');
    expect(expectOneLineError(model, 1, 'gateway')).toContain('no/such/file.edmx');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--upstream-format');
  }, 120_000);
});

describe('timegate gateway in front of an upstream', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(testDatabases[0] as (typeof testDatabases)[number]);
  });
  afterAll(() => service?.close());

  it('serves the REST face of the time-tracking service over Atom, keeps keys out of its logs, and stops on SIGTERM', async () => {
    const gateway = await startGatewayProcess(['--upstream', service.root, '--upstream-format', 'atom']);
    const key = service.jana.apiKey;
    const response = await fetch(`${gateway.restRoot}/projects?orderBy=id&limit=2&ApiKey=${key}`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as { items: { id: number }[]; next: string | null };
    expect(page.items.map((p) => p.id)).toEqual([1, 2]);
    expect((await fetch(gateway.restRoot.replace('/api/v1', '/openapi.json'))).status).toBe(200);
    expect(await gateway.stop()).toBe(0);
    expect(gateway.logs.join('\n')).toContain('/api/v1/projects');
    expect(gateway.logs.join('\n')).not.toContain(key);
  }, 120_000);

  it('serves another model from its codegen folder (--model)', async () => {
    const upstream = await startMemoryUpstream(northwind, new Map([['Categories', [{ CategoryID: 7, CategoryName: 'Seafood', Description: null, Picture: null }]]]));
    const gateway = await startGatewayProcess(['--upstream', upstream.root, '--model', 'test/fixtures/northwind/generated']);
    try {
      const response = await fetch(`${gateway.restRoot}/categories/7`);
      expect(await response.json()).toEqual({ categoryId: 7, categoryName: 'Seafood', description: null, picture: null });
    } finally {
      expect(await gateway.stop()).toBe(0);
      await upstream.close();
    }
  }, 120_000);
});

describe('timegate gateway --model <edmx> --lenient', () => {
  it('refuses a SAP-flavoured $metadata with every problem; with --lenient warns of each skipped construct at start and serves the rest', async () => {
    const strict = await timegate(['gateway', '--upstream', 'http://127.0.0.1:1/odata', '--model', SAP]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/^timegate gateway: 5 problems \(--lenient skips what it does not support\):\n/);
    expect(strict.stderr).toContain('no Key element');
    expect(strict.stderr).not.toMatch(/^\s+at /m);

    const { model } = readEdmxWithWarnings(readFileSync(SAP, 'utf8'), { lenient: true });
    const order = { SalesOrderID: '4711', CustomerName: 'Müller GmbH', NetAmount: '1250.5', Currency: 'EUR', CreatedAt: new Date('2026-11-20T09:00:00Z') };
    const upstream = await startMemoryUpstream(model, new Map([['SalesOrderSet', [order]]]));
    const gateway = await startGatewayProcess(['--upstream', upstream.root, '--model', SAP, '--lenient']);
    try {
      const lines = gateway.stderr.split('\n').filter(Boolean);
      expect(lines.filter((line) => line.startsWith('timegate gateway: warning: '))).toHaveLength(10);
      expect(lines).toContain('timegate gateway: warning: skipped EntitySet SalesOrderNoteSet: EntityType ZSD_SALES_SRV.SalesOrderNote is not declared or was skipped');
      expect(lines.at(-1)).toBe('timegate gateway: 10 construct(s) skipped or mapped (--lenient)');

      const sets = model.entitySets.map((set) => set.restPath);
      const response = await fetch(`${gateway.restRoot}/${sets.find((path) => path.startsWith('sales-order-set')) ?? sets.join()}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ items: [{ salesOrderId: '4711', customerName: 'Müller GmbH', netAmount: '1250.50' }] });
      // Skipped: no route of its own.
      expect((await fetch(`${gateway.restRoot}/sales-order-note-set`)).status).toBe(404);
    } finally {
      expect(await gateway.stop()).toBe(0);
      await upstream.close();
    }
  }, 180_000);
});
