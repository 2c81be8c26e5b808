// The paths object of the REST face: one path item per collection, item, navigation and
// function-import path of the RestSurface, each operation with its parameters, body and responses.
import type { OpenAPIV3_1 } from 'openapi-types';
import type { EntityType, FunctionImportParameter, Model, Property, RestOperation } from '../odata/model.js';
import type { FunctionResource, NavigationResource, ReturnShape, SetResource, RestSurface } from './rest-surface.js';
import { BATCH_CREATE_MAX_ITEMS } from './rest-surface.js';
import { schemaNames } from './json-schema.js';
import { splitWords } from './naming.js';
import type { ProblemResponseName } from './openapi-components.js';
import {
  WRITE_SECURITY,
  headerRef,
  problemResponses,
  schemaRef,
  sharedParameterRef,
} from './openapi-components.js';
import { functionParameterSchema, primitiveSchema, propertyParameterSchema } from './openapi-parameter-schema.js';

type Operation = OpenAPIV3_1.OperationObject;
type Parameter = OpenAPIV3_1.ParameterObject | OpenAPIV3_1.ReferenceObject;

/** Problems any operation can meet: authentication, rate limit, upstream failures. */
const ALWAYS: readonly ProblemResponseName[] = [
  'Unauthorized',
  'Forbidden',
  'TooManyRequests',
  'BadGateway',
  'ServiceUnavailable',
  'GatewayTimeout',
];

const JSON_MEDIA_TYPE = 'application/json';
const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';

export function buildPaths(model: Model, surface: RestSurface): OpenAPIV3_1.PathsObject {
  const paths: OpenAPIV3_1.PathsObject = {};
  const add = (path: string, method: Lowercase<RestOperation['method']>, operation: Operation): void => {
    const item = (paths[path] ??= {}) as Record<string, Operation>;
    if (item[method]) throw new Error(`two operations for ${method.toUpperCase()} ${path}`);
    item[method] = operation;
  };
  for (const resource of surface.sets) {
    const ids = resource.operationIds;
    if (ids.list) add(resource.collectionPath, 'get', listOperation(model, resource, ids.list));
    if (ids.create) add(resource.collectionPath, 'post', createOperation(resource, ids.create));
    if (ids.batchCreate) add(resource.batchPath, 'post', batchCreateOperation(resource, ids.batchCreate));
    add(resource.itemPath, 'get', getOperation(model, resource, ids.get));
    if (ids.update) add(resource.itemPath, 'patch', updateOperation(model, resource, ids.update));
    if (ids.delete) add(resource.itemPath, 'delete', deleteOperation(model, resource, ids.delete));
    for (const navigation of resource.navigations) {
      add(navigation.path, 'get', navigationOperation(model, resource, navigation));
    }
  }
  for (const fn of surface.functions) add(fn.path, fn.method.toLowerCase() as Lowercase<RestOperation['method']>, functionOperation(model, fn));
  return paths;
}

function listOperation(model: Model, resource: SetResource, operationId: string): Operation {
  return {
    operationId,
    tags: [resource.set.name],
    summary: `List ${resource.set.name}`,
    description:
      `One page of ${resource.set.name}, narrowed by the equality parameters (all must match) and \`filter\`. ` +
      'Follow `next` for the following page.',
    parameters: listParameters(model, resource),
    responses: {
      '200': listResponse(resource),
      ...problemResponses(['BadRequest', ...ALWAYS]),
    },
  };
}

function createOperation(resource: SetResource, operationId: string): Operation {
  return {
    operationId,
    tags: [resource.set.name],
    summary: `Create ${resource.aTypeName}`,
    description: `Creates ${resource.aTypeName} in ${resource.set.name}; server-set properties are filled by the service.`,
    security: WRITE_SECURITY,
    requestBody: {
      required: true,
      content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(`${resource.typeName}Create`) } },
    },
    responses: {
      '201': {
        description: `The created ${resource.typeName}.`,
        headers: { Location: headerRef('Location'), ETag: headerRef('ETag') },
        content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(resource.typeName) } },
      },
      ...problemResponses(['BadRequest', 'Conflict', 'UnsupportedMediaType', 'UnprocessableContent', ...ALWAYS]),
    },
  };
}

