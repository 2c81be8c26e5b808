// The shared parts of the REST face's OpenAPI document: problem responses, shared parameters and
// headers (their examples from the model), security schemes. Operations refer to these by name.
import type { OpenAPIV3_1 } from 'openapi-types';
import type { DescriptionExamples } from './description-examples.js';

/** RFC 9457 problem responses of components.responses, by name. */
export const PROBLEM_RESPONSES = {
  BadRequest: { status: 400, description: 'The request is malformed: a parameter, the query options or the body cannot be read.' },
  Unauthorized: { status: 401, description: 'No API key was given, or the key is not valid.' },
  Forbidden: { status: 403, description: 'The API key is valid, but its user may not do this.' },
  NotFound: { status: 404, description: 'The resource does not exist (or is not visible to this user).' },
  Conflict: { status: 409, description: 'The request conflicts with the current state of the resource.' },
  PreconditionFailed: { status: 412, description: 'The `If-Match` ETag no longer matches: the resource was changed meanwhile.' },
  PayloadTooLarge: { status: 413, description: 'The request body, or the number of items in it, is beyond what the gateway accepts.' },
  UnsupportedMediaType: { status: 415, description: 'The request body is not in a supported media type.' },
  UnprocessableContent: { status: 422, description: 'The body is well-formed but invalid: see `errors` for each field.' },
  TooManyRequests: { status: 429, description: 'The rate limit is exceeded; retry after the time given in `Retry-After`.' },
  BadGateway: { status: 502, description: 'The upstream OData service answered with an error or an unreadable response.' },
  ServiceUnavailable: { status: 503, description: 'The upstream OData service is unavailable; retry later.' },
  GatewayTimeout: { status: 504, description: 'The upstream OData service did not answer in time.' },
} as const;

export type ProblemResponseName = keyof typeof PROBLEM_RESPONSES;

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/**
 * Shared parameters of components.parameters: list options and conditional-request headers,
 * their examples from the model (description-examples.ts).
 */
export function sharedParameters(examples: DescriptionExamples) {
  return {
  filter: {
    name: 'filter',
    in: 'query',
    description: `OData V2 \`$filter\` expression over the REST (camelCase) property names, e.g. \`${examples.filter}\`.`,
    schema: { type: 'string' },
    example: 'active eq true',
  },
  orderBy: {
    name: 'orderBy',
    in: 'query',
    description: 'Sort order: comma-separated property names, each optionally followed by `asc` or `desc`, e.g. `name desc,id`.',
    schema: { type: 'string' },
    example: 'name desc,id',
  },
  select: {
    name: 'select',
    in: 'query',
    required: true,
    description: `Comma-separated property names to return, nested with \`/\` inside expanded navigations (e.g. \`${examples.select}\`).`,
    schema: { type: 'string', minLength: 1 },
    example: 'id,name',
  },
  listSelect: {
    name: 'select',
    in: 'query',
    description:
      'Comma-separated property names to return for each item, nested with `/` inside expanded navigations ' +
      `(e.g. \`${examples.select}\`). Give it on the first page; a \`cursor\` carries it to the next (every property when absent).`,
    schema: { type: 'string', minLength: 1 },
    example: 'id,name',
  },
  expand: {
    name: 'expand',
    in: 'query',
    description: `Comma-separated navigation property names to embed, nested with \`/\` (e.g. \`${examples.expand}\`).`,
    schema: { type: 'string' },
  },
  limit: {
    name: 'limit',
    in: 'query',
    description: 'Maximum number of items in one page.',
    schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
  },
  cursor: {
    name: 'cursor',
    in: 'query',
    description: 'Opaque position of the next page, taken from `next` of the previous page.',
    schema: { type: 'string' },
  },
  count: {
    name: 'count',
    in: 'query',
    description: 'When `true`, the response includes `total`, the number of items matching the filter.',
    schema: { type: 'boolean', default: false },
  },
  ifMatch: {
    name: 'If-Match',
    in: 'header',
    description: 'ETag of the version the change is based on; the request fails with 412 when the resource changed since.',
    schema: { type: 'string' },
  },
  ifNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    description: 'ETag of a cached copy; the response is 304 without a body when the resource is unchanged.',
    schema: { type: 'string' },
  },
  } as const satisfies Record<string, OpenAPIV3_1.ParameterObject>;
}

export type SharedParameterName = keyof ReturnType<typeof sharedParameters>;

