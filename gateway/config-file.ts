// The gateway's configuration file (YAML or JSON, one schema) and its TIMEGATE_* environment
// overrides, read once at the edge. Layers, weakest first: defaults, the file, the environment,
// command-line flags. Every value is checked with ajv; a mistake names the key (or the
// environment variable) and what is wrong with it, and nothing starts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type * as YamlModule from 'yaml';
import type { GatewayConfig } from './config.js';
import { gatewayConfig } from './config.js';
import { parseRateLimit } from './limits/rate-limit-config.js';

export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError';
}

type Json = Record<string, unknown>;

const integer = (minimum = 0) => ({ type: 'integer', minimum });
const text = { type: 'string', minLength: 1 };
const flag = { type: 'boolean' };
const strings = { type: 'array', items: text };
const rateLimit = {
  oneOf: [
    { type: 'string', pattern: '^\\s*\\d+\\s*/\\s*\\d*\\s*[smhd]\\s*$' },
    { type: 'object', additionalProperties: false, required: ['limit', 'windowSeconds'], properties: { limit: integer(1), windowSeconds: integer(1) } },
  ],
};
const section = (properties: Json) => ({ type: 'object', additionalProperties: false, properties });

/** Every key the file may hold; nothing is required (defaults fill the rest). */
export const CONFIG_SCHEMA = section({
  host: text,
  port: { type: 'integer', minimum: 0, maximum: 65535 },
  bodyLimitBytes: integer(1),
  requestTimeoutMs: integer(1_000),
  cursorSecret: text,
  etagProperty: text,
  shutdownGraceMs: integer(),
  trustProxy: flag,
  docs: flag,
  logLevel: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
  queryLimits: section({ maxFilterLength: integer(1), maxFilterNodes: integer(1), maxFilterDepth: integer(1), maxExpandDepth: integer(1), maxExpandPaths: integer(1), maxOrderByItems: integer(1), maxTop: integer(1), maxLiteralLength: integer(1) }),
  upstream: section({
    url: { type: 'string', pattern: '^https?://' },
    format: { enum: ['json', 'atom'] },
    updateMethod: { enum: ['merge', 'patch'] },
    credential: section({ form: { enum: ['header', 'basic', 'bearer', 'query'] }, headerName: text, queryName: text }),
    connectTimeoutMs: integer(1),
    requestTimeoutMs: integer(1),
    connections: integer(1),
    maxResponseBytes: integer(1),
    writesGatewayRoot: flag,
  }),
  auth: section({ keyHeaderAliases: strings, allowedKeys: strings, ttlSeconds: integer() }),
  cors: section({ origins: strings, maxAgeSeconds: integer() }),
  resilience: section({
    retry: section({ maxRetries: integer(), baseDelayMs: integer(), maxDelayMs: integer(), budgetRatio: { type: 'number', minimum: 0 }, budgetMinPerSecond: { type: 'number', minimum: 0 } }),
    breaker: section({ failureThreshold: integer(), openMs: integer(1) }),
    loadShedding: section({ maxEventLoopDelayMs: integer(), maxEventLoopUtilization: { type: 'number', minimum: 0, maximum: 1 }, retryAfterSeconds: integer(1) }),
  }),
  ops: section({ metrics: flag, readinessTimeoutMs: integer(1), adminPort: { type: 'integer', minimum: 0, maximum: 65535 }, adminHost: text }),
  cache: section({
    enabled: flag,
    defaultTtlSeconds: integer(),
    ttlSecondsBySet: { type: 'object', additionalProperties: integer() },
    metadataTtlSeconds: integer(),
    staleIfErrorSeconds: integer(),
    maxEntryBytes: integer(1),
    maxMemoryBytes: integer(1),
    fillClaimMs: integer(1),
  }),
  rateLimit: section({
    byClass: { type: 'object', additionalProperties: rateLimit },
    default: rateLimit,
    anonymous: rateLimit,
    concurrency: section({ perKey: integer(), mode: { enum: ['queue', 'reject'] }, maxQueued: integer(), queueTimeoutMs: integer(1) }),
    headers: { enum: ['ietf', 'legacy', 'both'] },
  }),
  redis: section({ url: { type: 'string', pattern: '^rediss?://' }, keyPrefix: { type: 'string' }, commandTimeoutMs: integer(1) }),
});

// ajv and yaml are loaded at the first file or variable to check: a command line without either
// (and --help) answers without them.
const load = createRequire(import.meta.url);
let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  compiled ??= new (load('ajv') as typeof AjvModule).Ajv({ allErrors: true, strict: true }).compile(CONFIG_SCHEMA);
  return compiled;
}

/** `/resilience/breaker/openMs` as `resilience.breaker.openMs`. */
function keyOf(pointer: string): string {
  return pointer.split('/').slice(1).map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~')).join('.');
}

