// Issue 32's edge at full size, as the programs run in production (separate processes, flags as
// an operator gives them). The two tests run side by side: the deadline test mostly waits.
//
//   - 20,000 hostile requests of a fixed seed against `timegate service` and both faces of
//     `timegate gateway` (read cache on Redis) while the upstream is healthy: every one answered
//     within the upstream deadline + 1 s and never with a 5xx, the breaker stays closed, neither
//     program logs a key. `npm run fuzz -- --requests N` runs more.
//   - An upstream that takes 40 s behind `--upstream-timeout 30000`: 504 at 30 s (±1 s) on both
//     faces, with one upstream request each (no retry gets a deadline of its own).
import { describe, expect, it } from 'vitest';
import { runEdgeFuzz } from '../fuzz/edge-fuzz.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import { startSlowUpstream } from './adversarial-client.js';

const REQUESTS = 20_000;

describe.concurrent('the edge at full size', () => {
  it('answers 20,000 hostile requests each within the deadline + 1 s, never 5xx, keeps the breaker closed and logs no key', async () => {
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
    // The run reached every part of the edge: each target served reads, refused keys, bodies
    // and expectations.
    for (const target of ['service', 'odata', 'rest']) {
      expect(report.statuses[`${target} 200`], target).toBeGreaterThan(50);
      expect(report.statuses[`${target} 401`], target).toBeGreaterThan(50);
      expect(report.statuses[`${target} 413`], target).toBeGreaterThan(10);
      expect(report.statuses[`${target} 417`], target).toBeGreaterThan(10);
    }
    expect(report.logLines).toBeGreaterThan(REQUESTS);
    // About 40 s on CI; the limit is for a machine shared with much other work.
  }, 300_000);

  it('answers 504 at 30 s (±1 s) on both faces when the upstream takes 40 s and --upstream-timeout is 30000', async () => {
    const upstream = await startSlowUpstream(40_000);
    const gateway = await startGatewayProcess(upstream.root, ['--upstream-timeout', '30000', '--no-cache']);
    try {
      const timed = async (url: string) => {
        const started = performance.now();
        const response = await fetch(url, { headers: { 'x-serviceapikey': 'k' } });
        await response.arrayBuffer();
        return { status: response.status, ms: performance.now() - started };
      };
      const [odata, rest] = await Promise.all([timed(`${gateway.odataRoot}/Projects?$format=json`), timed(`${gateway.restRoot}/projects`)]);
      for (const [face, answer] of [['odata', odata], ['rest', rest]] as const) {
        expect(answer.status, face).toBe(504);
        expect(answer.ms, face).toBeGreaterThanOrEqual(29_000);
        expect(answer.ms, face).toBeLessThanOrEqual(31_000);
      }
      expect(upstream.received()).toBe(2);
    } finally {
      await gateway.stop();
      await upstream.close();
    }
  }, 90_000);
});
