// A method the model does not offer on a path the REST face has (`PUT /projects/1`,
// `POST /users`) is a 405 with an `Allow` header, not a 404: the resource exists, and the client
// learns what it may do with it instead of suspecting a wrong URL.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RestSurface } from '../../codegen/rest-surface.js';
import { selectionPathOf } from '../../codegen/rest-surface.js';
import { sendProblem } from '../problem-handler.js';
import { MethodNotAllowedError } from '../errors.js';
import { twinRouteOptions } from './selection-twins.js';
import { routePath } from './set-routes.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The methods a refusal is registered for; HEAD follows GET (Fastify serves it), OPTIONS is left to CORS. */
const REFUSABLE: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Each route path of the surface with the methods its operations use, in the surface's order. */
export function methodsByPath(surface: RestSurface): Map<string, Set<Method>> {
  const paths = new Map<string, Set<Method>>();
  const add = (path: string, method: Method): void => {
    const route = routePath(path);
    const methods = paths.get(route) ?? new Set<Method>();
    methods.add(method);
    paths.set(route, methods);
  };
  for (const resource of surface.sets) {
    const ids = resource.operationIds;
    if (ids.list !== undefined) add(resource.collectionPath, 'GET');
    if (ids.listSelection !== undefined) add(selectionPathOf(resource.collectionPath), 'GET');
    add(selectionPathOf(resource.itemPath), 'GET');
    if (ids.create !== undefined) add(resource.collectionPath, 'POST');
    add(resource.itemPath, 'GET');
    if (ids.update !== undefined) add(resource.itemPath, 'PATCH');
    if (ids.delete !== undefined) add(resource.itemPath, 'DELETE');
    for (const navigation of resource.navigations) {
      add(navigation.path, 'GET');
      add(selectionPathOf(navigation.path), 'GET');
    }
  }
  for (const fn of surface.functions) add(fn.path, fn.method);
  return paths;
}

/** `GET, HEAD, PATCH, DELETE`: HEAD is answered wherever GET is. */
export function allowHeader(methods: ReadonlySet<Method>): string {
  return [...methods].flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])).join(', ');
}

/** Registers, on every path of the surface, a refusal for each method it does not offer. */
export function registerMethodRefusals(face: FastifyInstance, surface: RestSurface): void {
  for (const [url, methods] of methodsByPath(surface)) {
    const refused = REFUSABLE.filter((m) => !methods.has(m));
    if (refused.length === 0) continue;
    const allow = allowHeader(methods);
    const refuse = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
      sendProblem(new MethodNotAllowedError(`${request.method} is not an operation of this resource; allowed: ${allow}`, allow), request, reply);
    // Refused in onRequest, before a body is parsed: a PUT with a body of any media type is
    // still a 405, not a 415 or 400 about a body that would never be used.
    face.route({
      method: refused,
      ...twinRouteOptions(url),
      onRequest: async (request, reply) => refuse(request, reply),
      handler: refuse,
    });
  }
}
