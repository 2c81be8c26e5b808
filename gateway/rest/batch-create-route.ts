// `POST /time-entries:batch` (one per creatable set): a JSON array of creates, all or none through
// one changeset of one upstream `$batch` (ODataUpstream.createAll). Checked before anything goes
// upstream: an array of 1 to BATCH_CREATE_MAX_ITEMS items (400 empty or not an array, 413 beyond),
// each item against the set's create schema (422 naming the item by its index: `/3/startTime`).
// Each item counts against the `write` rate limit as a create alone would (its tally recorded
// for the limiter and the cache as a `$batch`'s is, cache/batch-resources.ts); the answer is 201
// with the created items in order, or the one refusal of the changeset naming the item at fault.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BATCH_CREATE_MAX_ITEMS } from '../../codegen/rest-surface.js';
import type { SetResource } from '../../codegen/rest-surface.js';
import { schemaNames } from '../../codegen/json-schema.js';
import { encodeSegment } from '../../odata/entity-path.js';
import { recordBatch } from '../cache/batch-resources.js';
import { InvalidBodyError, MalformedBodyError, PayloadTooLargeError } from '../errors.js';
import type { RestContext } from './rest-context.js';
import { callContextOf, jsonBodyOf, queryOf, refuseUnknownParameters } from './request-parts.js';
import type { BodyCheck } from './validation.js';
import { bodyCheck } from './validation.js';

/** The route of `/time-entries:batch`: find-my-way reads `::` as a literal colon. */
export function batchRoutePath(resource: SetResource): string {
  return resource.batchPath.replaceAll(':', '::');
}

/** The body's items, once they are an array of a size the gateway takes. */
function itemsOf(request: FastifyRequest): unknown[] {
  const body = jsonBodyOf(request, ['application/json']);
  if (!Array.isArray(body)) throw new MalformedBodyError('the body must be a JSON array of the items to create');
  if (body.length === 0) throw new MalformedBodyError('the array holds no item to create');
  if (body.length > BATCH_CREATE_MAX_ITEMS) {
    throw new PayloadTooLargeError(`the array holds ${body.length} items; at most ${BATCH_CREATE_MAX_ITEMS} are created at once, send the rest in another request`);
  }
  return body;
}

export function registerBatchCreate(face: FastifyInstance, ctx: RestContext, resource: SetResource): void {
  const { set, type } = resource;
  const check: BodyCheck = bodyCheck(ctx.validators, schemaNames.create(type));
  const shape = ctx.shapes.of(set);
  const setPath = encodeSegment(set.name);
  face.post(batchRoutePath(resource), {
    // Before the rate limiter's preHandler: it counts the items.
    preValidation: async (request) => {
      refuseUnknownParameters(queryOf(request), []);
      recordBatch(request, { charges: new Map([['write', itemsOf(request).length]]), invalidates: [set.name] });
    },
    handler: async (request, reply) => {
      const items = itemsOf(request);
      items.forEach((item, index) => {
        try {
          check(item);
        } catch (error) {
          if (!(error instanceof InvalidBodyError)) throw error;
          const fieldErrors = (error.fieldErrors ?? []).map((field) => ({ pointer: `/${index}${field.pointer}`, detail: field.detail }));
          throw new InvalidBodyError(`the item at index ${index}: ${error.message}`, fieldErrors);
        }
      });
      const records = items.map((item) => shape.toRecord(item as Record<string, unknown>));
      const entries = await ctx.upstream.createAll(set, setPath, records, callContextOf(request));
      return reply.code(201).send({ items: entries.map((entry) => shape.toRest(entry)) });
    },
  });
}

