// Tracing as an operator turns it on: `timegate service` and `timegate gateway` as real processes
// with the standard OTEL_* variables, exporting to an OTLP/HTTP receiver in this test. One call
// through either face of the gateway is one trace: the caller's span → the gateway's request →
// its upstream call → the service's request → a database statement. Without the variables (or
// with OTEL_SDK_DISABLED=true) nothing is exported and no OpenTelemetry module is even loaded.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../service/accounts/demo-seed.js';
import { expectOneLineError, timegate } from '../helpers/cli.js';
import { sqlite, testDatabases } from '../helpers/databases.js';
import type { TestDatabasePlace } from '../helpers/databases.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import type { GatewayProcess } from '../helpers/gateway-process.js';
import { startServiceProcess } from '../helpers/service-process.js';
import type { ServiceProcess } from '../helpers/service-process.js';
import { DEMO_NOW } from '../helpers/service.js';

interface ExportedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
}

interface OtlpAttribute { key: string; value: Record<string, unknown> }
interface OtlpBody {
  resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: (Omit<ExportedSpan, 'service' | 'attributes'> & { attributes: OtlpAttribute[] })[] }[] }[];
}

const SERVER = 2;
const CLIENT = 3;
const REGISTER_MODULE_LOG = fileURLToPath(new URL('../fixtures/module-log/register.mjs', import.meta.url));

function attributes(list: readonly OtlpAttribute[]): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));
}

/** An OTLP/HTTP receiver (JSON bodies) on loopback, keeping every span it is sent. */
async function startReceiver() {
  const spans: ExportedSpan[] = [];
  let posts = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') return void response.writeHead(404).end();
      posts += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString()) as OtlpBody;
      for (const { resource, scopeSpans } of body.resourceSpans) {
        const service = String(attributes(resource.attributes)['service.name']);
        for (const { spans: list } of scopeSpans) {
          for (const span of list) spans.push({ ...span, service, attributes: attributes(span.attributes) });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    posts: () => posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The spans of `traceId` once each kind has arrived (the processors export in batches, a span as it ends). */
async function traceOf(spans: readonly ExportedSpan[], traceId: string): Promise<ExportedSpan[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const trace = spans.filter((span) => span.traceId === traceId);
    // A request's statements end before it does, so they are exported with it or before it.
    const complete = trace.some((span) => span.service === 'timegate-service' && span.kind === SERVER)
      && trace.some((span) => span.service === 'timegate-gateway' && span.kind === CLIENT)
      && trace.some((span) => span.service === 'timegate-gateway' && span.kind === SERVER);
    if (complete || Date.now() > deadline) return trace;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A caller's own trace context: the gateway's spans must join it. */
function callerContext() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

function expectOneTrace(trace: readonly ExportedSpan[], callerSpanId: string, system: string): void {
  const only = (found: ExportedSpan[], what: string): ExportedSpan => {
    expect(found, what).toHaveLength(1);
    return found[0] as ExportedSpan;
  };
  const gatewayRequest = only(trace.filter((span) => span.service === 'timegate-gateway' && span.kind === SERVER), 'the gateway request span');
  expect(gatewayRequest.parentSpanId).toBe(callerSpanId);
  const upstreamCall = only(trace.filter((span) => span.service === 'timegate-gateway' && span.kind === CLIENT), 'the upstream call span');
  expect(upstreamCall.parentSpanId).toBe(gatewayRequest.spanId);
  const serviceRequest = only(trace.filter((span) => span.service === 'timegate-service' && span.kind === SERVER), 'the service request span');
  expect(serviceRequest.parentSpanId).toBe(upstreamCall.spanId);
  expect(serviceRequest.name).toBe('GET');
  expect(serviceRequest.attributes['url.path']).toMatch(/^\/V1\/Api\.svc\/Projects\(1\)$/);
  expect(serviceRequest.attributes['http.response.status_code']).toBe(200);
  const statements = trace.filter((span) => span.service === 'timegate-service' && span.kind === CLIENT);
  expect(statements.length).toBeGreaterThan(0);
  for (const statement of statements) expect(statement.parentSpanId).toBe(serviceRequest.spanId);
  expect(new Set(statements.map((span) => span.attributes['db.system.name']))).toEqual(new Set([system]));
  expect(statements.map((span) => span.name)).toContain(`SELECT ${system}`);
  expect(statements.map((span) => span.attributes['db.query.text']).join('\n')).toContain('project');
}

describe.each(testDatabases.map((kind) => [kind.name, kind] as const))('tracing with the OTEL_* variables, on %s', (name, kind) => {
  const system = name === 'postgres' ? 'postgresql' : name;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let place: TestDatabasePlace;
  let service: ServiceProcess;
  let gateway: GatewayProcess;
  let key: string;
  let logDir: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    place = await kind.create();
    const handle = await place.open();
    const seeded = await seedDemoAccount(handle.db, DEMO_NOW);
    if (!seeded.created) throw new Error('not seeded');
    key = (seeded.users[1] as { apiKey: string }).apiKey;
    logDir = mkdtempSync(join(tmpdir(), 'timegate-trace-'));
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    };
    service = await startServiceProcess(['--db', place.url], { ...otel, NODE_OPTIONS: `--import ${REGISTER_MODULE_LOG}`, TIMEGATE_MODULE_LOG: join(logDir, 'service.log') });
    gateway = await startGatewayProcess(service.root, [], otel);
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    await service?.stop();
    await receiver?.close();
    await place?.dispose();
    if (logDir !== undefined) rmSync(logDir, { recursive: true, force: true });
  });

  it('makes one trace of a REST call: caller → gateway → upstream call → service → statement', async () => {
    const caller = callerContext();
    const response = await fetch(`${gateway.restRoot}/projects/1`, { headers: { 'x-serviceapikey': key, traceparent: caller.traceparent } });
    expect(response.status).toBe(200);
    expectOneTrace(await traceOf(receiver.spans, caller.traceId), caller.spanId, system);
  }, 60_000);

  it('makes one trace of a passthrough call, the caller\'s traceparent replaced by the gateway\'s', async () => {
    const caller = callerContext();
    const response = await fetch(`${gateway.odataRoot}/Projects(1)?$format=json`, { headers: { 'x-serviceapikey': key, traceparent: caller.traceparent } });
    expect(response.status).toBe(200);
    expectOneTrace(await traceOf(receiver.spans, caller.traceId), caller.spanId, system);
  }, 60_000);

  it('loads the SDK in a process that traces (the module log sees it)', () => {
    expect(readFileSync(join(logDir, 'service.log'), 'utf8')).toContain('@opentelemetry/sdk-trace');
  });
});

