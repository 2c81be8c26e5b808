// The gateway's edge (OData passthrough, auth normalisation, resilience, operations) in front of
// an upstream, listening on loopback, with the read cache off so every request reaches the
// upstream: what the passthrough and auth suites drive with real HTTP. It is the whole gateway
// (test/helpers/gateway.ts), REST face included: the faces share one upstream stack.
import type { FastifyInstance } from 'fastify';
import type { AuthConfig } from '../../gateway/auth/auth-config.js';
import type { ResilienceConfig, UpstreamConfig } from '../../gateway/config.js';
import { startGatewayInFront } from './gateway.js';

export interface EdgeOptions {
  readonly upstream?: Partial<UpstreamConfig>;
  readonly auth?: Partial<AuthConfig>;
  readonly resilience?: { readonly [K in keyof ResilienceConfig]?: Partial<ResilienceConfig[K]> };
}

export interface TestEdge {
  readonly app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** `http://127.0.0.1:<port>/V1/Api.svc` */
  readonly root: string;
  close(): Promise<void>;
}

export async function startEdge(upstreamRoot: string, options: EdgeOptions = {}): Promise<TestEdge> {
  const gateway = await startGatewayInFront(upstreamRoot, {
    config: {
      cache: { enabled: false },
      ...(options.upstream === undefined ? {} : { upstream: options.upstream }),
      ...(options.auth === undefined ? {} : { auth: options.auth }),
      ...(options.resilience === undefined ? {} : { resilience: options.resilience }),
    },
  });
  return { app: gateway.app, origin: gateway.origin, root: `${gateway.origin}/V1/Api.svc`, close: () => gateway.close() };
}
