// Two gateway instances on one Redis in front of one service, the first reaching Redis through a
// relay that can stall its connections (test/helpers/stalling-link.ts), and the requests the
// stall suites send through them: for the suites of a stalled subscription and of stalled main
// connections.
import type { RunningGateway } from '../../gateway/start.js';
import { testDatabases } from '../helpers/databases.js';
import type { GatewayOptions } from '../helpers/gateway.js';
import { startGatewayInFront } from '../helpers/gateway.js';
import type { TestService } from '../helpers/service.js';
import { startTestService } from '../helpers/service.js';
import type { StallingLink } from '../helpers/stalling-link.js';
import { startStallingLink } from '../helpers/stalling-link.js';
import { REDIS_URL, uniqueKeyPrefix } from './cache-fixture.js';

export interface StalledPair {
  readonly service: TestService;
  readonly link: StallingLink;
  /** The instance behind the relay. */
  readonly stalled: RunningGateway;
  /** The instance that reaches Redis directly. */
  readonly other: RunningGateway;
  /** The demo administrator's key header. */
  readonly admin: Record<string, string>;
  close(): Promise<void>;
}

/** What a GET through an instance answered, and how long it took. */
export interface Answer {
  readonly status: number;
  readonly cache: string | null;
  readonly rateLimit: string | null;
  readonly comment: string | undefined;
  readonly ms: number;
}

/** Both instances with `config` (the Redis URL and a fresh key prefix filled in); `logs` gets the stalled one's. */
export async function startStalledPair(config: NonNullable<GatewayOptions['config']>, logs?: NodeJS.WritableStream): Promise<StalledPair> {
  const service = await startTestService(testDatabases[0] as (typeof testDatabases)[number]);
  const redis = new URL(REDIS_URL);
  const link = await startStallingLink({ host: redis.hostname, port: Number(redis.port || 6379) });
  const linked = new URL(REDIS_URL);
  linked.host = link.host;
  const keyPrefix = uniqueKeyPrefix();
  const on = (url: string) => ({ ...config, redis: { url, keyPrefix } });
  const [stalled, other] = await Promise.all([
    startGatewayInFront(service.root, { config: on(linked.href), ...(logs === undefined ? {} : { logs }) }),
    startGatewayInFront(service.root, { config: on(REDIS_URL) }),
  ]);
  return {
    service,
    link,
    stalled,
    other,
    admin: { 'X-ServiceApiKey': service.admin.apiKey },
    async close() {
      link.resume();
      await Promise.all([stalled.close(), other.close()]);
      await link.close();
      await service.close();
    },
  };
}

export async function readThrough(gateway: RunningGateway, path: string, headers: Record<string, string>): Promise<Answer> {
  const started = performance.now();
  const answer = await fetch(`${gateway.restRoot}${path}`, { headers });
  const body = (await answer.json()) as { comment?: string };
  return {
    status: answer.status,
    cache: answer.headers.get('x-cache'),
    rateLimit: answer.headers.get('ratelimit'),
    comment: body.comment,
    ms: performance.now() - started,
  };
}

/** PATCHes the `comment` of the entity at `path` through `gateway`; its status. */
export async function patchComment(gateway: RunningGateway, path: string, comment: string, headers: Record<string, string>): Promise<number> {
  const patch = await fetch(`${gateway.restRoot}${path}`, {
    method: 'PATCH',
    headers: { ...headers, 'Content-Type': 'application/merge-patch+json' },
    body: JSON.stringify({ comment }),
  });
  await patch.arrayBuffer();
  return patch.status;
}
