// The service's configuration: read at the edge (CLI flags, environment) and passed in, so no
// module below reads process.env or argv itself.
import { DEFAULT_BATCH_LIMITS } from '../odata/limits.js';

/** The embedded database when no URL is given (storage/database.ts). */
export const DEFAULT_SQLITE_FILE = './data/timegate.sqlite';

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface ServiceConfig {
  readonly host: string;
  readonly port: number;
  /** undefined = SQLite file ./data/timegate.sqlite; a file path, ':memory:' or postgres://... */
  readonly databaseUrl: string | undefined;
  /** Most entities per page of a collection read (server paging; spec §8 says 100). */
  readonly pageSize: number;
  readonly tls: TlsFiles | undefined;
  /** Header names accepted besides X-ServiceApiKey for the key (matched case-insensitively),
   *  for clients of the original service that use another name. */
  readonly apiKeyHeaderAliases: readonly string[];
  /** Request bodies above this are refused with 413 (a `$batch` has its own limit). */
  readonly bodyLimitBytes: number;
  /** A `$batch` body above this is refused with 413. */
  readonly batchMaxBytes: number;
  /** Most operations (retrieves and changeset requests) in one `$batch`; more is a 400. */
  readonly batchMaxOperations: number;
  /** Realm of the WWW-Authenticate: Basic challenge on 401. */
  readonly authRealm: string;
  /** Connections of the PostgreSQL pool (ignored on SQLite). */
  readonly postgresPoolMax: number;
  /** How long shutdown waits for in-flight requests before closing anyway (ms). */
  readonly shutdownGraceMs: number;
  /** How long a successful API key lookup is reused (ms; 0 = every request asks the database). */
  readonly authCacheTtlMs: number;
  /** Believe X-Forwarded-Proto/-Host (behind a proxy such as the gateway). */
  readonly trustProxy: boolean;
  /** Updates and deletes must carry If-Match (428 without it). */
  readonly requireIfMatch: boolean;
  /** pino level: fatal, error, warn, info, debug, trace or silent. */
  readonly logLevel: string;
  /** Port of the admin listener (/metrics, /healthz, /readyz); undefined: none. */
  readonly adminPort: number | undefined;
  readonly adminHost: string;
}

/** The service root below the host (service-api.md: `{base_url}` ends in `/V1/Api.svc`). */
export const SERVICE_ROOT_PATH = '/V1/Api.svc';

export const DEFAULT_SERVICE_CONFIG: ServiceConfig = {
  host: '127.0.0.1',
  port: 4004,
  databaseUrl: undefined,
  pageSize: 100,
  tls: undefined,
  apiKeyHeaderAliases: [],
  bodyLimitBytes: 1024 * 1024,
  batchMaxBytes: DEFAULT_BATCH_LIMITS.maxBytes,
  batchMaxOperations: DEFAULT_BATCH_LIMITS.maxOperations,
  authRealm: 'timegate',
  postgresPoolMax: 10,
  shutdownGraceMs: 10_000,
  authCacheTtlMs: 5_000,
  trustProxy: false,
  requireIfMatch: false,
  logLevel: 'info',
  adminPort: undefined,
  adminHost: '127.0.0.1',
};
