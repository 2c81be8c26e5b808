// The gateway's configuration file and its environment overrides, as an operator meets them:
// YAML or JSON with the same keys, TIMEGATE_* variables over the file, flags over both, and
// every mistake refused with a message naming the key (or variable) and what is wrong.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayCommandLine } from '../../cli/gateway.js';
import { ConfigFileError, configLayers, envNameOf, parseConfigText } from '../../gateway/config-file.js';

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'timegate-config-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function file(name: string, content: string): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, content);
  return path;
}

const YAML = `
upstream:
  url: http://odata.internal:4004/V1/Api.svc
  format: atom
  credential:
    form: bearer
  requestTimeoutMs: 5000
auth:
  keyHeaderAliases: [X-Api-Key]
resilience:
  breaker:
    failureThreshold: 3
rateLimit:
  default: 40/1m
  byClass:
    write: { limit: 10, windowSeconds: 60 }
cache:
  ttlSecondsBySet:
    TimeEntries: 5
port: 9090
`;

describe('the gateway configuration file', () => {
  it('reads YAML into the configuration, defaults filling the rest', async () => {
    const path = await file('gateway.yaml', YAML);
    const commandLine = gatewayCommandLine(['--config', path], {});
    const config = commandLine?.config;
    expect(config?.upstream).toMatchObject({ url: 'http://odata.internal:4004/V1/Api.svc', format: 'atom', requestTimeoutMs: 5000, connectTimeoutMs: 5000 });
    expect(config?.upstream.credential).toEqual({ form: 'bearer', headerName: 'X-ServiceApiKey', queryName: 'ApiKey' });
    expect(config?.auth.keyHeaderAliases).toEqual(['X-Api-Key']);
    expect(config?.resilience.breaker).toEqual({ failureThreshold: 3, openMs: 10_000 });
    expect(config?.resilience.retry.maxRetries).toBe(2);
    expect(config?.rateLimit.default).toEqual({ limit: 40, windowSeconds: 60 });
    expect(config?.rateLimit.byClass).toEqual({ write: { limit: 10, windowSeconds: 60 } });
    expect(config?.rateLimit.concurrency.mode).toBe('queue');
    expect(config?.cache.ttlSecondsBySet).toEqual({ TimeEntries: 5 });
    expect(config?.cache.metadataTtlSeconds).toBe(3600);
    expect(config?.port).toBe(9090);
  });

  it('reads the same settings from JSON', async () => {
    const path = await file('gateway.json', JSON.stringify({ upstream: { url: 'https://example.com/odata/' }, ops: { metrics: false } }));
    const config = gatewayCommandLine(['--config', path], {})?.config;
    expect(config?.upstream.url).toBe('https://example.com/odata');
    expect(config?.ops.metrics).toBe(false);
  });

  it('lets TIMEGATE_* variables override the file, and flags override both', async () => {
    const path = await file('layers.yaml', YAML);
    const env = {
      [envNameOf('resilience.breaker.failureThreshold')]: '7',
      TIMEGATE_UPSTREAM__CREDENTIAL__FORM: 'query',
      TIMEGATE_AUTH__ALLOWED_KEYS: 'tg_one, sha256:abc',
      TIMEGATE_PORT: '9191',
      TIMEGATE_SOMETHING_ELSE: 'belongs to another command',
    };
    expect(envNameOf('resilience.breaker.failureThreshold')).toBe('TIMEGATE_RESILIENCE__BREAKER__FAILURE_THRESHOLD');
    const fromEnv = gatewayCommandLine(['--config', path], env)?.config;
    expect(fromEnv?.resilience.breaker.failureThreshold).toBe(7);
    expect(fromEnv?.upstream.credential.form).toBe('query');
    expect(fromEnv?.auth.allowedKeys).toEqual(['tg_one', 'sha256:abc']);
    expect(fromEnv?.port).toBe(9191);
    const fromFlags = gatewayCommandLine(['--config', path, '--port', '9292', '--upstream-auth', 'basic', '--upstream', 'http://other:1/V1/Api.svc'], env)?.config;
    expect(fromFlags?.port).toBe(9292);
    expect(fromFlags?.upstream.credential.form).toBe('basic');
    expect(fromFlags?.upstream.url).toBe('http://other:1/V1/Api.svc');
    expect(fromFlags?.upstream.format).toBe('atom');
  });

  it.each([
    ['an unknown key', 'upstream:\n  url: http://x/V1/Api.svc\nresilience:\n  breaker:\n    failureTreshold: 3\n', "unknown key 'resilience.breaker.failureTreshold'"],
    ['an unknown section', 'caching:\n  enabled: false\n', "unknown key 'caching'"],
    ['a wrong type', 'upstream:\n  requestTimeoutMs: soon\n', "'upstream.requestTimeoutMs' must be integer"],
    ['a value outside its set', 'upstream:\n  credential:\n    form: cookie\n', "'upstream.credential.form' must be one of header, basic, bearer, query"],
    ['a bad rate', 'rateLimit:\n  default: fast\n', "'rateLimit.default' must be a rate such as 40/1m"],
    ['a negative number', 'resilience:\n  retry:\n    maxRetries: -1\n', "'resilience.retry.maxRetries' must be >= 0"],
    ['not YAML', 'upstream: [unclosed\n', 'not YAML or JSON'],
    ['a list instead of settings', '- a\n- b\n', 'must hold an object of settings'],
  ])('refuses %s with a message naming it', async (_name, content, message) => {
    const path = await file(`bad-${Math.random().toString(36).slice(2)}.yaml`, content);
    expect(() => configLayers(path, {})).toThrow(ConfigFileError);
    expect(() => configLayers(path, {})).toThrow(message);
    expect(() => configLayers(path, {})).toThrow(path);
  });

  it('names the environment variable when its value is wrong', () => {
    expect(() => configLayers(undefined, { TIMEGATE_RESILIENCE__BREAKER__OPEN_MS: 'later' })).toThrow("environment: 'TIMEGATE_RESILIENCE__BREAKER__OPEN_MS' must be integer");
    expect(() => configLayers(undefined, { TIMEGATE_OPS__METRICS: 'yes' })).toThrow("'TIMEGATE_OPS__METRICS' must be boolean");
  });

  it('says when the file cannot be read', () => {
    expect(() => configLayers(join(folder, 'missing.yaml'), {})).toThrow(/missing\.yaml: cannot be read \(ENOENT\)/);
  });

  it('accepts an empty file', () => {
    expect(parseConfigText('', 'empty.yaml')).toEqual({});
  });
});
