// Which face a request is on, from its path: the passthrough's root in any casing, or anything
// else (the REST face and the gateway's own endpoints, which answer problem+json).
import type { Face } from '../ops/metrics.js';

const PASSTHROUGH_PATH = /^\/v1\/api\.svc(?:[/?]|$)/i;

export function faceOf(url: string): Face {
  return PASSTHROUGH_PATH.test(url) ? 'odata' : 'rest';
}
