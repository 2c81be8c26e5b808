// `timegate gateway` as separate processes sharing one Redis, as replicas run behind a load
// balancer: for the suites that prove invalidation and rate limits hold across instances. The
// cache, limit and Redis settings are given as the command's own flags, so the flags are proven
// with them.
import type { ChildProcess } from 'node:child_process';
import { startTimegateProcess } from './timegate-process.js';

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
export async function startGatewayProcess(upstreamRoot: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<GatewayProcess> {
  const { ready, child, logs, exited } = await startTimegateProcess('gateway', ['--upstream', upstreamRoot, ...args], {
    // No load shedding unless a suite asks: a busy CI machine delays the event loop past its
    // threshold, and a 503 "overloaded" is then the answer to whatever the suite asserts.
    env: { TIMEGATE_RESILIENCE__LOAD_SHEDDING__MAX_EVENT_LOOP_DELAY_MS: '0', ...env },
    timeoutMs: STARTUP_TIMEOUT_MS,
    listening: (fields) => (fields.rest === undefined ? undefined : { restRoot: fields.rest as string, admin: fields.admin as string | undefined }),
  });
  const origin = new URL(ready.restRoot).origin;
  return {
    origin,
    restRoot: ready.restRoot,
    odataRoot: `${origin}/V1/Api.svc`,
    adminOrigin: ready.admin,
    child,
    logs,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
