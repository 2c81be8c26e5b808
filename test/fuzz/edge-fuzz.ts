// The edge fuzz of issue 32: `timegate service` and `timegate gateway` as the separate programs
// they are in production (fresh SQLite database, demo account, the gateway's read cache on Redis
// when one is given), a seeded run of hostile requests (hostile-traffic.ts) against the service
// and both faces of the gateway, and what must hold while the upstream is healthy:
//
//   - every request is answered within the upstream deadline + 1 s;
//   - no answer is a 5xx;
//   - the circuit breaker never leaves `closed` (read from /metrics on the admin port);
//   - no key, in any spelling, is in any log line of either program.
//
// Used by test/gateway/adversarial-edge.test.ts (CI) and test/fuzz/main.ts (`npm run fuzz`).
import { seedDemoAccount } from '../../service/accounts/demo-seed.js';
import { testDatabases } from '../helpers/databases.js';
import type { GatewayProcess } from '../helpers/gateway-process.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import type { ServiceProcess } from '../helpers/service-process.js';
import { startServiceProcess } from '../helpers/service-process.js';
import { DEMO_NOW } from '../helpers/service.js';
import type { Answer } from './hostile-sender.js';
import { HostileSender } from './hostile-sender.js';
import type { FuzzKeys, HostileRequest } from './hostile-traffic.js';
import { HostileTraffic, leakedForms } from './hostile-traffic.js';

export interface EdgeFuzzOptions {
  readonly seed: number;
  readonly requests: number;
  /** Requests in flight at once. */
  readonly concurrency: number;
  /** `--upstream-timeout` of the gateway; every answer must come within it + 1 s. */
  readonly upstreamTimeoutMs: number;
  /** The gateway's cache and counters on this Redis (a prefix of their own); none: in-process. */
  readonly redisUrl: string | undefined;
  /** pino level of both programs. */
  readonly logLevel: string;
}

export interface Violation {
  readonly request: string;
  readonly answer: Answer;
}

export interface EdgeFuzzReport {
  readonly requests: number;
  readonly elapsedMs: number;
  /** Answers by target and status, e.g. `rest 401`. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Requests answered late, not at all, or with a 5xx. */
  readonly violations: readonly Violation[];
  /** Breaker states other than `closed` seen on /metrics while the run went on. */
  readonly breakerStates: readonly string[];
  /** Log lines (of either program) that hold a key. */
  readonly leaks: readonly string[];
  readonly logLines: number;
}

const BREAKER_OPEN = /^timegate_gateway_circuit_breaker_state\{[^}]*state="(open|half-open)"[^}]*\} 1$/m;

/** What a request was, in one line a failure can be reproduced from. */
export function describeRequest(hostile: HostileRequest): string {
  if (hostile.kind === 'raw') return `${hostile.target} raw ${JSON.stringify(hostile.bytes.toString('latin1').slice(0, 300))}`;
  return `${hostile.target} ${hostile.method} ${hostile.path.slice(0, 300)} ${JSON.stringify(hostile.headers).slice(0, 300)} body=${hostile.body?.length ?? 'none'}`;
}

export async function runEdgeFuzz(options: EdgeFuzzOptions): Promise<EdgeFuzzReport> {
  const sqlite = testDatabases[0] as (typeof testDatabases)[number];
  const place = await sqlite.create();
  let service: ServiceProcess | undefined;
  let gateway: GatewayProcess | undefined;
  let sender: HostileSender | undefined;
  let watcher: NodeJS.Timeout | undefined;
  try {
    const database = await place.open();
    const seeded = await seedDemoAccount(database.db, DEMO_NOW);
    if (!seeded.created) throw new Error('the fuzz database already had an account');
    const [admin, user] = seeded.users;
    if (admin === undefined || user === undefined) throw new Error('the demo account has no users');
    const keys: FuzzKeys = { admin: admin.apiKey, user: user.apiKey, unknown: `tg_${Buffer.from('an unknown key of the right shape!').toString('base64url')}` };

    service = await startServiceProcess(['--db', place.url, '--log-level', options.logLevel]);
    const redis = options.redisUrl === undefined ? [] : ['--redis', options.redisUrl, '--redis-prefix', `tg-fuzz-${process.pid}-${Date.now()}:`];
    gateway = await startGatewayProcess(service.root, ['--upstream-timeout', String(options.upstreamTimeoutMs), '--admin-port', '0', '--log-level', options.logLevel, ...redis]);

    const breakerStates = new Set<string>();
    const metricsUrl = `${gateway.adminOrigin}/metrics`;
    const readBreaker = async () => {
      const text = await (await fetch(metricsUrl)).text();
      const open = BREAKER_OPEN.exec(text);
      if (open !== null) breakerStates.add(open[1] as string);
    };
    watcher = setInterval(() => void readBreaker().catch(() => breakerStates.add('unreadable')), 250);

    const serviceUrl = new URL(service.root);
    const gatewayUrl = new URL(gateway.origin);
    const limitMs = options.upstreamTimeoutMs + 1_000;
    const at = (url: URL) => ({ host: url.hostname, port: Number(url.port) });
    sender = new HostileSender({ service: at(serviceUrl), odata: at(gatewayUrl), rest: at(gatewayUrl) }, limitMs);

    const traffic = new HostileTraffic(options.seed, keys);
    const statuses: Record<string, number> = {};
    const violations: Violation[] = [];
    let sent = 0;
    const started = performance.now();
    const worker = async (client: HostileSender) => {
      while (sent < options.requests) {
        sent++;
        const hostile = traffic.next();
        const answer = await client.send(hostile);
        const label = `${hostile.target} ${answer.status}`;
        statuses[label] = (statuses[label] ?? 0) + 1;
        if (typeof answer.status !== 'number' || answer.status >= 500 || answer.ms > limitMs) violations.push({ request: describeRequest(hostile), answer });
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, () => worker(sender as HostileSender)));
    const elapsedMs = performance.now() - started;
    clearInterval(watcher);
    await readBreaker();

    // Stopped, so every line is written before the logs are read.
    await gateway.stop();
    await service.stop();
    const lines = [...gateway.logs, ...service.logs];
    const forms = Object.values(keys).flatMap(leakedForms);
    const leaks = lines.filter((line) => forms.some((form) => line.includes(form)));
    return { requests: sent, elapsedMs, statuses, violations, breakerStates: [...breakerStates], leaks, logLines: lines.length };
  } finally {
    if (watcher !== undefined) clearInterval(watcher);
    sender?.close();
    await gateway?.stop();
    await service?.stop();
    await place.dispose();
  }
}
