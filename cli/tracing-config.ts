// Whether a program traces, read once from the standard OpenTelemetry variables: on when an OTLP
// endpoint or a traces exporter is named, off (and nothing of the SDK loaded) otherwise, and off
// whenever OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. Also read here: the sampler
// (OTEL_TRACES_SAMPLER, _ARG) and the batch processor's OTEL_BSP_* settings, which the SDK's
// parts no longer read themselves (since 2.x only sdk-node did). The OTLP exporter still reads its
// own OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout, compression), by the specification.
import { UsageError } from './command.js';

export interface TracingConfig {
  /** The resource's service.name: OTEL_SERVICE_NAME, else the program's own name. */
  readonly serviceName: string;
  readonly exporter: 'otlp' | 'console';
  readonly sampler: SamplerName;
  /** The ratio of the traceidratio samplers, 0 to 1. */
  readonly samplerRatio: number;
  /** OTEL_BSP_*: undefined leaves the SDK's default. */
  readonly batch: {
    readonly scheduledDelayMillis?: number;
    readonly exportTimeoutMillis?: number;
    readonly maxQueueSize?: number;
    readonly maxExportBatchSize?: number;
  };
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

function count(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = set(env[name]);
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`${name} must be a whole number, not '${value}'`);
  return Number(value);
}

function batchOf(env: NodeJS.ProcessEnv): TracingConfig['batch'] {
  const entries = Object.entries({
    scheduledDelayMillis: count(env, 'OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: count(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: count(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: count(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  }).filter(([, value]) => value !== undefined);
  return Object.fromEntries(entries);
}

const EXPORTERS = new Set(['otlp', 'console', 'none']);

function set(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** The tracing of a program named `programName`, or undefined: tracing off. */
export function tracingConfig(env: NodeJS.ProcessEnv, programName: string): TracingConfig | undefined {
  if (set(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return undefined;
  const named = set(env.OTEL_TRACES_EXPORTER)?.toLowerCase().split(',').map((name) => name.trim()).filter((name) => name !== '');
  for (const name of named ?? []) {
    if (!EXPORTERS.has(name)) throw new UsageError(`OTEL_TRACES_EXPORTER must be otlp, console or none, not '${name}'`);
  }
  const endpoint = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (named === undefined && endpoint === undefined) return undefined;
  if (named?.includes('none') === true) return undefined;
  const exporter = named?.[0] === 'console' ? 'console' : 'otlp';
  if (exporter === 'otlp') {
    // The exporter this package ships speaks OTLP/HTTP with JSON bodies (every collector takes it).
    const protocol = set(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? set(env.OTEL_EXPORTER_OTLP_PROTOCOL);
    if (protocol !== undefined && protocol !== 'http/json') throw new UsageError(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/json (the OTLP form timegate exports), not '${protocol}'`);
  }
  const sampler = (set(env.OTEL_TRACES_SAMPLER)?.toLowerCase() ?? 'parentbased_always_on') as SamplerName;
  if (!SAMPLERS.includes(sampler)) throw new UsageError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, not '${sampler}'`);
  const ratioText = sampler.endsWith('traceidratio') ? set(env.OTEL_TRACES_SAMPLER_ARG) : undefined;
  const samplerRatio = ratioText === undefined ? 1 : Number(ratioText);
  if (!(samplerRatio >= 0 && samplerRatio <= 1)) throw new UsageError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, not '${ratioText}'`);
  return { serviceName: set(env.OTEL_SERVICE_NAME) ?? programName, exporter, sampler, samplerRatio, batch: batchOf(env) };
}
