// What the rate limiter and the read cache both need to know of a request (what it touches, whose
// key it carries), worked out once per request and shared, since both run on every request.
import type { FastifyRequest } from 'fastify';
import { credentialPartition } from './credential-hash.js';
import type { RequestResource, ResourceClassifier } from './request-resources.js';

export interface RequestFacts {
  readonly classify: ResourceClassifier;
  readonly resource: RequestResource | undefined;
  /** `k:<hash of the key>`, undefined for a request without a key. */
  readonly partition: string | undefined;
}

const known = new WeakMap<FastifyRequest, RequestFacts>();

export function factsOf(request: FastifyRequest, classify: ResourceClassifier, keyHeaders: readonly string[] | undefined): RequestFacts {
  const found = known.get(request);
  if (found !== undefined && found.classify === classify) return found;
  const facts: RequestFacts = {
    classify,
    resource: classify(request.method, request.url),
    partition: credentialPartition(request.headers, request.query, keyHeaders),
  };
  known.set(request, facts);
  return facts;
}
