// The REST face's cost (issue 5): the same data read straight from the service over OData,
// through a floor (bench/rest-floor-server.ts: the gateway's own upstream request, answered
// with one JSON.parse and one JSON.stringify, or relayed unread from an Atom upstream) and
// through the gateway's REST face, which validates, translates, calls the service and reshapes
// the answer: a list of 100 time entries against the OData page of 100, one project by id
// against the OData entity, with the gateway speaking JSON and then Atom to the service. One
// client sends requests one after another, to each side in turn; an added p50 is the median over
// rounds of the difference to the direct call (target: at most 1 ms). The floor shows how much
// of that budget the extra hop and the native JSON passes take on this machine, which no REST
// face written in JavaScript can undercut. The gateway and the floor run as their own processes
// pinned to core 0; the service and the client run in this process on core 1.
import { Pool } from 'undici';
import { fileURLToPath } from 'node:url';
import { testDatabases } from '../test/helpers/databases.js';
import { startTestService } from '../test/helpers/service.js';
import type { LoadRequest, RunningServer } from './http-load.js';
import { latencyRounds, pinThisProcess, startPinnedServer } from './http-load.js';
import { markdownTable, median } from './report.js';
import type { BenchSuite } from './suite.js';

const ROUNDS = Number(process.env.TG_BENCH_ROUNDS ?? 5);
const REQUESTS_PER_ROUND = Number(process.env.TG_BENCH_REQUESTS ?? 1_000);
const WARMUP_REQUESTS = 500;
const GATEWAY_CORE = 0;
const LOAD_CORE = 1;
const TARGET_ADDED_P50_MS = 1;
const SERVER_SCRIPT = fileURLToPath(new URL('./gateway-rest-server.ts', import.meta.url));
const FLOOR_SCRIPT = fileURLToPath(new URL('./rest-floor-server.ts', import.meta.url));

function fail(message: string): never {
  throw new Error(`gateway-rest bench: ${message}`);
}

interface Scenario {
  readonly name: string;
  readonly format: 'json' | 'atom';
  readonly direct: LoadRequest;
  readonly rest: LoadRequest;
  readonly items: number;
}

export const gatewayRest: BenchSuite = {
  name: 'gateway-rest',
  description: 'REST face (validate, translate, reshape) vs the same data straight from the service over OData (added p50 latency)',
  async run() {
    pinThisProcess(LOAD_CORE);
    const sqlite = testDatabases.find((kind) => kind.name === 'sqlite') ?? fail('no SQLite test database');
    const service = await startTestService(sqlite);
    const servers: RunningServer[] = [];
    const pools: Pool[] = [];
    try {
      const headers = { 'x-serviceapikey': service.admin.apiKey };
      const scenarios: Scenario[] = (['json', 'atom'] as const).flatMap((format) => {
        const odata = format === 'json' ? '&$format=json' : '';
        return [
          { name: `list of 100 time entries, upstream ${format}`, format, items: 100, direct: { path: `/V1/Api.svc/TimeEntries?$top=100${odata}`, headers }, rest: { path: '/api/v1/time-entries?limit=100', headers } },
          { name: `project by id, upstream ${format}`, format, items: 1, direct: { path: `/V1/Api.svc/Projects(1)${odata ? '?$format=json' : ''}`, headers }, rest: { path: '/api/v1/projects/1', headers } },
        ];
      });
      const direct = new Pool(service.origin, { connections: 1 });
      pools.push(direct);
      console.log(`one client, requests one after another, to each side in turn: ${ROUNDS} rounds of ${REQUESTS_PER_ROUND} per side (after ${WARMUP_REQUESTS} warm-up); gateway and floor on core ${GATEWAY_CORE}, service and client on core ${LOAD_CORE}; medians of the rounds. Floor: the gateway's upstream request answered with one JSON.parse and one JSON.stringify (JSON upstream) or relayed unread (Atom upstream).\n`);
      const rows: string[][] = [];
      for (const format of ['json', 'atom'] as const) {
        const gateway = await startPinnedServer(GATEWAY_CORE, (port) => ['--import', 'tsx', SERVER_SCRIPT, service.root, String(port), format]);
        servers.push(gateway);
        const formatScenarios = scenarios.filter((s) => s.format === format);
        const upstreamPaths: string[] = [];
        for (const scenario of formatScenarios) {
          // The REST answer must hold what the service holds.
          const body = (await (await fetch(gateway.origin + scenario.rest.path, { headers })).json()) as { items?: unknown[]; id?: number };
          if ((body.items?.length ?? (body.id === undefined ? 0 : 1)) !== scenario.items) fail(`${scenario.rest.path}: expected ${scenario.items} item(s)`);
          upstreamPaths.push(service.answered().at(-1)?.url ?? fail(`${scenario.rest.path}: the service saw no request`));
        }
        const floor = await startPinnedServer(GATEWAY_CORE, (port) => ['--import', 'tsx', FLOOR_SCRIPT, service.origin, String(port), format,
          ...formatScenarios.flatMap((scenario, i) => [scenario.rest.path, upstreamPaths[i] as string])]);
        servers.push(floor);
        const floorPool = new Pool(floor.origin, { connections: 1 });
        const through = new Pool(gateway.origin, { connections: 1 });
        pools.push(floorPool, through);
        for (const scenario of formatScenarios) {
          const { p50, p99 } = await latencyRounds(
            [{ pool: direct, request: scenario.direct }, { pool: floorPool, request: scenario.rest }, { pool: through, request: scenario.rest }],
            ROUNDS, REQUESTS_PER_ROUND, WARMUP_REQUESTS);
          const [p50Service, p50Floor, p50Gateway] = p50 as [number[], number[], number[]];
          const addedOver = (side: number[]) => median(side.map((value, i) => value - (p50Service[i] as number)));
          const added = addedOver(p50Gateway);
          rows.push([
            scenario.name,
            median(p50Service).toFixed(3),
            addedOver(p50Floor).toFixed(3),
            added.toFixed(3),
            (p99 as number[][]).map((side) => median(side).toFixed(2)).join(' / '),
            `≤ ${TARGET_ADDED_P50_MS} ms: ${added <= TARGET_ADDED_P50_MS ? 'met' : 'NOT met'}`,
          ]);
        }
      }
      console.log(markdownTable(['scenario', 'direct OData p50 ms', 'floor: added p50 ms', 'REST: added p50 ms', 'p99 ms direct / floor / REST', 'target (REST)'], rows));
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
      await Promise.all(servers.map((server) => server.stop()));
      await service.close();
    }
  },
};
