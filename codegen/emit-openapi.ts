// openapi.json: the OpenAPI 3.1 document of the gateway's REST face, derived from the model only.
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Model } from '../odata/model.js';
import type { DescriptionExamples } from './description-examples.js';
import { descriptionExamples } from './description-examples.js';
import type { Emitter } from './emitter.js';
import { buildSchemas } from './json-schema.js';
import { splitWords } from './naming.js';
import { withExamples } from './openapi-examples.js';
import {
  DEFAULT_SECURITY,
  PROBLEM_MEDIA_TYPE,
  SECURITY_SCHEMES,
  sharedHeaders,
  sharedParameters,
  problemResponseComponents,
} from './openapi-components.js';
import { toOpenApiSchema } from './openapi-parameter-schema.js';
import { buildPaths } from './openapi-paths.js';
import type { RestSurface } from './rest-surface.js';
import { describeRestSurface } from './rest-surface.js';

export const REST_BASE_PATH = '/api/v1';
const API_VERSION = '1.0.0';

function problemExample(examples: DescriptionExamples) {
  return {
    type: 'urn:timegate:problem:not-found',
    title: 'Not Found',
    status: 404,
    detail: `${examples.entityAddress} does not exist`,
    instance: examples.entityPath,
  };
}

export const emitOpenApi: Emitter = (model) => [
  { path: 'openapi.json', contents: `${JSON.stringify(buildOpenApiDocument(model), null, 2)}\n` },
];

export function buildOpenApiDocument(model: Model): OpenAPIV3_1.Document {
  const surface = describeRestSurface(model);
  const examples = descriptionExamples(model, REST_BASE_PATH);
  const paths = buildPaths(model, surface);
  const schemas = Object.fromEntries(
    Object.entries(withExamples(buildSchemas(model))).map(([name, schema]) => [name, toOpenApiSchema(schema)]),
  );
  if (schemas.Problem !== undefined) schemas.Problem = { ...schemas.Problem, examples: [problemExample(examples)] };
  const document: OpenAPIV3_1.Document = {
    openapi: '3.1.0',
    info: {
      title: `${titleOf(model.containerName)} REST API`,
      version: API_VERSION,
      description: describeApi(model, examples),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: REST_BASE_PATH, description: 'The gateway this document is served by.' }],
    security: DEFAULT_SECURITY,
    tags: tagsOf(surface),
    paths,
    components: {
      schemas,
      responses: problemResponseComponents(),
      parameters: sharedParameters(examples),
      headers: sharedHeaders(examples),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
  return withoutUnusedComponents(document);
}

/** `TimeTrackingService` -> `Time Tracking Service`. */
function titleOf(containerName: string): string {
  return splitWords(containerName)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

function describeApi(model: Model, examples: DescriptionExamples): string {
  return [
    `JSON REST face of the OData V2 service \`${model.containerNamespace}.${model.containerName}\`, ` +
      'generated from its entity data model by timegate.',
    '',
    `- Resources are the entity sets in kebab-case (\`${examples.resourcePath}\`); properties are camelCase (${examples.propertyCasing}).`,
    '- Lists answer `{ "items": [...], "next": "<url>" | null, "total"?: n }`; follow `next` for the next page.',
    '- Reads answer whole resources. For only some properties, read the same path plus `:select` with `select` ' +
      `(\`GET ${examples.itemPath}:select?select=${examples.itemSelect}\`, \`GET ${examples.collectionPath}:select?select=${examples.listSelect}\`).`,
    '- Date-times are RFC 3339 in UTC (`2026-11-22T09:00:00Z`); Int64 and Decimal values are strings.',
    '- Single resources carry an `ETag`; send it back in `If-Match` to update or delete safely.',
    `- Every error is an RFC 9457 problem document (\`${PROBLEM_MEDIA_TYPE}\`).`,
    '- Authenticate with the API key: the `X-ServiceApiKey` header (the default), `Authorization: Bearer <key>`, ' +
      'HTTP Basic (key as password) or, for reads only, the `ApiKey` query parameter.',
  ].join('\n');
}

function tagsOf(surface: RestSurface): OpenAPIV3_1.TagObject[] {
  const tags: OpenAPIV3_1.TagObject[] = surface.sets.map((resource) => ({
    name: resource.set.name,
    description: `The entity set ${resource.set.name} (entity type \`${resource.type.fullName}\`) at \`${resource.collectionPath}\`.`,
  }));
  const groups = new Map<string, string[]>();
  for (const fn of surface.functions) groups.set(fn.tag, [...(groups.get(fn.tag) ?? []), fn.function.name]);
  for (const [name, functions] of groups) {
    if (tags.some((tag) => tag.name === name)) continue;
    tags.push({ name, description: `Service operations ${functions.join(', ')}.` });
  }
  return tags;
}

/**
 * Drops components no operation refers to (a read-only model has no `If-Match`; the list-query
 * and GET-parameter schemas serve the gateway's validators, not the document), so the document
 * has no dangling components. Schemas are kept when any kept part refers to them, transitively.
 */
function withoutUnusedComponents(document: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  const components = document.components ?? {};
  const text = JSON.stringify(document.paths) + JSON.stringify(components.responses ?? {});
  const used = (kind: string, name: string): boolean => text.includes(`"#/components/${kind}/${name}"`);
  const keep = <V>(kind: string, entries: Record<string, V> | undefined): Record<string, V> =>
    Object.fromEntries(Object.entries(entries ?? {}).filter(([name]) => used(kind, name)));
  const parameters = keep('parameters', components.parameters);
  const headers = keep('headers', components.headers);
  const schemas = components.schemas ?? {};
  const reachable = new Set<string>();
  const visit = (json: string): void => {
    for (const [, name] of json.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (name === undefined || reachable.has(name) || schemas[name] === undefined) continue;
      reachable.add(name);
      visit(JSON.stringify(schemas[name]));
    }
  };
  visit(text + JSON.stringify(parameters) + JSON.stringify(headers));
  return {
    ...document,
    components: {
      ...components,
      schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => reachable.has(name))),
      responses: keep('responses', components.responses),
      parameters,
      headers,
    },
  };
}
