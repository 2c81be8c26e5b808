// Navigation sub-resources of an item (`/projects/{id}/time-entries`, `/projects/{id}/client`):
// the OData navigation path `Projects(7)/TimeEntries` read as a list of the target set (with
// that set's list options) or as its single entity.
import type { FastifyInstance } from 'fastify';
import type { SetResource } from '../../codegen/rest-surface.js';
import { encodeSegment } from '../../odata/entity-path.js';
import { entityRead, sendEntity } from './entity-replies.js';
import { entityKeys } from './keys.js';
import { readListPage } from './list-pages.js';
import { listQueryTranslator } from './list-query.js';
import type { RestContext } from './rest-context.js';
import { callContextOf } from './request-parts.js';
import { listOperationOf, routePath } from './set-routes.js';

export function registerNavigationRoutes(face: FastifyInstance, ctx: RestContext, resource: SetResource): void {
  const keys = entityKeys(ctx.index, resource.set);
  for (const navigation of resource.navigations) {
    const target = navigation.target;
    const segment = encodeSegment(navigation.navigation.name);
    const pathOf = (params: unknown) => `${keys.odataPath(keys.fromPath(params as Record<string, string>))}/${segment}`;
    if (navigation.isCollection) {
      const list = listOperationOf(ctx, target);
      face.get(routePath(navigation.path), async (request) => {
        const call = callContextOf(request);
        const path = pathOf(request.params);
        // A cursor is valid for the list of this one item only.
        return readListPage(ctx, list, request, path, `${navigation.operationId} ${path}`, call);
      });
    } else {
      const translator = listQueryTranslator(ctx.index, target.set, [], ctx.limits);
      face.get(routePath(navigation.path), async (request, reply) => {
        const call = callContextOf(request);
        const path = pathOf(request.params);
        const read = entityRead(ctx, target.set, translator, request);
        return sendEntity(ctx, target.set, await ctx.upstream.entry(target.set, path, read.query, call), request, reply, read.hidden);
      });
    }
  }
}
