// The gateway's operations endpoints: /metrics, /healthz, /readyz.

export interface OpsConfig {
  /** Serve Prometheus metrics at /metrics. */
  readonly metrics: boolean;
  /** /readyz asks the upstream for its service document; this long at most (ms). */
  readonly readinessTimeoutMs: number;
}

export const DEFAULT_OPS_CONFIG: OpsConfig = {
  metrics: true,
  readinessTimeoutMs: 2_000,
};