function batchCreateOperation(resource: SetResource, operationId: string): Operation {
  return {
    operationId,
    tags: [resource.set.name],
    summary: `Create several ${resource.set.name} at once`,
    description:
      `Creates every ${resource.typeName} of the array in ${resource.set.name}, all or none: one changeset of one OData ` +
      '`$batch` upstream. A refusal names the item at fault by its index (the `errors` pointer `/3` is the fourth item); ' +
      `then none is created. At most ${BATCH_CREATE_MAX_ITEMS} items (413 beyond).`,
    security: WRITE_SECURITY,
    requestBody: {
      required: true,
      content: {
        [JSON_MEDIA_TYPE]: { schema: { type: 'array', minItems: 1, maxItems: BATCH_CREATE_MAX_ITEMS, items: schemaRef(`${resource.typeName}Create`) } },
      },
    },
    responses: {
      '201': {
        description: `The created ${resource.set.name}, in the order of the request.`,
        content: {
          [JSON_MEDIA_TYPE]: {
            schema: { type: 'object', required: ['items'], additionalProperties: false, properties: { items: { type: 'array', items: schemaRef(resource.typeName) } } },
          },
        },
      },
      ...problemResponses(['BadRequest', 'Conflict', 'PayloadTooLarge', 'UnsupportedMediaType', 'UnprocessableContent', ...ALWAYS]),
    },
  };
}

function getOperation(model: Model, resource: SetResource, operationId: string): Operation {
  return {
    operationId,
    tags: [resource.set.name],
    summary: `Get ${resource.aTypeName}`,
    description: `One ${resource.typeName} of ${resource.set.name} by its key.`,
    parameters: [
      ...keyParameters(model, resource),
      sharedParameterRef('select'),
      sharedParameterRef('expand'),
      sharedParameterRef('ifNoneMatch'),
    ],
    responses: {
      '200': itemResponse(resource, 'The', { ETag: headerRef('ETag') }),
      '304': {
        description: 'Not modified: the `If-None-Match` ETag is still current.',
        headers: { ETag: headerRef('ETag') },
      },
      ...problemResponses(['BadRequest', 'NotFound', ...ALWAYS]),
    },
  };
}

function updateOperation(model: Model, resource: SetResource, operationId: string): Operation {
  const schema = schemaRef(`${resource.typeName}Update`);
  return {
    operationId,
    tags: [resource.set.name],
    summary: `Update ${resource.aTypeName}`,
    description:
      `Changes the given properties of ${resource.aTypeName} (JSON merge patch, RFC 7396): ` +
      'absent properties keep their value, `null` clears a nullable one.',
    security: WRITE_SECURITY,
    parameters: [...keyParameters(model, resource), sharedParameterRef('ifMatch')],
    requestBody: {
      required: true,
      content: { [MERGE_PATCH_MEDIA_TYPE]: { schema }, [JSON_MEDIA_TYPE]: { schema } },
    },
    responses: {
      '200': {
        description: `The updated ${resource.typeName}.`,
        headers: { ETag: headerRef('ETag') },
        content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(resource.typeName) } },
      },
      ...problemResponses([
        'BadRequest',
        'NotFound',
        'Conflict',
        'PreconditionFailed',
        'UnsupportedMediaType',
        'UnprocessableContent',
        ...ALWAYS,
      ]),
    },
  };
}

function deleteOperation(model: Model, resource: SetResource, operationId: string): Operation {
  return {
    operationId,
    tags: [resource.set.name],
    summary: `Delete ${resource.aTypeName}`,
    description: `Deletes ${resource.aTypeName} of ${resource.set.name}.`,
    security: WRITE_SECURITY,
    parameters: [...keyParameters(model, resource), sharedParameterRef('ifMatch')],
    responses: {
      '204': { description: 'Deleted.' },
      ...problemResponses(['BadRequest', 'NotFound', 'Conflict', 'PreconditionFailed', ...ALWAYS]),
    },
  };
}

function navigationOperation(model: Model, resource: SetResource, navigation: NavigationResource): Operation {
  const target = navigation.target;
  const name = navigation.navigation.name;
  if (navigation.isCollection) {
    return {
      operationId: navigation.operationId,
      tags: [resource.set.name],
      summary: `List the ${name} of ${resource.aTypeName}`,
      description: `One page of the ${target.set.name} related to the ${resource.typeName} through \`${navigation.navigation.restName}\`.`,
      parameters: [...keyParameters(model, resource), ...listParameters(model, target)],
      responses: {
        '200': listResponse(target),
        ...problemResponses(['BadRequest', 'NotFound', ...ALWAYS]),
      },
    };
  }
  return {
    operationId: navigation.operationId,
    tags: [resource.set.name],
    summary: `Get the ${name} of ${resource.aTypeName}`,
    description:
      `The ${target.typeName} related to the ${resource.typeName} through \`${navigation.navigation.restName}\`; ` +
      '404 when the item does not exist or has none.',
    parameters: [...keyParameters(model, resource), sharedParameterRef('select'), sharedParameterRef('expand')],
    responses: {
      '200': itemResponse(target, 'The related'),
      ...problemResponses(['BadRequest', 'NotFound', ...ALWAYS]),
    },
  };
}

