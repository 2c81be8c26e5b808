// What an OData request addresses and asks for: its URI parsed against the model (resource path
// and system query options) and what its representation must be. Pure: no data is touched.
import type { ModelIndex } from '../../odata/model-index.js';
import type { QueryLimits } from '../../odata/limits.js';
import { ResourceNotFoundError } from '../../odata/errors.js';
import type { QueryOptions } from '../../odata/query-options.js';
import { parseQueryOptions } from '../../odata/query-options.js';
import type { ResourcePath } from '../../odata/resource-path.js';
import { parseResourcePath, splitServiceRoot } from '../../odata/resource-path.js';
import type { ResponseContext } from './representations.js';

export interface RequestTarget {
  readonly path: ResourcePath;
  readonly query: QueryOptions;
  /** The resource path below the root as the client wrote it (percent-encoded), without `/`. */
  readonly rawPath: string;
  /** The query string as the client wrote it, without `?`. */
  readonly rawQuery: string;
  readonly response: ResponseContext;
}

export interface TargetRequest {
  /** Path and query as received (`/V1/Api.svc/Projects(7)?$format=json`). */
  readonly url: string;
  readonly protocol: string;
  /** Host and port the request was sent to. */
  readonly host: string;
  readonly accept: string | undefined;
  /** The value of DATE_TIME_OFFSETS_HEADER (odata/wall-clock.ts), if sent. */
  readonly dateTimeOffsets?: string | undefined;
}

/**
 * The service root is matched case-insensitively; URIs in responses use the configured
 * spelling on the scheme, host and port the request came in on (clients follow them).
 */
export function parseRequestTarget(request: TargetRequest, rootPath: string, index: ModelIndex, limits: Partial<QueryLimits>): RequestTarget {
  const queryStart = request.url.indexOf('?');
  const fullPath = queryStart < 0 ? request.url : request.url.slice(0, queryStart);
  const rawQuery = queryStart < 0 ? '' : request.url.slice(queryStart + 1);
  const below = splitServiceRoot(fullPath, rootPath);
  if (below === undefined) throw new ResourceNotFoundError(`nothing is served at ${fullPath.slice(0, 100)}; the service root is ${rootPath}`);
  const path = parseResourcePath(below, index, { limits });
  const query = parseQueryOptions(rawQuery, path, index, { limits });
  return {
    path,
    query,
    rawPath: below.replace(/^\/+|\/+$/g, ''),
    rawQuery,
    response: {
      serviceRoot: `${request.protocol}://${request.host}${rootPath}/`,
      accept: request.accept,
      dateTimeOffsets: request.dateTimeOffsets === '1',
      format: query.format,
      callback: query.callback,
    },
  };
}

/**
 * The query string for the next page: the request's own options in their order and spelling
 * (custom ones too, so a client authenticating by `ApiKey` can follow it), with `$skip` dropped
 * (the token supersedes it), `$top` reduced by what was sent, and the new `$skiptoken`.
 */
export function nextPageQuery(rawQuery: string, skipToken: string, remainingTop: number | undefined): string {
  const kept = rawQuery.split('&').filter((pair) => {
    if (pair === '') return false;
    const eq = pair.indexOf('=');
    const name = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
    return name !== '$skiptoken' && name !== '$top' && name !== '$skip';
  });
  if (remainingTop !== undefined) kept.push(`$top=${remainingTop}`);
  kept.push(`$skiptoken=${encodeURIComponent(skipToken)}`);
  return kept.join('&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
