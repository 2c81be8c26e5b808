// A gateway instance whose subscription to the bumped counters stalls (Redis paused for that
// connection, a half-open TCP link) while its main connection to Redis works: its hits cost a
// bounded time (gateway/cache/local-copies.ts catchUp: a short budget, then the shared store over
// the main connection), a write through another instance is never answered with the old copy, and
// once the stall ends, its hits are answered from its copies again (no MGET on Redis).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningGateway } from '../../gateway/start.js';
import type { StallingLink } from '../helpers/stalling-link.js';
import type { Answer, StalledPair } from './stalled-redis-pair.js';
import { patchComment as patchThrough, readThrough, startStalledPair } from './stalled-redis-pair.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('two gateway instances on one Redis, the subscription of one of them stalled', () => {
  let pair: StalledPair;
  let link: StallingLink;
  let stalled: RunningGateway;
  let writer: RunningGateway;

  beforeAll(async () => {
    pair = await startStalledPair({ cache: { defaultTtlSeconds: 60 } });
    ({ link, stalled, other: writer } = pair);
  });
  afterAll(() => pair?.close());

  /** A GET through `gateway`: its status, X-Cache, comment and how long it took. */
  const read = (gateway: RunningGateway, path: string): Promise<Answer> => readThrough(gateway, path, pair.admin);
  const patchComment = (gateway: RunningGateway, path: string, comment: string): Promise<number> => patchThrough(gateway, path, comment, pair.admin);

  /** How many MGETs (reads of the shared store) `count` hits through the stalled one cost. */
  async function storeReadsOf(path: string, count: number): Promise<number> {
    const before = link.commandsSent('mget');
    for (let i = 0; i < count; i++) expect((await read(stalled, path)).cache).toBe('HIT');
    return link.commandsSent('mget') - before;
  }

  test('its hits take under half the command timeout (1 s) at p95 and none as long as it, before and past it', async () => {
    const path = '/projects/1';
    await read(stalled, path);
    // Answered from its copies before the stall: no read of the store.
    expect(await storeReadsOf(path, 3)).toBe(0);

    link.stall();
    try {
      const times: number[] = [];
      const started = performance.now();
      while (performance.now() - started < 2_500) {
        const hit = await read(stalled, path);
        expect(hit.status).toBe(200);
        expect(hit.cache).toBe('HIT');
        times.push(hit.ms);
      }
      times.sort((x, y) => x - y);
      const p95 = times[Math.ceil(times.length * 0.95) - 1] as number;
      expect(times.length).toBeGreaterThanOrEqual(25);
      // 19 ms on a quiet machine, 310 ms on CI's busiest run: the bound is what separates it from
      // waiting for the PING, not a speed.
      expect(p95, `p95 of ${times.length} hits`).toBeLessThan(500);
      // Before, each one waited for its PING up to the command timeout.
      expect(times.at(-1), 'the slowest hit').toBeLessThan(1_000);
    } finally {
      link.resume();
    }
  }, 30_000);

  test('a write through the other instance is never answered with the old copy, from the start of the stall on', async () => {
    const path = '/projects/2';
    await read(stalled, path);
    expect((await read(stalled, path)).cache).toBe('HIT');

    link.stall();
    try {
      // Rounds over 2 s: before the command timeout, and while it reconnects.
      for (let round = 0; round < 6; round++) {
        const comment = `stalled round ${round} ${Date.now()}`;
        expect(await patchComment(writer, path, comment)).toBe(200);
        const after = await read(stalled, path);
        expect(after.status).toBe(200);
        expect(after.comment, `round ${round}`).toBe(comment);
        // And its next read is a hit with the new comment, from the store.
        const again = await read(stalled, path);
        expect([again.cache, again.comment], `round ${round}`).toEqual(['HIT', comment]);
        await sleep(300);
      }
    } finally {
      link.resume();
    }
  }, 30_000);

  test('once the stall ends, its hits are answered from its copies again within 5 s, on a new subscription', async () => {
    const path = '/projects/3';
    await read(stalled, path);
    const subscribed = link.commandsSent('subscribe');
    link.stall();
    // Hits past the command timeout: the stalled subscription is given up.
    const stalledAt = performance.now();
    while (performance.now() - stalledAt < 1_500) {
      expect((await read(stalled, path)).cache).toBe('HIT');
      await sleep(50);
    }
    link.resume();
    const resumedAt = performance.now();
    let reads = await storeReadsOf(path, 5);
    while (reads > 0 && performance.now() - resumedAt < 5_000) {
      await sleep(100);
      reads = await storeReadsOf(path, 5);
    }
    expect(reads, 'MGETs of 5 hits, 5 s after the stall ended').toBe(0);
    expect(link.commandsSent('subscribe')).toBeGreaterThan(subscribed);

    // And a write through the other instance outdates those copies as before.
    const comment = `after the stall ${Date.now()}`;
    expect(await patchComment(writer, path, comment)).toBe(200);
    expect((await read(stalled, path)).comment).toBe(comment);
  }, 30_000);
});
