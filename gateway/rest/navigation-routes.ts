// Navigation sub-resources of an item (`/projects/{id}/time-entries`, `/projects/{id}/client`):
// the OData navigation path `Projects(7)/TimeEntries` read as a list of the target set (with
// that set's list options) or as its single entity.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SetResource } from '../../codegen/rest-surface.js';
import { selectionPathOf } from '../../codegen/rest-surface.js';
import { encodeSegment } from '../../odata/entity-path.js';
import { entityRead, sendEntity } from './entity-replies.js';
import { entityKeys } from './keys.js';
import { readListPage } from './list-pages.js';
import { listQueryTranslator } from './list-query.js';
import type { RestContext } from './rest-context.js';
import { callContextOf } from './request-parts.js';
import { twinRouteOptions } from './selection-twins.js';
import { listOperationOf, routePath } from './set-routes.js';

export function registerNavigationRoutes(face: FastifyInstance, ctx: RestContext, resource: SetResource): void {
  const keys = entityKeys(ctx.index, resource.set);
  for (const navigation of resource.navigations) {
    const target = navigation.target;
    const segment = encodeSegment(navigation.navigation.name);
    const pathOf = (params: unknown) => `${keys.odataPath(keys.fromPath(params as Record<string, string>))}/${segment}`;
    const selectionRoute = twinRouteOptions(routePath(selectionPathOf(navigation.path)));
    if (navigation.isCollection) {
      const list = listOperationOf(ctx, target);
      // A cursor is valid for the list of this one item only.
      const readList = (listId: string) => async (request: FastifyRequest) => {
        const path = pathOf(request.params);
        return readListPage(ctx, list, request, path, `${listId} ${path}`, callContextOf(request));
      };
      face.get(routePath(navigation.path), readList(navigation.operationId));
      face.route({ method: 'GET', ...selectionRoute, handler: readList(navigation.selectionOperationId) });
    } else {
      const translator = listQueryTranslator(ctx.index, target.set, [], ctx.limits);
      const readItem = (needsSelect: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
        const path = pathOf(request.params);
        const read = entityRead(ctx, target.set, translator, request, needsSelect);
        return sendEntity(ctx, target.set, await ctx.upstream.entry(target.set, path, read.query, callContextOf(request)), request, reply, read.hidden);
      };
      face.get(routePath(navigation.path), readItem(false));
      face.route({ method: 'GET', ...selectionRoute, handler: readItem(true) });
    }
  }
}
