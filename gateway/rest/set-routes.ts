// The operations of one entity set, as the REST surface lists them: list, create (and the bulk
// create of batch-create-route.ts), get, update
// (JSON merge patch -> MERGE or PATCH upstream, then the entity read back), delete.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SetResource } from '../../codegen/rest-surface.js';
import { selectionPathOf } from '../../codegen/rest-surface.js';
import { schemaNames } from '../../codegen/json-schema.js';
import { encodeSegment } from '../../odata/entity-path.js';
import { registerBatchCreate } from './batch-create-route.js';
import { entityKeys } from './keys.js';
import { entityRead, sendEntity, underPrecondition } from './entity-replies.js';
import type { ListOperation } from './list-pages.js';
import { readListPage } from './list-pages.js';
import { listQueryTranslator } from './list-query.js';
import type { RestContext } from './rest-context.js';
import { MERGE_PATCH_MEDIA_TYPE } from './media-types.js';
import { callContextOf, jsonBodyOf, queryOf, refuseUnknownParameters } from './request-parts.js';
import type { BodyCheck } from './validation.js';
import { bodyCheck, queryCheck } from './validation.js';
import { twinRouteOptions } from './selection-twins.js';

/**
 * The Fastify route of a contract path: `/order-details/{orderId}/{productId}` ->
 * `/order-details/:orderId/:productId`. A literal colon (`/time-entries:batch`,
 * `/projects/{id}:select`) is `::` to find-my-way; a parameter it follows in the same segment
 * gets a pattern, so the router ends the parameter where the suffix begins. The router tests the
 * pattern on the decoded segment, so it takes any character (`%2F` in a key decodes to `/`); which
 * request is a twin is for the raw URL to say (selection-twins.ts).
 */
export function routePath(path: string): string {
  return path
    .replaceAll(':', '::')
    .replace(/\{([^}]+)\}(?=::)/g, ':$1(^.+)')
    .replace(/\{([^}]+)\}/g, ':$1');
}

export function listOperationOf(ctx: RestContext, resource: SetResource): ListOperation {
  return {
    set: resource.set,
    check: queryCheck(ctx.validators, schemaNames.listQuery(resource.set)),
    translator: listQueryTranslator(ctx.index, resource.set, resource.equalityFilters, ctx.limits),
  };
}

export function registerSetRoutes(face: FastifyInstance, ctx: RestContext, resource: SetResource): void {
  const { set, type, operationIds } = resource;
  const keys = entityKeys(ctx.index, set);
  const shape = ctx.shapes.of(set);
  const translator = listQueryTranslator(ctx.index, set, resource.equalityFilters, ctx.limits);
  const setPath = encodeSegment(set.name);
  const itemPath = routePath(resource.itemPath);

  if (operationIds.list !== undefined) {
    const list = listOperationOf(ctx, resource);
    const readList = (listId: string) => async (request: FastifyRequest) =>
      readListPage(ctx, list, request, setPath, listId, callContextOf(request));
    face.get(routePath(resource.collectionPath), readList(operationIds.list));
    if (operationIds.listSelection !== undefined) {
      face.route({ method: 'GET', ...twinRouteOptions(routePath(selectionPathOf(resource.collectionPath))), handler: readList(operationIds.listSelection) });
    }
  }

  if (operationIds.create !== undefined) {
    const check: BodyCheck = bodyCheck(ctx.validators, schemaNames.create(type));
    face.post(resource.collectionPath, async (request, reply) => {
      const call = callContextOf(request);
      refuseUnknownParameters(queryOf(request), []);
      const body = jsonBodyOf(request, ['application/json']);
      check(body);
      const entry = await ctx.upstream.create(set, setPath, shape.toRecord(body), call);
      reply.code(201).header('location', `${ctx.basePath}${resource.collectionPath}${keys.restSegments(entry.record)}`);
      return sendEntity(ctx, set, entry, request, reply);
    });
  }

  if (operationIds.batchCreate !== undefined) registerBatchCreate(face, ctx, resource);

  // The plain read still takes `select`, as it did before `:select` existed, for the clients
  // written then; the contract sends selecting reads to `:select`, which needs it.
  const readItem = (needsSelect: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const call = callContextOf(request);
    const path = keys.odataPath(keys.fromPath(request.params as Record<string, string>));
    const read = entityRead(ctx, set, translator, request, needsSelect);
    return sendEntity(ctx, set, await ctx.upstream.entry(set, path, read.query, call), request, reply, read.hidden);
  };
  face.get(itemPath, readItem(false));
  face.route({ method: 'GET', ...twinRouteOptions(routePath(selectionPathOf(resource.itemPath))), handler: readItem(true) });

  if (operationIds.update !== undefined) {
    const check: BodyCheck = bodyCheck(ctx.validators, schemaNames.update(type));
    face.patch(itemPath, async (request, reply) => {
      const call = callContextOf(request);
      const path = keys.odataPath(keys.fromPath(request.params as Record<string, string>));
      refuseUnknownParameters(queryOf(request), []);
      const body = jsonBodyOf(request, [MERGE_PATCH_MEDIA_TYPE, 'application/json']);
      check(body);
      const conditional = await underPrecondition(ctx, set, path, request, call);
      await ctx.upstream.update(set, path, shape.toRecord(body), conditional);
      return sendEntity(ctx, set, await ctx.upstream.entry(set, path, '', call), request, reply);
    });
  }

  if (operationIds.delete !== undefined) {
    face.delete(itemPath, async (request, reply) => {
      const call = callContextOf(request);
      const path = keys.odataPath(keys.fromPath(request.params as Record<string, string>));
      refuseUnknownParameters(queryOf(request), []);
      await ctx.upstream.remove(path, await underPrecondition(ctx, set, path, request, call));
      return reply.code(204).send();
    });
  }
}
