// A CLIENT span per upstream attempt, the child of the span of the request that makes it (the
// active context), and its `traceparent` on the attempt as sent, in place of any the caller sent
// (the passthrough copies the caller's headers): the service's request span is then the child of
// the gateway's call, one trace from the caller to the database. Registered among the
// dispatcher's innermost policies (cli/gateway.ts), so each retry is a span of its own; only
// loaded when tracing is on.
import { SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { Span, Tracer } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import { ForwardingHandler, callOf } from './upstream-call.js';

const TRACE_CONTEXT = new Set(['traceparent', 'tracestate']);

class TracingHandler extends ForwardingHandler {
  constructor(handler: Dispatcher.DispatchHandler, private readonly span: Span) {
    super(handler);
  }

  override onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    this.span.setAttribute('http.response.status_code', statusCode);
    if (statusCode >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
    super.onResponseStart(controller, statusCode, headers, statusMessage);
  }

  override onResponseEnd(controller: Dispatcher.DispatchController, trailers: Record<string, string | string[] | undefined>): void {
    this.span.end();
    super.onResponseEnd(controller, trailers);
  }

  override onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.span.recordException(error);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    this.span.end();
    super.onResponseError(controller, error);
  }
}

/** The headers of `opts` as an object of their own, without the caller's trace context. */
function ownHeaders(headers: Dispatcher.DispatchOptions['headers']): Record<string | symbol, unknown> {
  const own: Record<string | symbol, unknown> = {};
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) own[String(headers[i]).toLowerCase()] = headers[i + 1];
  } else if (headers !== null && typeof headers === 'object') {
    // Object.assign keeps the symbol-keyed call (upstream-call.ts) the inner policies read.
    Object.assign(own, headers);
  }
  for (const name of Object.keys(own)) {
    if (TRACE_CONTEXT.has(name.toLowerCase())) delete own[name];
  }
  return own;
}

export function tracingInterceptor(tracer: Tracer): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => function traceAttempt(opts, handler) {
    const call = callOf(opts);
    const method = opts.method;
    const span = tracer.startSpan(method, {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'server.address': String(opts.origin ?? ''),
        'url.path': opts.path.split('?', 1)[0] ?? '/',
        'timegate.face': call.face,
        ...(call.attempts > 1 ? { 'http.request.resend_count': call.attempts - 1 } : {}),
      },
    });
    const headers = ownHeaders(opts.headers);
    propagation.inject(trace.setSpan(context.active(), span), headers);
    return dispatch({ ...opts, headers: headers as Record<string, string> }, new TracingHandler(handler, span));
  };
}
