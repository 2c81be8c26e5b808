// The resilience layer's own refusals. Both carry a Retry-After: the REST face's problem handler
// and the passthrough's OData error writer send it along.
import { GatewayError } from '../errors.js';

/** The circuit breaker is open: the upstream failed repeatedly and is given time to recover. */
export class UpstreamUnavailableError extends GatewayError {
  override readonly name = 'UpstreamUnavailableError';
  constructor(readonly retryAfterSeconds: number) {
    super(503, 'upstream-unavailable', 'Service unavailable', `the upstream OData service is failing; the gateway stops calling it for ${retryAfterSeconds} s`);
  }
}

/** The gateway itself is overloaded and sheds this request. */
export class OverloadedError extends GatewayError {
  override readonly name = 'OverloadedError';
  constructor(readonly retryAfterSeconds: number) {
    super(503, 'overloaded', 'Service unavailable', 'the gateway is overloaded; try again shortly');
  }
}

/** Whole seconds for a Retry-After header (at least 1). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
