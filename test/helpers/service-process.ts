// `timegate service` as a separate process, as it runs in production: for tests of several
// service processes on one database (startTwoServiceProcesses), of signals and of graceful
// shutdown.
import type { ChildProcess } from 'node:child_process';
import { seedDemoAccount } from '../../service/accounts/demo-seed.js';
import type { DemoUser } from '../../service/accounts/demo-seed.js';
import type { DatabaseHandle } from '../../service/storage/database.js';
import type { TestDatabaseKind } from './databases.js';
import { startTimegateProcess } from './timegate-process.js';

export interface ServiceProcess {
  readonly root: string;
  readonly child: ChildProcess;
  /** Log lines printed so far (pino JSON). */
  readonly logs: string[];
  /** SIGTERM, and the exit code once it has stopped. */
  stop(): Promise<number | null>;
}

const STARTUP_TIMEOUT_MS = 30_000;

/** `timegate service --port 0 ...args`, with `env` over this process's environment, once it listens. */
export async function startServiceProcess(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
  const { ready: root, child, logs, exited } = await startTimegateProcess('service', args, {
    env, timeoutMs: STARTUP_TIMEOUT_MS, listening: (fields) => fields.root as string | undefined,
  });
  return {
    root,
    child,
    logs,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Two `timegate service` processes on one freshly seeded database (the demo account). */
export interface TwoServiceProcesses {
  readonly database: DatabaseHandle;
  /** The demo account's standard user. */
  readonly jana: DemoUser;
  /** Her project "Website-Relaunch". */
  readonly projectId: number;
  readonly processes: readonly [ServiceProcess, ServiceProcess];
  close(): Promise<void>;
}

export async function startTwoServiceProcesses(kind: TestDatabaseKind): Promise<TwoServiceProcesses> {
  const place = await kind.create();
  const database = await place.open();
  const seeded = await seedDemoAccount(database.db);
  if (!seeded.created) throw new Error('not seeded');
  const jana = seeded.users[1] as DemoUser;
  const projectId = (await database.db.selectFrom('projects').select('id').where('name', '=', 'Website-Relaunch').executeTakeFirstOrThrow()).id;
  const processes = await Promise.all([startServiceProcess(['--db', place.url]), startServiceProcess(['--db', place.url])]);
  return {
    database,
    jana,
    projectId,
    processes,
    close: async () => {
      await Promise.all(processes.map((p) => p.stop()));
      await place.dispose();
    },
  };
}
