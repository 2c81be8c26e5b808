// What a request touches, read from its method and URL against the model, for the read cache
// and the rate limiter alike (worked out once per request, resourceOf()): which face it came in
// on, whether it changes data (function imports such as StartStopWatch change data although OData
// calls them with GET), whether its answer may be cached (a collection, an entity, `$metadata`
// and the service document may; a function import may not, its answer is computed at the moment:
// the running stopwatch, the changes digest), the entity sets whose writes make its answer out of
// date, the sets it makes out of date itself, and its limit class.
//
// Dependencies are deliberately wide: a read of a set depends on that set and on every set linked
// to it by a navigation property, because values are computed across links (a time entry's
// RevenuePerHour is its project's rate). Reads with `$expand`/`expand`, and function imports
// that name no entity set (GetChangesDigest), depend on every set. Writes bump the set they
// address, so both directions of a link are covered by the reader's wide dependency list.
import type { FastifyRequest } from 'fastify';
import type { Face } from '../ops/metrics.js';
import type { Model } from '../../odata/model.js';
import { indexModel } from '../../odata/model-index.js';
import { SELECTION_SUFFIX } from '../../codegen/rest-surface.js';

export interface RequestResource {
  readonly face: Face;
  readonly isWrite: boolean;
  /** Whether the read cache may answer it from a stored answer. */
  readonly isCacheable: boolean;
  /** The limit class: `read`, `write`, or a function's group (`stopwatch`, `changes-digest`). */
  readonly routeClass: string;
  /** The entity set whose TTL applies, `$metadata` for the metadata and service documents. */
  readonly ttlName: string | undefined;
  /** Sets whose writes outdate this read (sorted, unique); empty for documents that never change. */
  readonly dependsOn: readonly string[];
  /** Sets this write outdates. */
  readonly invalidates: readonly string[];
  /**
   * A `$batch`: limits and the cache look at its parts (batch-resources.ts), known once its body
   * is read; it is never cached.
   */
  readonly isBatch?: boolean;
}

export interface FacePaths {
  /** `/api/v1` (the REST face's base path, case-sensitive as its router). */
  readonly restBasePath: string;
  /** `/V1/Api.svc` (the passthrough's root, matched case-insensitively as OData clients vary it). */
  readonly odataBasePath: string;
}

export const DEFAULT_FACE_PATHS: FacePaths = { restBasePath: '/api/v1', odataBasePath: '/V1/Api.svc' };

export const METADATA_TTL_NAME = '$metadata';

const READ_METHODS = new Set(['GET', 'HEAD']);

interface FunctionEntry {
  readonly hasSideEffects: boolean;
  readonly routeClass: string;
  readonly entitySet: string | undefined;
}

export type ResourceClassifier = (method: string, url: string) => RequestResource | undefined;

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function hasQueryOption(query: string, names: readonly string[]): boolean {
  if (query === '') return false;
  for (const part of query.split('&')) {
    const name = decode(part.slice(0, part.indexOf('=') < 0 ? undefined : part.indexOf('='))).toLowerCase();
    if (names.includes(name)) return true;
  }
  return false;
}

