// `timegate gateway` as separate processes sharing one Redis, as replicas run behind a load
// balancer: for the suites that prove invalidation and rate limits hold across instances. The
// cache, limit and Redis settings are given as the command's own flags, so the flags are proven
// with them.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface GatewayProcess {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly restRoot: string;
  readonly odataRoot: string;
  /** `http://127.0.0.1:<port>` of the admin listener, when `--admin-port` is given. */
  readonly adminOrigin: string | undefined;
  readonly child: ChildProcess;
  /** Log lines printed so far (pino JSON). */
  readonly logs: string[];
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 60_000;

/** `timegate gateway --upstream <upstreamRoot> --port 0 ...args`, with `env` over this process's environment, once it listens. */
export function startGatewayProcess(upstreamRoot: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['bin/timegate.js', 'gateway', '--upstream', upstreamRoot, '--port', '0', '--log-level', 'info', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const logs: string[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timegate gateway did not start in time:\n${stderr}`));
    }, STARTUP_TIMEOUT_MS);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`timegate gateway exited before listening:\n${stderr}\n${logs.join('\n')}`));
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      logs.push(line);
      const { rest: restRoot, admin } = listeningOf(line);
      if (restRoot === undefined) return;
      clearTimeout(timer);
      const origin = new URL(restRoot).origin;
      resolve({
        origin,
        restRoot,
        odataRoot: `${origin}/V1/Api.svc`,
        adminOrigin: admin,
        child,
        logs,
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

function listeningOf(line: string): { rest?: string; admin?: string } {
  try {
    return JSON.parse(line) as { rest?: string; admin?: string };
  } catch {
    return {};
  }
}
