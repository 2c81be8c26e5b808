// The operations of one entity set, as the REST surface lists them: list, create (and the bulk
// create of batch-create-route.ts), get, update
// (JSON merge patch -> MERGE or PATCH upstream, then the entity read back), delete.
import type { FastifyInstance } from 'fastify';
import type { SetResource } from '../../codegen/rest-surface.js';
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

/** `/order-details/{orderId}/{productId}` -> `/order-details/:orderId/:productId`. */
export function routePath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
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
    const listId = operationIds.list;
    face.get(resource.collectionPath, async (request) => {
      const call = callContextOf(request);
      return readListPage(ctx, list, request, setPath, listId, call);
    });
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

  face.get(itemPath, async (request, reply) => {
    const call = callContextOf(request);
    const path = keys.odataPath(keys.fromPath(request.params as Record<string, string>));
    const read = entityRead(ctx, set, translator, request);
    return sendEntity(ctx, set, await ctx.upstream.entry(set, path, read.query, call), request, reply, read.hidden);
  });

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
