// Function imports as REST operations (`POST /stopwatch` -> `GET StartStopWatch?ProjectID=7`):
// the parameters, from the query of a REST GET or the JSON body of any other method, checked
// with the generated validator and written as V2 literals; the result in its REST shape.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FunctionResource } from '../../codegen/rest-surface.js';
import { schemaNames } from '../../codegen/json-schema.js';
import type { EdmValue } from '../../odata/edm.js';
import { formatLiteral } from '../../odata/literals.js';
import { RouteNotFoundError } from '../errors.js';
import type { FunctionValue, UpstreamEntry } from '../upstream/odata-codec.js';
import type { RestContext } from './rest-context.js';
import type { RestValue } from './rest-values.js';
import { fromRestValue, toRestValue } from './rest-values.js';
import { callContextOf, jsonBodyOf, queryOf, refuseUnknownParameters } from './request-parts.js';
import type { BodyCheck } from './validation.js';
import { bodyCheck, queryCheck } from './validation.js';

const COLLECTION = /^Collection\((.+)\)$/;

export function registerFunctionRoute(face: FastifyInstance, ctx: RestContext, resource: FunctionResource): void {
  const fn = resource.function;
  const isQuery = resource.method === 'GET';
  const parameters = fn.parameters.map((p) => ({ parameter: p, convert: fromRestValue(ctx.index, p.type) }));
  const schema = schemaNames.parameters(fn);
  const checkQuery = parameters.length > 0 && isQuery ? queryCheck(ctx.validators, schema) : undefined;
  const readBody = parameters.length > 0 && !isQuery ? bodyReader(bodyCheck(ctx.validators, schema)) : undefined;
  const set = fn.entitySet === undefined ? undefined : ctx.index.entitySet(fn.entitySet);
  const itemType = fn.returnType === undefined ? undefined : (COLLECTION.exec(fn.returnType)?.[1] ?? fn.returnType);
  const valueToRest = set === undefined && itemType !== undefined ? toRestValue(ctx.index, itemType) : undefined;

  /** The given parameters, checked, as the upstream's query string. */
  function upstreamQuery(request: FastifyRequest): string {
    let values: Record<string, unknown> = {};
    const query = queryOf(request);
    if (checkQuery !== undefined) {
      checkQuery(query);
      values = query;
    } else {
      refuseUnknownParameters(query, []);
      if (readBody !== undefined) values = readBody(request);
    }
    const pairs: string[] = [];
    for (const { parameter, convert } of parameters) {
      const value = values[parameter.restName];
      if (value === undefined || value === null) continue;
      pairs.push(`${encodeURIComponent(parameter.name)}=${encodeURIComponent(formatLiteral(convert(value) as EdmValue, parameter.type))}`);
    }
    return pairs.join('&');
  }

  face.route({
    method: resource.method,
    url: resource.path,
    handler: async (request, reply) => {
      const call = callContextOf(request);
      const query = upstreamQuery(request);
      if (set !== undefined) {
        const result = await ctx.upstream.invokeForEntities(fn, set, query, call);
        const shape = ctx.shapes.of(set);
        if ('entries' in result) return reply.send(result.entries.map((e: UpstreamEntry) => shape.toRest(e)));
        return reply.send(shape.toRest(result));
      }
      const value = await ctx.upstream.invokeForValue(fn, query, call);
      if (value === undefined || valueToRest === undefined) return reply.code(204).send();
      if (value === null) throw new RouteNotFoundError(`${fn.name} returned no result`);
      return reply.send(restResult(value, valueToRest));
    },
  });
}

function bodyReader(check: BodyCheck): (request: FastifyRequest) => Record<string, unknown> {
  return (request) => {
    const body = jsonBodyOf(request, ['application/json']);
    check(body);
    return body;
  };
}

function restResult(value: FunctionValue, convert: (v: EdmValue | undefined) => RestValue): RestValue {
  return Array.isArray(value) ? value.map((v) => convert(v as EdmValue)) : convert(value as EdmValue);
}
