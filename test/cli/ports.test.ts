// A port another program holds: each command stops in one line that names the option moving it,
// instead of a stack trace or a bare EADDRINUSE.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneLineError, timegate } from '../helpers/cli.js';

describe('a port in use', () => {
  let holder: Server;
  let taken: number;
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'timegate-ports-'));
    holder = createServer();
    // The programs listen on 127.0.0.1 by default: hold the same address.
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    taken = (holder.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => holder.close(resolve));
    await rm(folder, { recursive: true, force: true });
  });

  it('timegate service names --port', async () => {
    const run = await timegate(['service', '--port', String(taken), '--db', join(folder, 'service.sqlite')]);
    expect(expectOneLineError(run, 1, 'service')).toBe(`timegate service: port ${taken} is already in use: choose another with --port`);
  }, 30_000);

  it('timegate gateway names --port and --admin-port', async () => {
    const upstream = ['--upstream', 'http://127.0.0.1:9/V1/Api.svc'];
    const port = await timegate(['gateway', ...upstream, '--port', String(taken)]);
    expect(expectOneLineError(port, 1, 'gateway')).toBe(`timegate gateway: port ${taken} is already in use: choose another with --port`);
    const admin = await timegate(['gateway', ...upstream, '--port', '0', '--admin-port', String(taken)]);
    expect(expectOneLineError(admin, 1, 'gateway')).toBe(`timegate gateway: port ${taken} is already in use: choose another with --admin-port`);
  }, 30_000);

  it('timegate start names --port for the service and --gateway-port for the gateway', async () => {
    const db = join(folder, 'start.sqlite');
    const service = await timegate(['start', '--db', db, '--port', String(taken), '--gateway-port', '0']);
    expect(expectOneLineError(service, 1, 'start')).toBe(`timegate start: port ${taken} is already in use: choose another with --port`);
    const gateway = await timegate(['start', '--db', db, '--port', '0', '--gateway-port', String(taken)]);
    expect(expectOneLineError(gateway, 1, 'start')).toBe(`timegate start: port ${taken} is already in use: choose another with --gateway-port`);
  }, 120_000);
});
