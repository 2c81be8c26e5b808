// What one call to the upstream carries through the interceptors of the dispatcher
// (upstream-dispatcher.ts), whichever face made it: whose call it is (the caller's key, which the
// credential interceptor writes in the upstream's form), the deadline, how many attempts it took,
// and whether the client is still there. It rides on the request's headers under a symbol, which
// undici never sends (it reads header names with Object.keys), so the passthrough's calls carry
// it as the REST face's do. Also here: the handler base every interceptor extends.
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { UpstreamCaller } from '../ops/metrics.js';

export interface UpstreamCall {
  readonly face: UpstreamCaller;
  /** The caller's key as it came, whatever its form; undefined for none. */
  readonly key: string | undefined;
  /** The key's partition (`k:<hash>`), or `anonymous`: what credential freshness is kept under. */
  readonly partition: string;
  /** When the call must have its response headers (performance.now() ms); set by the deadline. */
  deadlineAt: number;
  /** Attempts made so far (the first one included). */
  attempts: number;
  /** The client went away: what the upstream does now tells nothing about the upstream. */
  isClientGone: boolean;
}

const CALL = Symbol('timegate.upstreamCall');

type Headers = Record<string, unknown> & { [CALL]?: UpstreamCall };

export function newCall(face: UpstreamCaller, key: string | undefined, partition: string): UpstreamCall {
  return { face, key, partition, deadlineAt: Number.POSITIVE_INFINITY, attempts: 0, isClientGone: false };
}

/** `headers` (a plain object the call owns) with `call` attached. */
export function withCall<T extends object>(headers: T, call: UpstreamCall): T {
  (headers as Headers)[CALL] = call;
  return headers;
}

/** The call a dispatch belongs to; calls made without one (none of the gateway's) get a neutral one. */
export function callOf(opts: Dispatcher.DispatchOptions): UpstreamCall {
  const headers = opts.headers as Headers | null | undefined;
  let call = headers !== null && typeof headers === 'object' && !Array.isArray(headers) ? headers[CALL] : undefined;
  if (call === undefined) {
    call = newCall('ops', undefined, 'anonymous');
    if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) headers[CALL] = call;
  }
  return call;
}

/** Passes every event on unchanged: interceptors override what their policy needs. */
export class ForwardingHandler implements Dispatcher.DispatchHandler {
  constructor(protected readonly handler: Dispatcher.DispatchHandler) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>, socket: Duplex): void {
    this.handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    this.handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: Record<string, string | string[] | undefined>): void {
    this.handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.handler.onResponseError?.(controller, error);
  }
}

/** The controller of a call refused before any attempt reached the pool. */
export const DETACHED_CONTROLLER: Dispatcher.DispatchController = {
  aborted: true,
  paused: false,
  reason: null,
  abort() {},
  pause() {},
  resume() {},
};