function functionOperation(model: Model, resource: FunctionResource): Operation {
  const fn = resource.function;
  const hasBody = resource.method !== 'GET' && fn.parameters.length > 0;
  const problems: ProblemResponseName[] = ['BadRequest', 'NotFound', 'Conflict', ...ALWAYS];
  if (hasBody) problems.push('UnsupportedMediaType', 'UnprocessableContent');
  return {
    operationId: resource.operationId,
    tags: [resource.tag],
    summary: sentenceOf(fn.name),
    description:
      `Calls the service operation \`${fn.name}\` of the OData service.` +
      (resource.returns.kind === 'none' ? '' : ' 404 when there is no result.'),
    ...(resource.method === 'GET' ? {} : { security: WRITE_SECURITY }),
    ...(hasBody
      ? {
          requestBody: {
            required: true,
            content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(schemaNames.parameters(fn)) } },
          },
        }
      : {}),
    ...(!hasBody && fn.parameters.length > 0 ? { parameters: fn.parameters.map(functionQueryParameter) } : {}),
    responses: { ...returnResponse(resource.returns, fn.name), ...problemResponses(problems) },
  };
}

function returnResponse(shape: ReturnShape, name: string): OpenAPIV3_1.ResponsesObject {
  if (shape.kind === 'none') return { '204': { description: `${name} succeeded; there is no result.` } };
  const single = shape.kind === 'named' ? schemaRef(shape.typeName) : primitiveSchema(shape.type);
  const schema = shape.isCollection ? { type: 'array' as const, items: single } : single;
  return { '200': { description: `The result of ${name}.`, content: { [JSON_MEDIA_TYPE]: { schema } } } };
}

/**
 * Reads that take `select` answer either the full entity or, with `select`, only what it named;
 * the document says both, so a partial answer validates and a full one is still held to the
 * full schema's required properties.
 */
function itemResponse(resource: SetResource, the: string, headers?: OpenAPIV3_1.ResponseObject['headers']): OpenAPIV3_1.ResponseObject {
  const schema = { anyOf: [schemaRef(resource.typeName), schemaRef(schemaNames.selection(resource.type))] };
  return {
    description: `${the} ${resource.typeName}: the full entity; only the selected properties (and expanded navigations) when \`select\` is given.`,
    ...(headers === undefined ? {} : { headers }),
    content: { [JSON_MEDIA_TYPE]: { schema } },
  };
}

function listResponse(resource: SetResource): OpenAPIV3_1.ResponseObject {
  const schema = { anyOf: [schemaRef(schemaNames.list(resource.type)), schemaRef(schemaNames.selectionList(resource.type))] };
  return {
    description: `A page of ${resource.set.name}: full entities; only the selected properties (and expanded navigations) of each when \`select\` is given.`,
    content: { [JSON_MEDIA_TYPE]: { schema } },
  };
}

function keyParameters(model: Model, resource: SetResource): OpenAPIV3_1.ParameterObject[] {
  return resource.keys.map((key) => ({
    name: key.restName,
    in: 'path' as const,
    required: true,
    description: `Key property \`${key.restName}\` of the ${resource.typeName}.`,
    schema: propertyParameterSchema(model, resource.type, key),
  }));
}

function listParameters(model: Model, resource: SetResource): Parameter[] {
  return [
    ...resource.equalityFilters.map((property) => equalityParameter(model, resource.type, property)),
    sharedParameterRef('filter'),
    sharedParameterRef('orderBy'),
    sharedParameterRef('select'),
    sharedParameterRef('expand'),
    sharedParameterRef('limit'),
    sharedParameterRef('cursor'),
    sharedParameterRef('count'),
  ];
}

function equalityParameter(model: Model, owner: EntityType, property: Property): OpenAPIV3_1.ParameterObject {
  return {
    name: property.restName,
    in: 'query',
    description: `Only items whose \`${property.restName}\` equals this value.`,
    schema: propertyParameterSchema(model, owner, property),
  };
}

function functionQueryParameter(parameter: FunctionImportParameter): OpenAPIV3_1.ParameterObject {
  return {
    name: parameter.restName,
    in: 'query',
    required: !parameter.nullable,
    description: `Parameter \`${parameter.name}\` of the service operation.`,
    schema: functionParameterSchema(parameter),
  };
}

/** `StartStopWatch` -> `Start stop watch`. */
function sentenceOf(name: string): string {
  const text = splitWords(name).join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
