// OpenTelemetry tracing of one program, loaded (by a dynamic import) only when tracing-config.ts
// says tracing is on, so a program without OTEL_* variables loads none of it and pays nothing per
// request. Built from the SDK's parts rather than @opentelemetry/sdk-node: sdk-node pulls in
// every exporter (gRPC, protobuf, Zipkin), metrics, logs and auto-instrumentation, where this needs
// a tracer provider (@opentelemetry/sdk-trace), the OTLP/HTTP exporter, the W3C trace-context
// propagator (@opentelemetry/core) and the AsyncLocalStorage context manager, which carries the
// request's span to the calls its handler makes (the upstream call, the database statements).
//
// The spans of a request: a SERVER span per request (the `requestSpans` hooks), a child of the
// caller's `traceparent`; the gateway's CLIENT span per upstream attempt
// (gateway/upstream/tracing-interceptor.ts) sends its own `traceparent`, so the service's request
// span is its child; and a span per database statement (service/storage/statement-spans.ts).
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { Context, Span, Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ConsoleSpanExporter, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Sampler } from '@opentelemetry/sdk-trace';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SamplerName, TracingConfig } from './tracing-config.js';

export interface Tracing {
  readonly tracer: Tracer;
  /** Adds a SERVER span to every request of `app` (call before any route is registered). */
  requestSpans(app: FastifyInstance): void;
  /** Exports the spans still buffered; the program's last step. */
  shutdown(): Promise<void>;
}

export function startTracing(config: TracingConfig): Tracing {
  const exporter = config.exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    sampler: samplerOf(config.sampler, config.samplerRatio),
    spanProcessors: [new BatchSpanProcessor({ exporter, ...config.batch })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer('timegate');
  return {
    tracer,
    requestSpans: (app) => addRequestSpans(app, tracer),
    shutdown: () => provider.shutdown(),
  };
}

function samplerOf(name: SamplerName, ratio: number): Sampler {
  const root = name.endsWith('always_on') ? new AlwaysOnSampler() : name.endsWith('always_off') ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

interface Traced {
  readonly span: Span;
  readonly context: Context;
}

function addRequestSpans(app: FastifyInstance, tracer: Tracer): void {
  const traced = new WeakMap<FastifyRequest, Traced>();
  app.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(request.method, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': request.method, 'url.path': request.url.split('?', 1)[0] ?? '/' },
    }, parent);
    const active = trace.setSpan(parent, span);
    traced.set(request, { span, context: active });
    context.with(active, done);
  });
  // The body is read on the socket's events, outside the context onRequest opened: the handler
  // gets it again here, so what it awaits (statements, upstream calls) is under the request's span.
  app.addHook('preHandler', (request, _reply, done) => {
    const entry = traced.get(request);
    if (entry === undefined) done();
    else context.with(entry.context, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const entry = traced.get(request);
    if (entry !== undefined) {
      const route = request.routeOptions.url;
      // A catch-all route ('*', the OData service's) says nothing: the span keeps the method alone.
      if (route !== undefined && route !== '*') entry.span.updateName(`${request.method} ${route}`).setAttribute('http.route', route);
      entry.span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) entry.span.setStatus({ code: SpanStatusCode.ERROR });
      entry.span.end();
    }
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    const entry = traced.get(request);
    entry?.span.setStatus({ code: SpanStatusCode.ERROR, message: 'client went away' });
    entry?.span.end();
    done();
  });
}