/** Builds the classifier of one model once; classifying a request then costs a few lookups. */
export function createResourceClassifier(model: Model, paths: FacePaths = DEFAULT_FACE_PATHS): ResourceClassifier {
  const index = indexModel(model);
  const allSets = model.entitySets.map((s) => s.name).sort();
  const groups = new Map<string, readonly string[]>();
  for (const set of model.entitySets) {
    const linked = new Set([set.name]);
    for (const nav of index.typeOfSet(set).navigationProperties) linked.add(index.navigationTarget(set, nav).name);
    for (const other of model.entitySets) {
      // Links are followed both ways: a set that links here is outdated by writes here too.
      for (const nav of index.typeOfSet(other).navigationProperties) {
        if (index.navigationTarget(other, nav).name === set.name) linked.add(other.name);
      }
    }
    groups.set(set.name, [...linked].sort());
  }
  const setsByName = new Map(model.entitySets.map((s) => [s.name, s.name]));
  const setsByLowerName = new Map(model.entitySets.map((s) => [s.name.toLowerCase(), s.name]));
  const setsByRestPath = new Map(model.entitySets.map((s) => [s.restPath, s.name]));

  const functionOf = (fn: Model['functionImports'][number]): FunctionEntry => ({
    hasSideEffects: fn.rest.method !== 'GET',
    routeClass: fn.rest.path.split('/').find((s) => s !== '') ?? fn.name,
    entitySet: fn.entitySet,
  });
  const functionsByName = new Map(model.functionImports.map((fn) => [fn.name, functionOf(fn)]));
  const functionsByLowerName = new Map(model.functionImports.map((fn) => [fn.name.toLowerCase(), functionOf(fn)]));
  const functionsByRest = new Map(model.functionImports.map((fn) => [`${fn.rest.method} ${fn.rest.path}`, functionOf(fn)]));

  const restBase = paths.restBasePath.replace(/\/+$/, '');
  const odataBase = paths.odataBasePath.replace(/\/+$/, '').toLowerCase();

  const setResource = (face: Face, set: string, isWrite: boolean, readsAll: boolean, writesLinks: boolean): RequestResource => ({
    face,
    isWrite,
    isCacheable: !isWrite,
    routeClass: isWrite ? 'write' : 'read',
    ttlName: set,
    dependsOn: isWrite ? [] : readsAll ? allSets : (groups.get(set) ?? allSets),
    invalidates: isWrite ? (writesLinks ? (groups.get(set) ?? allSets) : [set]) : [],
  });
  const functionResource = (face: Face, fn: FunctionEntry, readsAll: boolean): RequestResource => {
    const group = fn.entitySet === undefined ? allSets : (groups.get(fn.entitySet) ?? allSets);
    return {
      face,
      isWrite: fn.hasSideEffects,
      isCacheable: false,
      routeClass: fn.routeClass,
      ttlName: fn.entitySet,
      dependsOn: fn.hasSideEffects ? [] : readsAll ? allSets : group,
      invalidates: fn.hasSideEffects ? (fn.entitySet === undefined ? allSets : [fn.entitySet]) : [],
    };
  };
  const unknownResource = (face: Face, isWrite: boolean): RequestResource => ({
    face,
    isWrite,
    isCacheable: false,
    routeClass: isWrite ? 'write' : 'read',
    ttlName: undefined,
    dependsOn: isWrite ? [] : allSets,
    invalidates: isWrite ? allSets : [],
  });
  const documentResource: RequestResource = {
    face: 'odata',
    isWrite: false,
    isCacheable: true,
    routeClass: 'read',
    ttlName: METADATA_TTL_NAME,
    dependsOn: [],
    invalidates: [],
  };

  const batchResource = (face: Face): RequestResource => ({
    face,
    isWrite: false,
    isCacheable: false,
    routeClass: 'batch',
    ttlName: undefined,
    dependsOn: [],
    invalidates: [],
    isBatch: true,
  });

  function classifyOData(method: string, rest: string, query: string): RequestResource {
    const isWriteMethod = !READ_METHODS.has(method);
    const path = rest.replace(/^\/+/, '');
    if (method === 'POST' && path === '$batch') return batchResource('odata');
    if (path === '' || path === '$metadata') return isWriteMethod ? unknownResource('odata', true) : documentResource;
    const end = path.search(/[(/]/);
    const first = decode(end < 0 ? path : path.slice(0, end));
    const readsAll = hasQueryOption(query, ['$expand']);
    const set = setsByName.get(first) ?? setsByLowerName.get(first.toLowerCase());
    // `Projects(7)/$links/Client` and writes through navigation change links of the other side too.
    if (set !== undefined) return setResource('odata', set, isWriteMethod, readsAll, end >= 0 && path.indexOf('/', end) >= 0);
    const fn = functionsByName.get(first) ?? functionsByLowerName.get(first.toLowerCase());
    if (fn !== undefined) return functionResource('odata', fn, readsAll);
    // Anything unknown: a write may touch every set, a read may depend on every set.
    return unknownResource('odata', isWriteMethod);
  }

  function classifyRest(method: string, rest: string, query: string): RequestResource | undefined {
    const restMethod = method === 'HEAD' ? 'GET' : method;
    const path = rest.replace(/\/+$/, '');
    const readsAll = hasQueryOption(query, ['expand']);
    const fn = functionsByRest.get(`${restMethod} ${path}`);
    if (fn !== undefined) return functionResource('rest', fn, readsAll);
    const segments = path.split('/').filter((s) => s !== '');
    // `POST /time-entries:batch`: a bulk create, counted by its items.
    if (method === 'POST' && segments.length === 1 && segments[0]?.endsWith(':batch') === true && setsByRestPath.has(decode(segments[0].slice(0, -6)))) {
      return batchResource('rest');
    }
    // `GET /projects:select` reads the set as `GET /projects` does.
    const first = segments[0] ?? '';
    const setPath = first.endsWith(SELECTION_SUFFIX) ? first.slice(0, -SELECTION_SUFFIX.length) : first;
    const set = setsByRestPath.get(decode(setPath));
    if (set === undefined) return undefined;
    return setResource('rest', set, !READ_METHODS.has(method), readsAll, false);
  }

  // Clients ask for the same URLs again and again: each is classified once (bounded: emptied when full).
  const known = new Map<string, RequestResource | null>();
  const MAX_KNOWN = 10_000;
  const classifyUrl = (method: string, url: string): RequestResource | undefined => {
    const queryStart = url.indexOf('?');
    const path = queryStart < 0 ? url : url.slice(0, queryStart);
    const query = queryStart < 0 ? '' : url.slice(queryStart + 1);
    if (path.startsWith(restBase) && (path.length === restBase.length || path[restBase.length] === '/')) {
      return classifyRest(method, path.slice(restBase.length), query);
    }
    const lower = path.toLowerCase();
    if (lower.startsWith(odataBase) && (lower.length === odataBase.length || lower[odataBase.length] === '/')) {
      return classifyOData(method, path.slice(odataBase.length), query);
    }
    return undefined;
  };
  return (method, url) => {
    const memo = `${method} ${url}`;
    let resource = known.get(memo);
    if (resource === undefined) {
      resource = classifyUrl(method, url) ?? null;
      if (known.size >= MAX_KNOWN) known.clear();
      known.set(memo, resource);
    }
    return resource ?? undefined;
  };
}

/** Where a request keeps what it was classified as (a property, not a WeakMap: read by several hooks of every request). */
const RESOURCE = Symbol('timegate.resource');
type Classified = FastifyRequest & { [RESOURCE]?: { readonly classify: ResourceClassifier; readonly resource: RequestResource | undefined } };

/** What `request` touches, classified once however many hooks ask. */
export function resourceOf(request: FastifyRequest, classify: ResourceClassifier): RequestResource | undefined {
  const known = (request as Classified)[RESOURCE];
  if (known !== undefined && known.classify === classify) return known.resource;
  const resource = classify(request.method, request.url);
  (request as Classified)[RESOURCE] = { classify, resource };
  return resource;
}
