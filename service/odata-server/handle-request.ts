// Which handler serves a request: by its HTTP method (after `X-HTTP-Method` tunnelling) and what
// its resource path addresses. Everything but the service document and `$metadata` needs a
// caller; writes are asked for as writes, so the caller's credential can be held to read-only.
import type { ResourcePath } from '../../odata/resource-path.js';
import { UriSyntaxError } from '../../odata/errors.js';
import { BadRequestError, MethodNotAllowedError } from './errors.js';
import { invokeFunction } from './function-imports.js';
import type { HandlerResult, Operation, ServerParts } from './operation.js';
import type { Preconditions } from './preconditions.js';
import { readCollection, readEntity, readLinks, readProperty } from './read-handlers.js';
import type { RequestTarget } from './request-target.js';
import type { RequestBody } from './write-handlers.js';
import { createEntity, deleteEntity, updateEntity } from './write-handlers.js';
import { dateTimeShower, filterAsInstants } from './wall-clock-edge.js';

export type Intent = 'read' | 'write';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'MERGE', 'PATCH', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];

/** What the request does, with POST + `X-HTTP-Method` read as the tunnelled method. */
export function effectiveMethod(method: string, tunnelled: string | undefined): Method {
  if (method !== 'POST' || tunnelled === undefined) return method as Method;
  const verb = tunnelled.trim().toUpperCase();
  if (verb === 'PUT' || verb === 'MERGE' || verb === 'PATCH' || verb === 'DELETE') return verb;
  throw new UriSyntaxError(`X-HTTP-Method ${tunnelled.slice(0, 20)} cannot be tunnelled through POST (use PUT, MERGE, PATCH or DELETE)`, 'X-HTTP-Method');
}

function allowed(path: ResourcePath): string[] {
  switch (path.kind) {
    case 'serviceDocument':
    case 'metadata':
    case 'links':
    case 'property':
      return ['GET', 'HEAD'];
    case 'batch':
      return ['POST'];
    case 'collection':
      return path.count || !path.set.capabilities.creatable ? ['GET', 'HEAD'] : ['GET', 'HEAD', 'POST'];
    case 'entity': {
      // What the model says the set allows (sap:updatable, sap:deletable).
      const { updatable, deletable } = path.set.capabilities;
      return ['GET', 'HEAD', ...(updatable ? ['PUT', 'MERGE', 'PATCH'] : []), ...(deletable ? ['DELETE'] : [])];
    }
    case 'functionImport':
      return [path.functionImport.httpMethod];
  }
}

function notAllowed(method: Method, path: ResourcePath): MethodNotAllowedError {
  const allow = allowed(path);
  return new MethodNotAllowedError(`${method} is not allowed here; allowed: ${allow.join(', ')}`, allow);
}

export async function handleRequest<C>(
  parts: ServerParts<C>,
  target: RequestTarget,
  method: Method,
  body: RequestBody,
  preconditions: Preconditions,
  authenticate: (intent: Intent) => Promise<C>,
): Promise<HandlerResult> {
  const { path } = target;
  const { representations } = parts;
  const reading = method === 'GET' || method === 'HEAD';
  if (path.kind === 'serviceDocument' || path.kind === 'metadata') {
    if (!reading) throw notAllowed(method, path);
    const representation = path.kind === 'metadata' ? representations.metadata(target.response) : representations.serviceDocumentOf(target.response);
    return { status: 200, representation };
  }
  if (path.kind === 'batch') {
    // A POST is the batch handler's (batch.ts); one reaching here was sent inside a batch.
    if (method !== 'POST') throw notAllowed(method, path);
    throw new BadRequestError('a batch cannot hold a $batch request');
  }
  if (path.kind === 'functionImport' && (method === 'HEAD' || method !== path.functionImport.httpMethod)) {
    // HEAD must be safe, and StartStopWatch is a GET that is not.
    throw notAllowed(method, path);
  }
  const caller = await authenticate(reading ? 'read' : 'write');
  const wallClock = parts.dataSource.wallClock?.(caller);
  // From here on, Edm.DateTime values of the request are instants and those of the response are
  // put on the caller's wall clock (wall-clock-edge.ts).
  const op: Operation<C> = {
    parts,
    caller,
    wallClock,
    preconditions,
    target: {
      ...target,
      query: target.query.filter === undefined ? target.query : { ...target.query, filter: filterAsInstants(target.query.filter, wallClock) },
      response: { ...target.response, showDateTime: dateTimeShower(wallClock, target.response.dateTimeOffsets === true) },
    },
  };
  switch (path.kind) {
    case 'functionImport':
      return invokeFunction(op, path.functionImport);
    case 'collection':
      if (reading) return readCollection(op, path);
      if (method === 'POST' && allowed(path).includes('POST')) return createEntity(op, path, body);
      break;
    case 'entity':
      if (reading) return readEntity(op, path);
      if (!allowed(path).includes(method)) break;
      if (method === 'DELETE') return deleteEntity(op, path);
      return updateEntity(op, path, body, method === 'PUT' ? 'replace' : 'merge');
    case 'property':
      if (reading) return readProperty(op, path);
      break;
    case 'links':
      if (reading) return readLinks(op, path);
      break;
  }
  throw notAllowed(method, path);
}
