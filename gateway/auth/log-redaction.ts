// Keeps keys out of the logs: the request serialiser logs the URL with every ApiKey value
// masked, and no headers at all (where the other key forms travel).
import type { FastifyRequest } from 'fastify';
import { redactQueryKey } from './query-key.js';

export interface LoggedRequest {
  readonly method: string;
  readonly url: string;
  readonly host: string | undefined;
  readonly remoteAddress: string | undefined;
}

/** pino `serializers.req` for Fastify: what the default logs, the URL redacted. */
export function redactedRequestSerializer(request: FastifyRequest): LoggedRequest {
  return {
    method: request.method,
    url: redactQueryKey(request.url),
    host: request.host,
    remoteAddress: request.ip,
  };
}
