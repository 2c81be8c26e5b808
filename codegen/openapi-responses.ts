// The responses of the REST face's operations: the success answer of each read shape (whole
// entity or `:select` selection), of function imports, and the headers every answer carries.
import type { OpenAPIV3_1 } from 'openapi-types';
import { schemaNames } from './json-schema.js';
import { ANSWER_HEADERS, CACHED_READ_HEADERS, headerRefs, schemaRef } from './openapi-components.js';
import { primitiveSchema } from './openapi-parameter-schema.js';
import type { ReturnShape, SetResource } from './rest-surface.js';

type Operation = OpenAPIV3_1.OperationObject;

export const JSON_MEDIA_TYPE = 'application/json';

/**
 * The headers every answer carries (X-Request-Id, the rate-limit fields) on each response given
 * here; problem responses, shared in components, carry them there. A cached read's 200 and 304
 * also say what the cache did.
 */
export function withAnswerHeaders(operation: Operation, isCachedRead: boolean): Operation {
  const responses: OpenAPIV3_1.ResponsesObject = {};
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if ('$ref' in response) {
      responses[status] = response;
      continue;
    }
    const cached = isCachedRead && (status === '200' || status === '304') ? headerRefs(CACHED_READ_HEADERS) : {};
    responses[status] = { ...response, headers: { ...response.headers, ...headerRefs(ANSWER_HEADERS), ...cached } };
  }
  return { ...operation, responses };
}

/**
 * What a read answers: the full entity (`full`, every property present, so generators type it
 * with required properties), or only what `select` named (`selection`, the `:select` twin).
 */
export type ReadShape = 'full' | 'selection';

export function returnResponse(shape: ReturnShape, name: string): OpenAPIV3_1.ResponsesObject {
  if (shape.kind === 'none') return { '204': { description: `${name} succeeded; there is no result.` } };
  const single = shape.kind === 'named' ? schemaRef(shape.typeName) : primitiveSchema(shape.type);
  const schema = shape.isCollection ? { type: 'array' as const, items: single } : single;
  return { '200': { description: `The result of ${name}.`, content: { [JSON_MEDIA_TYPE]: { schema } } } };
}

export function itemResponse(resource: SetResource, the: string, shape: ReadShape, headers?: OpenAPIV3_1.ResponseObject['headers']): OpenAPIV3_1.ResponseObject {
  const selecting = shape === 'selection';
  const schema = schemaRef(selecting ? schemaNames.selection(resource.type) : resource.typeName);
  return {
    description: selecting
      ? `${the} ${resource.typeName} with only the selected properties (and the expanded navigations).`
      : `${the} ${resource.typeName}, every property present (and the expanded navigations).`,
    ...(headers === undefined ? {} : { headers }),
    content: { [JSON_MEDIA_TYPE]: { schema } },
  };
}

export function listResponse(resource: SetResource, shape: ReadShape): OpenAPIV3_1.ResponseObject {
  const selecting = shape === 'selection';
  const schema = schemaRef(selecting ? schemaNames.selectionList(resource.type) : schemaNames.list(resource.type));
  return {
    description: selecting
      ? `A page of ${resource.set.name}, each with only the selected properties (and the expanded navigations).`
      : `A page of ${resource.set.name}, each item whole (and the expanded navigations).`,
    content: { [JSON_MEDIA_TYPE]: { schema } },
  };
}

