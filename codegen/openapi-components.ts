// The model-independent parts of the REST face's OpenAPI document: problem responses, shared
// parameters and headers, security schemes. Operations refer to these by name.
import type { OpenAPIV3_1 } from 'openapi-types';

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

/** Shared parameters of components.parameters: list options and conditional-request headers. */
export const SHARED_PARAMETERS = {
  filter: {
    name: 'filter',
    in: 'query',
    description: 'OData V2 `$filter` expression over the REST (camelCase) property names, e.g. `active eq true and clientId eq 7`.',
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
    description: 'Comma-separated property names to return; all properties when absent.',
    schema: { type: 'string' },
  },
  expand: {
    name: 'expand',
    in: 'query',
    description: 'Comma-separated navigation property names to embed, nested with `/` (e.g. `project/client`).',
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

export type SharedParameterName = keyof typeof SHARED_PARAMETERS;

export const SHARED_HEADERS = {
  ETag: {
    description: 'Version of the resource, for `If-Match` and `If-None-Match`.',
    schema: { type: 'string' },
  },
  Location: {
    description: 'URL of the created resource.',
    schema: { type: 'string', format: 'uri-reference' },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
  },
} as const satisfies Record<string, OpenAPIV3_1.HeaderObject>;

export const SECURITY_SCHEMES: Record<string, OpenAPIV3_1.SecuritySchemeObject> = {
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-ServiceApiKey',
    description: 'The API key in the `X-ServiceApiKey` request header.',
  },
  apiKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'ApiKey',
    description: 'The API key as the `ApiKey` query parameter; accepted for reads only.',
  },
  basicAuth: {
    type: 'http',
    scheme: 'basic',
    description: 'HTTP Basic authentication: any user name (ignored), the API key as the password.',
  },
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'The API key as a bearer token: `Authorization: Bearer <key>`.',
  },
};

/** Any one of the schemes authenticates a read. */
export const READ_SECURITY: OpenAPIV3_1.SecurityRequirementObject[] = Object.keys(SECURITY_SCHEMES).map(
  (name) => ({ [name]: [] }),
);

/** Writes do not accept the key in the query string. */
export const WRITE_SECURITY: OpenAPIV3_1.SecurityRequirementObject[] = READ_SECURITY.filter(
  (requirement) => !('apiKeyQuery' in requirement),
);

export function problemResponseComponents(): Record<string, OpenAPIV3_1.ResponseObject> {
  const responses: Record<string, OpenAPIV3_1.ResponseObject> = {};
  for (const [name, { description }] of Object.entries(PROBLEM_RESPONSES)) {
    const retries = name === 'TooManyRequests' || name === 'ServiceUnavailable';
    responses[name] = {
      description,
      ...(retries ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
      content: { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return responses;
}

export function sharedParameterRef(name: SharedParameterName): OpenAPIV3_1.ReferenceObject {
  return { $ref: `#/components/parameters/${name}` };
}

export function headerRef(name: keyof typeof SHARED_HEADERS): OpenAPIV3_1.ReferenceObject {
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