function describe(error: ErrorObject, keyName: (key: string) => string): string {
  const key = keyOf(error.instancePath);
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return `unknown key '${keyName(key === '' ? extra : `${key}.${extra}`)}'`;
  }
  const where = key === '' ? 'the configuration' : `'${keyName(key)}'`;
  if (error.keyword === 'enum') return `${where} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  if (error.keyword === 'oneOf') return `${where} must be a rate such as 40/1m, or { limit, windowSeconds }`;
  return `${where} ${error.message ?? 'is not valid'}`;
}

function check(value: unknown, source: string, keyName: (key: string) => string = (key) => key): Json {
  const validate = validator();
  if (validate(value)) return value as Json;
  // oneOf's branch errors say less than the oneOf itself.
  const errors = (validate.errors ?? []).filter((error, _i, all) => !all.some((other) => other.keyword === 'oneOf' && error.instancePath === other.instancePath && error !== other && error.schemaPath.startsWith(other.schemaPath.replace(/\/oneOf$/, ''))));
  const messages = [...new Set(errors.map((error) => describe(error, keyName)))];
  throw new ConfigFileError(`${source}: ${messages.join('; ')}`);
}

/** The file's settings, checked against the schema. */
export function parseConfigText(text: string, source: string): Json {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : (load('yaml') as typeof YamlModule).parse(text);
  } catch (error) {
    throw new ConfigFileError(`${source}: not YAML or JSON: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ConfigFileError(`${source}: must hold an object of settings`);
  return check(value, source);
}

export function readConfigFile(path: string): Json {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigFileError(`${path}: cannot be read (${(error as { code?: string }).code ?? 'error'})`);
  }
  return parseConfigText(content, path);
}

const ENV_PREFIX = 'TIMEGATE_';
const toEnvSegment = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** `resilience.breaker.openMs` as `TIMEGATE_RESILIENCE__BREAKER__OPEN_MS`. */
export function envNameOf(key: string): string {
  return ENV_PREFIX + key.split('.').map(toEnvSegment).join('__');
}

interface Leaf {
  readonly path: readonly string[];
  readonly schema: Json;
}

function leavesOf(schema: Json, path: readonly string[] = []): Leaf[] {
  const properties = schema.properties as Record<string, Json> | undefined;
  if (schema.type !== 'object' || properties === undefined) return [{ path, schema }];
  return Object.entries(properties).flatMap(([name, child]) => leavesOf(child, [...path, name]));
}

const ENV_LEAVES = new Map(leavesOf(CONFIG_SCHEMA).map((leaf) => [envNameOf(leaf.path.join('.')), leaf]));

function envValue(raw: string, schema: Json): unknown {
  const trimmed = raw.trim();
  if (schema.type === 'integer' || schema.type === 'number') return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : raw;
  if (schema.type === 'boolean') return trimmed === 'true' ? true : trimmed === 'false' ? false : raw;
  if (schema.type === 'array') return trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim());
  if (schema.type === 'object' || (schema.oneOf !== undefined && trimmed.startsWith('{'))) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return raw;
    }
  }
  return raw;
}

function setPath(target: Json, path: readonly string[], value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Json;
  }
  node[path[path.length - 1] as string] = value;
}

/** The TIMEGATE_* settings of `env` (other TIMEGATE_ variables belong to other commands). */
export function envOverrides(env: NodeJS.ProcessEnv): Json {
  const overrides: Json = {};
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || raw === undefined) continue;
    const leaf = ENV_LEAVES.get(name);
    if (leaf !== undefined) setPath(overrides, leaf.path, envValue(raw, leaf.schema));
  }
  return Object.keys(overrides).length === 0 ? overrides : check(overrides, 'environment', envNameOf);
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `over` laid on `base`: objects merged key by key, anything else replaced. */
export function deepMerge(base: Json, over: Json): Json {
  const merged: Json = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    merged[key] = isPlainObject(value) && isPlainObject(base[key]) ? deepMerge(base[key] as Json, value) : value;
  }
  return merged;
}

/** The leaves of `config` that differ from `defaults`: what flags actually changed. */
function changedFrom(config: Json, defaults: Json): Json {
  const changed: Json = {};
  for (const [key, value] of Object.entries(config)) {
    const fallback = defaults[key];
    if (isPlainObject(value) && isPlainObject(fallback)) {
      const inner = changedFrom(value, fallback);
      if (Object.keys(inner).length > 0) changed[key] = inner;
    } else if (JSON.stringify(value) !== JSON.stringify(fallback)) {
      changed[key] = value;
    }
  }
  return changed;
}

/** Rate limits written as `40/1m` in the file, as the objects the limiter reads. */
function normaliseRates(settings: Json): Json {
  const rate = (value: unknown) => (typeof value === 'string' ? parseRateLimit(value) : value);
  const limits = settings.rateLimit;
  if (!isPlainObject(limits)) return settings;
  const byClass = isPlainObject(limits.byClass) ? Object.fromEntries(Object.entries(limits.byClass).map(([name, value]) => [name, rate(value)])) : limits.byClass;
  return { ...settings, rateLimit: { ...limits, byClass, default: rate(limits.default), anonymous: rate(limits.anonymous) } };
}

/** The file (when given) and the environment, merged and checked: the layers below the flags. */
export function configLayers(file: string | undefined, env: NodeJS.ProcessEnv): Json {
  const fromFile = file === undefined ? {} : readConfigFile(file);
  return normaliseRates(deepMerge(fromFile, envOverrides(env)));
}

/**
 * The configuration the command line built (defaults filled in) with the file and environment
 * underneath: a flag overrides them when it changes a value from its default. The upstream URL
 * is the command line's: it already chose among its flag, the environment and the file.
 */
export function layeredConfig(fromFlags: GatewayConfig, layers: Json): GatewayConfig {
  const defaults = gatewayConfig({ upstream: { url: fromFlags.upstream.url } }) as unknown as Json;
  const flags = changedFrom(fromFlags as unknown as Json, defaults);
  const merged = deepMerge(deepMerge(defaults, layers), flags) as unknown as GatewayConfig;
  return gatewayConfig({ ...merged, upstream: { ...merged.upstream, url: fromFlags.upstream.url } });
}
