// What every REST handler reads from its request the same way: who calls (the credential the
// auth hook read, which the upstream dispatcher writes in the upstream's form), the query without
// the key, and a JSON body in one of the operation's media types.
import { mediaTypeOf } from '../../odata/content-negotiation.js';
import type { FastifyRequest } from 'fastify';
import { InvalidQueryError, MalformedBodyError, UnsupportedMediaTypeError } from '../errors.js';
import type { FieldError } from '../errors.js';
import type { CallContext } from '../upstream/odata-upstream.js';

export function callContextOf(request: FastifyRequest): CallContext {
  return { credential: request.credential, requestId: request.id };
}

/** A fresh copy of the query parameters without the ApiKey (validators coerce in place). */
export function queryOf(request: FastifyRequest): Record<string, unknown> {
  const query = request.query;
  const rest: Record<string, unknown> = {};
  if (typeof query !== 'object' || query === null) return rest;
  // The names come decoded (`%41piKey` is `ApiKey`); a look-alike spelling was refused at the edge.
  for (const [name, value] of Object.entries(query)) if (name.toLowerCase() !== 'apikey') rest[name] = value;
  return rest;
}

/** A 400 for query parameters an operation without options does not take. */
export function refuseUnknownParameters(query: Readonly<Record<string, unknown>>, allowed: readonly string[]): void {
  const errors: FieldError[] = Object.keys(query)
    .filter((name) => !allowed.includes(name))
    .map((name) => ({ pointer: `/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`, detail: `query parameter '${name}' is not allowed here` }));
  if (errors.length > 0) throw new InvalidQueryError((errors[0] as FieldError).detail, errors);
}

/**
 * The `select` and `expand` of an operation on one entity (the only options it takes), each a
 * single string; anything else is a 400 naming the parameter, as is a `:select` read without one.
 */
export function entityOptionsOf(request: FastifyRequest, needsSelect = false): { select?: string; expand?: string } {
  const query = queryOf(request);
  refuseUnknownParameters(query, ['select', 'expand']);
  const errors: FieldError[] = [];
  if (needsSelect && query.select === undefined) errors.push({ pointer: '/select', detail: "'select' is required here: the properties to return, comma-separated" });
  for (const name of ['select', 'expand'] as const) {
    if (query[name] !== undefined && typeof query[name] !== 'string') errors.push({ pointer: `/${name}`, detail: `'${name}' must be given once` });
  }
  if (errors.length > 0) throw new InvalidQueryError((errors[0] as FieldError).detail, errors);
  return query as { select?: string; expand?: string };
}


/** The parsed JSON body, sent in one of `mediaTypes`. */
export function jsonBodyOf(request: FastifyRequest, mediaTypes: readonly string[]): unknown {
  const mediaType = mediaTypeOf(request.headers['content-type']);
  if (mediaType === undefined || request.body === undefined) throw new MalformedBodyError(`this operation needs a body (${mediaTypes.join(' or ')})`);
  if (!mediaTypes.includes(mediaType)) {
    throw new UnsupportedMediaTypeError(`this operation reads ${mediaTypes.join(' or ')}, not ${mediaType.slice(0, 100)}`);
  }
  return request.body;
}
