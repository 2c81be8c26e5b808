// `npm run fuzz -- [--requests N] [--seed S] [--concurrency C] [--upstream-timeout MS] [--no-redis]`:
// the edge fuzz of edge-fuzz.ts for as long as you like; prints what it saw and exits 1 on any
// violation. The CI run (test/gateway/adversarial-edge.test.ts) is the same with fixed numbers.
import { parseArgs } from 'node:util';
import { runEdgeFuzz } from './edge-fuzz.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '20261127' },
    concurrency: { type: 'string', default: '32' },
    'upstream-timeout': { type: 'string', default: '5000' },
    'log-level': { type: 'string', default: 'debug' },
    'no-redis': { type: 'boolean', default: false },
  },
});

const report = await runEdgeFuzz({
  requests: Number(values.requests),
  seed: Number(values.seed),
  concurrency: Number(values.concurrency),
  upstreamTimeoutMs: Number(values['upstream-timeout']),
  redisUrl: values['no-redis'] ? undefined : (process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379'),
  logLevel: values['log-level'],
});
const sorted = Object.entries(report.statuses).sort(([a], [b]) => a.localeCompare(b));
process.stdout.write(`${report.requests} requests in ${(report.elapsedMs / 1000).toFixed(1)} s (${Math.round(report.requests / (report.elapsedMs / 1000))}/s), ${report.logLines} log lines\n`);
for (const [label, count] of sorted) process.stdout.write(`  ${label.padEnd(16)} ${count}\n`);
process.stdout.write(`breaker states other than closed: ${report.breakerStates.join(', ') || 'none'}\n`);
process.stdout.write(`violations: ${report.violations.length}\n`);
for (const violation of report.violations.slice(0, 50)) process.stdout.write(`  ${JSON.stringify(violation.answer)} ${violation.request}\n`);
process.stdout.write(`log lines with a key: ${report.leaks.length}\n`);
for (const line of report.leaks.slice(0, 20)) process.stdout.write(`  ${line.slice(0, 400)}\n`);
process.exitCode = report.violations.length + report.leaks.length + report.breakerStates.length === 0 ? 0 : 1;
