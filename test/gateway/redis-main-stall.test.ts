// A gateway instance whose main connections to Redis stall (Redis paused for them, a half-open
// TCP link; new connections stall too while it lasts) while the other instance's work: the first
// command that times out marks them stalled, and from then on its requests answer without Redis
// at once (the cache as on a Redis outage, the limits not counted, as documented) instead of each
// waiting for the command timeout (1 s); the connections are replaced, and once a fresh one
// answers the cache hits and the shared limits count again. A write through it during the stall
// is never answered with the old copy there, and its invalidation reaches the other instance
// once its connection is back (gateway/cache/redis-connection.ts, redis-store.ts invalidate).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { RunningGateway } from '../../gateway/start.js';
import type { TestService } from '../helpers/service.js';
import type { StallingLink } from '../helpers/stalling-link.js';
import type { Answer, StalledPair } from './stalled-redis-pair.js';
import { patchComment as patchThrough, readThrough, startStalledPair } from './stalled-redis-pair.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const STOPWATCH_BUDGET = 6;

describe('two gateway instances on one Redis, the main connections of one of them stalled', () => {
  let pair: StalledPair;
  let service: TestService;
  let link: StallingLink;
  let stalled: RunningGateway;
  let other: RunningGateway;
  /** The `msg` of every line the stalled instance logged. */
  const logged: string[] = [];
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') logged.push((JSON.parse(line) as { msg: string }).msg);
      done();
    },
  });

  beforeAll(async () => {
    pair = await startStalledPair({
      logLevel: 'info',
      cache: { defaultTtlSeconds: 60 },
      // Every request is counted on Redis; the stopwatch's small budget shows when it runs out.
      rateLimit: { default: { limit: 100_000, windowSeconds: 60 }, byClass: { stopwatch: { limit: STOPWATCH_BUDGET, windowSeconds: 60 } } },
    }, logs);
    ({ service, link, stalled, other } = pair);
  });
  afterAll(() => pair?.close());

  const read = (gateway: RunningGateway, path: string, headers = pair.admin): Promise<Answer> => readThrough(gateway, path, headers);
  const patchComment = (gateway: RunningGateway, path: string, comment: string): Promise<number> => patchThrough(gateway, path, comment, pair.admin);

  /**
   * Waits until the stalled instance uses Redis again: an answer it stores is a hit for the other
   * instance, and its requests are counted. Returns how long that took.
   */
  async function recovery(): Promise<number> {
    const started = performance.now();
    for (let attempt = 0; performance.now() - started < 10_000; attempt++) {
      const path = `/projects?comment=probe-${Date.now()}-${attempt}`;
      const first = await read(stalled, path);
      if (first.rateLimit !== null && first.cache === 'MISS' && (await read(other, path)).cache === 'HIT') return performance.now() - started;
      await sleep(50);
    }
    throw new Error('the stalled instance did not use Redis again within 10 s of the stall ending');
  }

  // Each test starts from a healthy link, whatever the one before left behind.
  beforeEach(async () => {
    link.resume();
    await recovery();
  });

  test('after the first command times out, requests skip Redis at once: p95 under half the command timeout over a 2 s stall; then the cache is shared again', async () => {
    await read(stalled, '/projects/1');
    expect((await read(stalled, '/projects/1')).cache).toBe('HIT');

    link.stall('main');
    const times: number[] = [];
    try {
      // 2 s of requests after the first one that waited for the command timeout.
      let stalledSince: number | undefined;
      for (let i = 0; stalledSince === undefined || performance.now() - stalledSince < 2_000; i++) {
        // Hits from its copies, and misses that would read and fill the store.
        const answer = await read(stalled, i % 2 === 0 ? '/projects/1' : `/projects?comment=stalled-${Date.now()}-${i}`);
        expect(answer.status).toBe(200);
        if (stalledSince !== undefined) times.push(answer.ms);
        else if (answer.ms >= 900) stalledSince = performance.now();
        else expect(i, 'requests before one waits for the command timeout').toBeLessThan(100);
        await sleep(10);
      }
    } finally {
      link.resume();
    }
    times.sort((x, y) => x - y);
    // Before, each waited for the command timeout: 2 or 3 in 2 s. CI's busiest run, where this
    // process shares its loop with the service and the other instance, managed 17.
    expect(times.length, `requests after the first timed-out command: ${times.map(Math.round).join(', ')}`).toBeGreaterThanOrEqual(10);
    const p95 = times[Math.ceil(times.length * 0.95) - 1] as number;
    // Tens of ms on a quiet machine; the bound separates skipping Redis from waiting 1 s for it on
    // a CI machine under load too (the subscription's twin reached 310 ms there).
    expect(p95, `p95 of ${times.length} requests`).toBeLessThan(500);

    expect(await recovery(), 'ms from the end of the stall until Redis is used again').toBeLessThan(5_000);
    // One line each for the operator, however many connections failed in between.
    expect(logged.filter((msg) => msg.startsWith('Redis connection lost or stalled'))).toHaveLength(1);
    expect(logged.filter((msg) => msg.startsWith('Redis connection back'))).toHaveLength(1);
  }, 30_000);

  test('a write through it during the stall is read back there at once, and outdates the other instance once it is back', async () => {
    const path = '/projects/2';
    for (const gateway of [stalled, other]) {
      await read(gateway, path);
      expect((await read(gateway, path)).cache).toBe('HIT');
    }

    link.stall('main');
    const comment = `written during the stall ${Date.now()}`;
    try {
      expect(await patchComment(stalled, path, comment)).toBe(200);
      // Not its copy from before the write: its invalidation could not be sent.
      for (let i = 0; i < 5; i++) expect((await read(stalled, path)).comment).toBe(comment);
      await sleep(500);
    } finally {
      link.resume();
    }
    await recovery();
    expect((await read(other, path)).comment).toBe(comment);
    expect((await read(stalled, path)).comment).toBe(comment);
  }, 30_000);

  test('the shared limits count again after the stall: one budget across both instances, 429 on both once it is spent', async () => {
    const jana = { 'X-ServiceApiKey': service.jana.apiKey };
    const before = await read(stalled, '/stopwatch', jana);
    expect(before.rateLimit).toBe(`"stopwatch";r=${STOPWATCH_BUDGET - 1};t=60`);

    link.stall('main');
    try {
      const started = performance.now();
      while (performance.now() - started < 1_500) {
        // Not counted (documented: Redis away), but answered as before, and not refused.
        expect((await read(stalled, '/stopwatch', jana)).status).toBe(before.status);
        await sleep(50);
      }
    } finally {
      link.resume();
    }
    await recovery();

    // Counted on Redis again: each answer, through either instance, has one less left.
    const first = await read(stalled, '/stopwatch', jana);
    const left = Number(/^"stopwatch";r=(\d+);t=\d+$/.exec(first.rateLimit ?? '')?.[1]);
    expect(left, `RateLimit: ${first.rateLimit}`).toBeLessThan(STOPWATCH_BUDGET - 1);
    const statuses: number[] = [];
    for (let i = 1; i <= left + 2; i++) {
      const answer = await read(i % 2 === 0 ? stalled : other, '/stopwatch', jana);
      statuses.push(answer.status);
      if (i <= left) expect(answer.rateLimit, `request ${i}`).toMatch(new RegExp(`^"stopwatch";r=${left - i};t=\\d+$`));
    }
    // What was left of the one budget, then 429 from each instance.
    expect(statuses).toEqual([...Array<number>(left).fill(before.status), 429, 429]);
  }, 30_000);
});
