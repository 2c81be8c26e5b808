// The paths object of the REST face: one path item per collection, item, navigation and
// function-import path of the RestSurface, each operation with its parameters, body and responses.
import type { OpenAPIV3_1 } from 'openapi-types';
import type { EntityType, FunctionImportParameter, Model, Property, RestOperation } from '../odata/model.js';
import type { FunctionResource, NavigationResource, SetResource, RestSurface } from './rest-surface.js';
import { BATCH_CREATE_MAX_ITEMS, selectionPathOf } from './rest-surface.js';
import { schemaNames } from './json-schema.js';
import { splitWords } from './naming.js';
import type { ProblemResponseName } from './openapi-components.js';
import {
  READ_SECURITY,
  headerRef,
  problemResponses,
  schemaRef,
  sharedParameterRef,
} from './openapi-components.js';
import { functionParameterSchema, propertyParameterSchema } from './openapi-parameter-schema.js';
import type { ReadShape } from './openapi-responses.js';
import { JSON_MEDIA_TYPE, itemResponse, listResponse, returnResponse, withAnswerHeaders } from './openapi-responses.js';

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

const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';

export function buildPaths(model: Model, surface: RestSurface): OpenAPIV3_1.PathsObject {
  const paths: OpenAPIV3_1.PathsObject = {};
  // Reads take the query key too; set, entity and navigation reads go through the read cache.
  const add = (path: string, method: Lowercase<RestOperation['method']>, operation: Operation, isCachedRead = false): void => {
    const item = (paths[path] ??= {}) as Record<string, Operation>;
    if (item[method]) throw new Error(`two operations for ${method.toUpperCase()} ${path}`);
    const secured = method === 'get' ? { ...operation, security: READ_SECURITY } : operation;
    item[method] = withAnswerHeaders(secured, isCachedRead);
  };
  for (const resource of surface.sets) {
    const ids = resource.operationIds;
    if (ids.list) add(resource.collectionPath, 'get', listOperation(model, resource, ids.list, 'full'), true);
    if (ids.listSelection) add(selectionPathOf(resource.collectionPath), 'get', listOperation(model, resource, ids.listSelection, 'selection'), true);
    if (ids.create) add(resource.collectionPath, 'post', createOperation(resource, ids.create));
    if (ids.batchCreate) add(resource.batchPath, 'post', batchCreateOperation(resource, ids.batchCreate));
    add(resource.itemPath, 'get', getOperation(model, resource, ids.get, 'full'), true);
    add(selectionPathOf(resource.itemPath), 'get', getOperation(model, resource, ids.getSelection, 'selection'), true);
    if (ids.update) add(resource.itemPath, 'patch', updateOperation(model, resource, ids.update));
    if (ids.delete) add(resource.itemPath, 'delete', deleteOperation(model, resource, ids.delete));
    for (const navigation of resource.navigations) {
      add(navigation.path, 'get', navigationOperation(model, resource, navigation, 'full'), true);
      add(selectionPathOf(navigation.path), 'get', navigationOperation(model, resource, navigation, 'selection'), true);
    }
  }
  for (const fn of surface.functions) add(fn.path, fn.method.toLowerCase() as Lowercase<RestOperation['method']>, functionOperation(model, fn));
  return paths;
}

function listOperation(model: Model, resource: SetResource, operationId: string, shape: ReadShape): Operation {
  const selecting = shape === 'selection';
  return {
    operationId,
    tags: [resource.set.name],
    summary: selecting ? `List ${resource.set.name} with only the selected properties` : `List ${resource.set.name}`,
    description:
      `One page of ${resource.set.name}, narrowed by the equality parameters (all must match) and \`filter\`. ` +
      'Follow `next` for the following page. ' +
      (selecting
        ? 'Each item has only the properties `select` names (and the expanded navigations).'
        : `Each item is a whole ${resource.typeName}; for only some properties, use \`GET ${selectionPathOf(resource.collectionPath)}?select=...\`.`),
    parameters: listParameters(model, resource, shape),
    responses: {
      '200': listResponse(resource, shape),
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

function getOperation(model: Model, resource: SetResource, operationId: string, shape: ReadShape): Operation {
  const selecting = shape === 'selection';
  return {
    operationId,
    tags: [resource.set.name],
    summary: selecting ? `Get ${resource.aTypeName} with only the selected properties` : `Get ${resource.aTypeName}`,
    description: selecting
      ? `One ${resource.typeName} of ${resource.set.name} by its key, with only the properties \`select\` names.`
      : `One ${resource.typeName} of ${resource.set.name} by its key, whole; for only some properties, use \`GET ${selectionPathOf(resource.itemPath)}?select=...\`.`,
    parameters: [
      ...keyParameters(model, resource),
      ...(selecting ? [sharedParameterRef('select')] : []),
      sharedParameterRef('expand'),
      sharedParameterRef('ifNoneMatch'),
    ],
    responses: {
      '200': itemResponse(resource, 'The', shape, { ETag: headerRef('ETag') }),
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
    parameters: [...keyParameters(model, resource), sharedParameterRef('ifMatch')],
    responses: {
      '204': { description: 'Deleted.' },
      ...problemResponses(['BadRequest', 'NotFound', 'Conflict', 'PreconditionFailed', ...ALWAYS]),
    },
  };
}

function navigationOperation(model: Model, resource: SetResource, navigation: NavigationResource, shape: ReadShape): Operation {
  const target = navigation.target;
  const name = navigation.navigation.name;
  const selecting = shape === 'selection';
  const operationId = selecting ? navigation.selectionOperationId : navigation.operationId;
  const only = selecting ? ', with only the selected properties' : '';
  if (navigation.isCollection) {
    return {
      operationId,
      tags: [resource.set.name],
      summary: `List the ${name} of ${resource.aTypeName}${only}`,
      description: `One page of the ${target.set.name} related to the ${resource.typeName} through \`${navigation.navigation.restName}\`.`,
      parameters: [...keyParameters(model, resource), ...listParameters(model, target, shape)],
      responses: {
        '200': listResponse(target, shape),
        ...problemResponses(['BadRequest', 'NotFound', ...ALWAYS]),
      },
    };
  }
  return {
    operationId,
    tags: [resource.set.name],
    summary: `Get the ${name} of ${resource.aTypeName}${only}`,
    description:
      `The ${target.typeName} related to the ${resource.typeName} through \`${navigation.navigation.restName}\`; ` +
      '404 when the item does not exist or has none.',
    parameters: [...keyParameters(model, resource), ...(selecting ? [sharedParameterRef('select')] : []), sharedParameterRef('expand')],
    responses: {
      '200': itemResponse(target, 'The related', shape),
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

function keyParameters(model: Model, resource: SetResource): OpenAPIV3_1.ParameterObject[] {
  return resource.keys.map((key) => ({
    name: key.restName,
    in: 'path' as const,
    required: true,
    description: `Key property \`${key.restName}\` of the ${resource.typeName}.`,
    schema: propertyParameterSchema(model, resource.type, key),
  }));
}

function listParameters(model: Model, resource: SetResource, shape: ReadShape): Parameter[] {
  return [
    ...resource.equalityFilters.map((property) => equalityParameter(model, resource.type, property)),
    sharedParameterRef('filter'),
    sharedParameterRef('orderBy'),
    ...(shape === 'selection' ? [sharedParameterRef('listSelect')] : []),
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
