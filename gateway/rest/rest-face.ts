// The REST face: one route per operation of the model's REST surface (codegen/rest-surface.ts,
// the same description openapi.json and client.ts are emitted from), so the routes, the document
// and the client cannot disagree. Registered inside a plugin prefixed with the contract's base path.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { describeRestSurface } from '../../codegen/rest-surface.js';
import { DOCS_PATH, OPENAPI_PATH } from '../docs.js';
import { MalformedBodyError } from '../errors.js';
import type { GatewayParts } from '../features.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { createAtomCodec } from '../upstream/atom-codec.js';
import { createJsonCodec } from '../upstream/json-codec.js';
import { ODataUpstream } from '../upstream/odata-upstream.js';
import { CursorCodec } from './cursor.js';
import { EntityShapes } from './entity-shapes.js';
import { registerFunctionRoute } from './function-routes.js';
import { MERGE_PATCH_MEDIA_TYPE } from './media-types.js';
import { registerMethodRefusals } from './method-refusals.js';
import { registerNavigationRoutes } from './navigation-routes.js';
import type { RestContext } from './rest-context.js';
import { registerSelectionTwins } from './selection-twins.js';
import { registerSetRoutes } from './set-routes.js';


/** `/api/v1`: the path of the contract's first server. */
export function restBasePath(openapi: OpenAPIV3_1.Document): string {
  const url = openapi.servers?.[0]?.url ?? '/api/v1';
  const path = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? new URL(url).pathname : url;
  return path.replace(/\/+$/, '');
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

type ContentTypeParserFn = (request: FastifyRequest, body: string | Buffer, done: (error: Error | null, body?: unknown) => void) => void;

export function registerRestFace(face: FastifyInstance, parts: GatewayParts, client: UpstreamClient): void {
  const { config, artefacts, index } = parts;
  const codec = config.upstream.format === 'atom' ? createAtomCodec(index) : createJsonCodec(index);
  const ctx: RestContext = {
    index,
    upstream: new ODataUpstream(client, codec, config.upstream.updateMethod),
    shapes: new EntityShapes(index),
    validators: artefacts.validators,
    cursors: new CursorCodec(config.cursorSecret),
    versionProperty: config.etagProperty,
    limits: config.queryLimits,
    basePath: restBasePath(artefacts.openapi),
  };
  // JSON and JSON merge patch bodies are decoded strictly: Fastify's own parser would turn bytes
  // that are not UTF-8 into U+FFFD and send those upstream. Every other media type is a 415.
  const json = face.getDefaultJsonParser('error', 'error');
  const strictJson: ContentTypeParserFn = (request, body, done) => {
    let text: string;
    try {
      text = STRICT_UTF8.decode(body as Buffer);
    } catch {
      done(new MalformedBodyError('the request body is not valid UTF-8'), undefined);
      return;
    }
    json(request, text, done);
  };
  face.removeContentTypeParser('application/json');
  face.addContentTypeParser('application/json', { parseAs: 'buffer' }, strictJson);
  face.addContentTypeParser(MERGE_PATCH_MEDIA_TYPE, { parseAs: 'buffer' }, strictJson);

  registerSelectionTwins(face);
  const surface = describeRestSurface(artefacts.model);
  for (const resource of surface.sets) {
    registerSetRoutes(face, ctx, resource);
    registerNavigationRoutes(face, ctx, resource);
  }
  for (const fn of surface.functions) registerFunctionRoute(face, ctx, fn);
  registerMethodRefusals(face, surface);
  // The face's root, the address `timegate start` prints: what there is to call, and where it is described.
  const links = {
    openapi: OPENAPI_PATH,
    ...(config.docs ? { docs: DOCS_PATH } : {}),
    resources: surface.sets.map((resource) => `${ctx.basePath}${resource.collectionPath}`),
    operations: surface.functions.map((fn) => `${ctx.basePath}${fn.path}`),
  };
  face.get('/', (_request, reply) => reply.send(links));
}