/** Shared headers of components.headers, their examples from the model. */
export function sharedHeaders(examples: DescriptionExamples) {
  return {
  ETag: {
    description: 'Version of the resource, for `If-Match` and `If-None-Match`.',
    schema: { type: 'string' },
    example: 'W/"3"',
  },
  Location: {
    description: 'URL of the created resource.',
    schema: { type: 'string', format: 'uri-reference' },
    example: examples.entityPath,
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
    example: 17,
  },
  XRequestId: {
    description:
      "The request's id: the caller's `X-Request-Id` when it sent a usable one, else a new one. " +
      'It goes upstream too and is in every log line of the request.',
    schema: { type: 'string' },
    example: 'req-1a2b3c',
  },
  RateLimitPolicy: {
    description:
      'The rate-limit policies this request counted against (IETF draft-ietf-httpapi-ratelimit-headers): ' +
      'quota `q` per window of `w` seconds. Only when the gateway limits rates.',
    schema: { type: 'string' },
    example: '"read";q=100;w=60',
  },
  RateLimit: {
    description:
      'What is left of each policy of `RateLimit-Policy`: `r` requests, for `t` more seconds. Only when the gateway limits rates ' +
      '(configured for the older fields, it sends `X-RateLimit-Limit`, `-Remaining` and `-Reset` instead, or as well).',
    schema: { type: 'string' },
    example: '"read";r=42;t=17',
  },
  CacheStatus: {
    description: "What the gateway's read cache did (RFC 9211): a hit with its freshness left, or why it forwarded. Only when the cache is on.",
    schema: { type: 'string' },
    example: 'timegate; hit; ttl=42',
  },
  XCache: {
    description: 'The same in one word: `HIT`, `MISS` or `STALE` (served from the cache while the upstream fails). Only when the cache is on.',
    schema: { type: 'string', enum: ['HIT', 'MISS', 'STALE'] },
    example: 'HIT',
  },
  Age: {
    description: 'Seconds since the answer was stored in the read cache; on answers from the cache only.',
    schema: { type: 'integer', minimum: 0 },
    example: 12,
  },
  } as const satisfies Record<string, OpenAPIV3_1.HeaderObject>;
}

export type SharedHeaderName = keyof ReturnType<typeof sharedHeaders>;

/** Headers of every answer of the face, by their names on the wire. */
export const ANSWER_HEADERS: Readonly<Record<string, SharedHeaderName>> = {
  'X-Request-Id': 'XRequestId',
  'RateLimit-Policy': 'RateLimitPolicy',
  RateLimit: 'RateLimit',
};

/** Headers of the answers of cacheable reads (sets, entities, navigations), on top of ANSWER_HEADERS. */
export const CACHED_READ_HEADERS: Readonly<Record<string, SharedHeaderName>> = {
  'Cache-Status': 'CacheStatus',
  'X-Cache': 'XCache',
  Age: 'Age',
};

/** `{ 'X-Request-Id': { $ref } , ... }` of a map of wire names to shared headers. */
export function headerRefs(names: Readonly<Record<string, SharedHeaderName>>): Record<string, OpenAPIV3_1.ReferenceObject> {
  return Object.fromEntries(Object.entries(names).map(([wire, name]) => [wire, headerRef(name)]));
}

// The header key is the default: listed first, it is what generated clients (hey-api, orval,
// openapi-fetch) send; Bearer and Basic are alternatives. The query key only authenticates reads
// (the gateway refuses a write carrying only that, 403), so it is an alternative of GETs only.
export const SECURITY_SCHEMES: Record<string, OpenAPIV3_1.SecuritySchemeObject> = {
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-ServiceApiKey',
    description: 'The API key in the `X-ServiceApiKey` request header: the default way to authenticate.',
  },
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'The API key as a bearer token: `Authorization: Bearer <key>`.',
  },
  basicAuth: {
    type: 'http',
    scheme: 'basic',
    description: 'HTTP Basic authentication: any user name (ignored), the API key as the password.',
  },
  apiKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'ApiKey',
    description: 'The API key as the `ApiKey` query parameter; accepted for reads (GET) only.',
  },
};

/** The document's default: every scheme but the query key, the header first. */
export const DEFAULT_SECURITY: OpenAPIV3_1.SecurityRequirementObject[] = Object.keys(SECURITY_SCHEMES)
  .filter((name) => name !== 'apiKeyQuery')
  .map((name) => ({ [name]: [] }));

/** Reads also take the key in the query string, as the last alternative. */
export const READ_SECURITY: OpenAPIV3_1.SecurityRequirementObject[] = [...DEFAULT_SECURITY, { apiKeyQuery: [] }];

export function problemResponseComponents(): Record<string, OpenAPIV3_1.ResponseObject> {
  const responses: Record<string, OpenAPIV3_1.ResponseObject> = {};
  for (const [name, { description }] of Object.entries(PROBLEM_RESPONSES)) {
    const retries = name === 'TooManyRequests' || name === 'ServiceUnavailable';
    responses[name] = {
      description,
      headers: { ...headerRefs(ANSWER_HEADERS), ...(retries ? { 'Retry-After': headerRef('RetryAfter') } : {}) },
      content: { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return responses;
}

export function sharedParameterRef(name: SharedParameterName): OpenAPIV3_1.ReferenceObject {
  return { $ref: `#/components/parameters/${name}` };
}

export function headerRef(name: SharedHeaderName): OpenAPIV3_1.ReferenceObject {
  return { $ref: `#/components/headers/${name}` };
}

export function schemaRef(name: string): OpenAPIV3_1.ReferenceObject {
  return { $ref: `#/components/schemas/${name}` };
}

/** The `responses` entries of the given problem responses, keyed by status code. */
export function problemResponses(
  names: readonly ProblemResponseName[],
): Record<string, OpenAPIV3_1.ReferenceObject> {
  const sorted = [...names].sort((a, b) => PROBLEM_RESPONSES[a].status - PROBLEM_RESPONSES[b].status);
  return Object.fromEntries(
    sorted.map((name) => [String(PROBLEM_RESPONSES[name].status), { $ref: `#/components/responses/${name}` }]),
  );
}
