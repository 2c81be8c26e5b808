// A real gateway on loopback in front of a real upstream, for HTTP-level suites: by default the
// time-tracking service of test/helpers/service.ts (fresh database, demo account), the gateway
// built from generated/ and listening on a free port. close() stops both.
//
//   const t = await startTestGateway(kind, { format: 'atom' });
//   await fetch(`${t.restRoot}/projects`, { headers: { 'X-ServiceApiKey': t.service.jana.apiKey } });
//   expect(t.service.requestCount()).toBe(1);
import { fileURLToPath } from 'node:url';
import type { GatewayConfigInput, UpstreamFormat } from '../../gateway/config.js';
import { gatewayConfig } from '../../gateway/config.js';
import type { GatewayFeature } from '../../gateway/features.js';
import type { GatewayArtefacts } from '../../gateway/model-artefacts.js';
import { loadGeneratedArtefacts } from '../../gateway/model-artefacts.js';
import type { RunningGateway } from '../../gateway/start.js';
import { startGateway } from '../../gateway/start.js';
import type { ServiceConfig } from '../../service/config.js';
import type { TestDatabaseKind } from './databases.js';
import type { TestService, TestServiceOptions } from './service.js';
import { startTestService } from './service.js';

export const GENERATED_DIR = fileURLToPath(new URL('../../generated', import.meta.url));
export const NORTHWIND_GENERATED_DIR = fileURLToPath(new URL('../fixtures/northwind/generated', import.meta.url));

const loaded = new Map<string, Promise<GatewayArtefacts>>();

/** The codegen output in `dir`, loaded once per test file. */
export function artefactsOf(dir: string = GENERATED_DIR): Promise<GatewayArtefacts> {
  let artefacts = loaded.get(dir);
  if (artefacts === undefined) {
    artefacts = loadGeneratedArtefacts(dir);
    loaded.set(dir, artefacts);
  }
  return artefacts;
}

export interface GatewayOptions {
  /** How the gateway speaks to the upstream (default json). */
  readonly format?: UpstreamFormat;
  /** Any other configuration (the upstream URL is filled in). */
  readonly config?: Partial<Omit<GatewayConfigInput, 'upstream'>> & { readonly upstream?: Partial<GatewayConfigInput['upstream']> };
  /** The model's codegen output (default generated/). */
  readonly artefacts?: GatewayArtefacts;
  /** Edge features to use instead of gatewayFeatures(config). */
  readonly features?: readonly GatewayFeature[];
  /** Where the gateway's logs go (none by default); set config.logLevel to see them. */
  readonly logs?: NodeJS.WritableStream;
}

/** A gateway listening on a free loopback port in front of the OData service root `upstreamRoot`. */
export async function startGatewayInFront(upstreamRoot: string, options: GatewayOptions = {}): Promise<RunningGateway> {
  const { upstream, resilience, ...rest } = options.config ?? {};
  const config = gatewayConfig({
    logLevel: 'silent',
    ...rest,
    // The gateway shares its event loop with the service and the test here, which a busy CI
    // machine delays beyond the shedding threshold: only the suites about shedding turn it on.
    resilience: { ...resilience, loadShedding: { maxEventLoopDelayMs: 0, ...resilience?.loadShedding } },
    host: '127.0.0.1',
    port: 0,
    upstream: { ...upstream, url: upstreamRoot, ...(options.format === undefined ? {} : { format: options.format }) },
  });
  return startGateway(config, options.artefacts ?? (await artefactsOf()), {
    logger: options.logs === undefined ? false : { stream: options.logs },
    ...(options.features === undefined ? {} : { features: options.features }),
  });
}

export interface TestGateway {
  readonly service: TestService;
  readonly gateway: RunningGateway;
  /** `http://127.0.0.1:<port>` of the gateway. */
  readonly origin: string;
  /** `http://127.0.0.1:<port>/api/v1` */
  readonly restRoot: string;
  close(): Promise<void>;
}

/** The time-tracking service on a fresh database of `kind`, and a gateway in front of it. */
export async function startTestGateway(
  kind: TestDatabaseKind,
  options: GatewayOptions & { readonly service?: Partial<ServiceConfig>; readonly serviceOptions?: TestServiceOptions } = {},
): Promise<TestGateway> {
  const service = await startTestService(kind, options.service, options.serviceOptions);
  try {
    const gateway = await startGatewayInFront(service.root, options);
    return {
      service,
      gateway,
      origin: gateway.origin,
      restRoot: gateway.restRoot,
      async close() {
        await gateway.close();
        await service.close();
      },
    };
  } catch (error) {
    await service.close();
    throw error;
  }
}