describe('tracing off', () => {
  it('exports nothing and loads no OpenTelemetry module without the variables, or with OTEL_SDK_DISABLED=true', async () => {
    const receiver = await startReceiver();
    const place = await sqlite.create();
    const handle = await place.open();
    const seeded = await seedDemoAccount(handle.db, DEMO_NOW);
    if (!seeded.created) throw new Error('not seeded');
    const key = (seeded.users[1] as { apiKey: string }).apiKey;
    const logDir = mkdtempSync(join(tmpdir(), 'timegate-trace-'));
    const unset = Object.fromEntries(Object.keys(process.env).filter((name) => name.startsWith('OTEL_')).map((name) => [name, undefined]));
    const logged = (file: string) => ({ NODE_OPTIONS: `--import ${REGISTER_MODULE_LOG}`, TIMEGATE_MODULE_LOG: join(logDir, file) });
    const service = await startServiceProcess(['--db', place.url], { ...unset, ...logged('service.log') });
    const gateway = await startGatewayProcess(service.root, [], { ...unset, OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...logged('gateway.log') });
    try {
      const caller = callerContext();
      for (const url of [`${gateway.restRoot}/projects/1`, `${gateway.odataRoot}/Projects(1)?$format=json`]) {
        expect((await fetch(url, { headers: { 'x-serviceapikey': key, traceparent: caller.traceparent } })).status).toBe(200);
      }
      // Past several export delays of a tracing process (50 ms above, 5 s by default the first time).
      await gateway.stop();
      await service.stop();
      expect(receiver.posts()).toBe(0);
      for (const file of ['service.log', 'gateway.log']) {
        const modules = readFileSync(join(logDir, file), 'utf8');
        expect(modules).toContain('/cli/main');
        expect(modules).not.toContain('@opentelemetry');
      }
    } finally {
      await gateway.stop();
      await service.stop();
      await receiver.close();
      await place.dispose();
      rmSync(logDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the OTEL_* variables a program refuses', () => {
  it('names the variable and the value in one line, before listening', async () => {
    const runs = await Promise.all([
      timegate(['service', '--db', ':memory:', '--port', '0'], { OTEL_TRACES_EXPORTER: 'zipkin' }),
      timegate(['service', '--db', ':memory:', '--port', '0'], { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
      timegate(['gateway', '--upstream', 'http://127.0.0.1:9/V1/Api.svc', '--port', '0'], { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' }),
      timegate(['gateway', '--upstream', 'http://127.0.0.1:9/V1/Api.svc', '--port', '0'], { OTEL_TRACES_EXPORTER: 'otlp', OTEL_BSP_SCHEDULE_DELAY: 'soon' }),
    ]);
    const [exporter, protocol, sampler, delay] = runs.map((run, i) => expectOneLineError(run, 2, i < 2 ? 'service' : 'gateway'));
    expect(exporter).toContain("OTEL_TRACES_EXPORTER must be otlp, console or none, not 'zipkin'");
    expect(protocol).toContain("not 'grpc'");
    expect(sampler).toContain("OTEL_TRACES_SAMPLER must be one of always_on");
    expect(delay).toContain("OTEL_BSP_SCHEDULE_DELAY must be a whole number, not 'soon'");
  }, 60_000);
});
