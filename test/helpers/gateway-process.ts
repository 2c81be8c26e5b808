// Gateways with the read cache and the rate limiter as separate processes sharing one Redis, as
// replicas run behind a load balancer: for the suites that prove invalidation and rate limits hold
// across instances. This module is also the child's entry point (`node --import tsx
// gateway-process.ts <options as JSON>`): it builds the gateway like test/helpers/gateway.ts
// does in-process, listens on a free port and prints `{"origin": ...}`.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CacheConfig } from '../../gateway/cache/cache-config.js';
import type { RateLimitConfig } from '../../gateway/limits/rate-limit-config.js';

export interface GatewayProcessOptions {
  /** The OData service root of the upstream. */
  readonly upstreamRoot: string;
  readonly redisUrl: string;
  readonly redisKeyPrefix: string;
  readonly cache?: Partial<CacheConfig>;
  readonly rateLimit?: Partial<RateLimitConfig>;
}

export interface GatewayProcess {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly restRoot: string;
  readonly odataRoot: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 30_000;
const THIS_FILE = fileURLToPath(import.meta.url);

export function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', THIS_FILE, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the gateway process did not start in time:\n${stderr}`));
    }, STARTUP_TIMEOUT_MS);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the gateway process exited before listening:\n${stderr}`));
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      let origin: string | undefined;
      try {
        origin = (JSON.parse(line) as { origin?: string }).origin;
      } catch {
        return;
      }
      if (origin === undefined) return;
      clearTimeout(timer);
      resolve({
        origin,
        restRoot: `${origin}/api/v1`,
        odataRoot: `${origin}/V1/Api.svc`,
        child,
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

async function serveChild(options: GatewayProcessOptions): Promise<void> {
  const { cacheFeature } = await import('../../gateway/cache/cache-feature.js');
  const { rateLimitFeature } = await import('../../gateway/limits/rate-limit-feature.js');
  const { plainPassthrough } = await import('../gateway/cache-fixture.js');
  const { startGatewayInFront } = await import('./gateway.js');
  const gateway = await startGatewayInFront(options.upstreamRoot, {
    config: {
      cache: options.cache ?? {},
      rateLimit: options.rateLimit ?? {},
      redis: { url: options.redisUrl, keyPrefix: options.redisKeyPrefix },
    },
    features: [rateLimitFeature(), cacheFeature(), plainPassthrough],
  });
  process.once('SIGTERM', () => {
    void gateway.close().then(() => process.exit(0));
  });
  console.log(JSON.stringify({ origin: gateway.origin }));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await serveChild(JSON.parse(process.argv[2] ?? '{}') as GatewayProcessOptions);
}
