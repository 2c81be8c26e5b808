// Issue 32's fuzz: 20,000 hostile requests of a fixed seed against `timegate service` and both
// faces of `timegate gateway` (separate processes, read cache on Redis) while the upstream is
// healthy. Every one is answered within the upstream deadline + 1 s and never with a 5xx, the
// breaker stays closed, and neither program logs a key. `npm run fuzz -- --requests N` runs more.
import { describe, expect, it } from 'vitest';
import { runEdgeFuzz } from '../fuzz/edge-fuzz.js';

const REQUESTS = 20_000;

describe('the edge under 20,000 hostile requests', () => {
  it('answers each within the deadline + 1 s, never 5xx, keeps the breaker closed and logs no key', async () => {
    const report = await runEdgeFuzz({
      seed: 20261127,
      requests: REQUESTS,
      concurrency: 32,
      upstreamTimeoutMs: 5_000,
      redisUrl: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
      logLevel: 'debug',
    });
    expect(report.requests).toBe(REQUESTS);
    expect(report.violations.slice(0, 20)).toEqual([]);
    expect(report.breakerStates).toEqual([]);
    expect(report.leaks.slice(0, 5)).toEqual([]);
    // The run reached every part of the edge: each target served reads and refused keys.
    for (const target of ['service', 'odata', 'rest']) {
      expect(report.statuses[`${target} 200`], target).toBeGreaterThan(50);
      expect(report.statuses[`${target} 401`], target).toBeGreaterThan(50);
      expect(report.statuses[`${target} 413`], target).toBeGreaterThan(10);
      expect(report.statuses[`${target} 417`], target).toBeGreaterThan(10);
    }
    expect(report.logLines).toBeGreaterThan(REQUESTS);
  }, 120_000);
});
