// A real time-tracking service on loopback for HTTP-level suites: a fresh database place (SQLite
// file or PostgreSQL schema), the demo account seeded, the Fastify server listening on a free
// port. close() stops the server and removes the place.
import type { FastifyInstance } from 'fastify';
import type { DemoUser } from '../../service/accounts/demo-seed.js';
import { seedDemoAccount } from '../../service/accounts/demo-seed.js';
import type { ServiceConfig } from '../../service/config.js';
import { DEFAULT_SERVICE_CONFIG, SERVICE_ROOT_PATH } from '../../service/config.js';
import { buildService } from '../../service/server.js';
import type { DatabaseHandle } from '../../service/storage/database.js';
import type { TestDatabaseKind, TestDatabasePlace } from './databases.js';

export interface AnsweredRequest {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  /** The request headers as the service received them (to prove what a gateway forwarded). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface TestService {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** `http://127.0.0.1:<port>/V1/Api.svc` */
  readonly root: string;
  readonly database: DatabaseHandle;
  readonly place: TestDatabasePlace;
  readonly app: FastifyInstance;
  /** The demo account's users: Alex (admin), Jana and Tom (standard users; Tom's stopwatch runs). */
  readonly admin: DemoUser;
  readonly jana: DemoUser;
  readonly tom: DemoUser;
  readonly accountId: number;
  /** Requests the service has received so far (to prove a gateway did not forward one). */
  readonly requestCount: () => number;
  /** The requests answered so far, in order, with their status. */
  readonly answered: () => readonly AnsweredRequest[];
  close(): Promise<void>;
}

/** The demo data is relative to this instant, so suites see the same data on every run. */
export const DEMO_NOW = Date.UTC(2026, 10, 20, 15, 30, 0);

export interface TestServiceOptions {
  /**
   * The demo account's time zone. The demo seed gives it Europe/Berlin; suites default to UTC, so
   * that what they post is what the database holds, and the suites about zones set theirs.
   */
  readonly timeZone?: string;
}

export async function startTestService(kind: TestDatabaseKind, config: Partial<ServiceConfig> = {}, options: TestServiceOptions = {}): Promise<TestService> {
  const place = await kind.create();
  try {
    const database = await place.open();
    const seeded = await seedDemoAccount(database.db, DEMO_NOW);
    if (!seeded.created) throw new Error('the test database already had an account');
    await database.db.updateTable('account_settings').set({ time_zone: options.timeZone ?? 'UTC' })
      .where('account_id', '=', seeded.accountId as number).execute();
    const app = buildService({ ...DEFAULT_SERVICE_CONFIG, authCacheTtlMs: 0, ...config, port: 0 }, database, { logger: false });
    let requests = 0;
    const answered: AnsweredRequest[] = [];
    app.addHook('onRequest', async () => {
      requests++;
    });
    app.addHook('onResponse', async (request, reply) => {
      answered.push({ method: request.method, url: request.url, status: reply.statusCode, headers: { ...request.headers } });
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const origin = `http://127.0.0.1:${address.port}`;
    const [admin, jana, tom] = seeded.users as [DemoUser, DemoUser, DemoUser];
    return {
      origin,
      root: `${origin}${SERVICE_ROOT_PATH}`,
      database,
      place,
      app,
      admin,
      jana,
      tom,
      accountId: seeded.accountId,
      requestCount: () => requests,
      answered: () => answered,
      async close() {
        await app.close();
        await place.dispose();
      },
    };
  } catch (error) {
    await place.dispose();
    throw error;
  }
}
