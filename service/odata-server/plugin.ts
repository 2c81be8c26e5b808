// Serves a model as an OData V2 service on a Fastify instance: one route below the service root
// (matched case-insensitively, so `/V1/Api.svc` and `/v1/api.svc` are one service), bodies kept
// as text for the odata/ readers, and every error as an OData error document.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EdmRecord } from '../../odata/edm.js';
import { entityPath } from '../../odata/entity-path.js';
import type { BatchLimits, QueryLimits } from '../../odata/limits.js';
import { DEFAULT_BATCH_LIMITS } from '../../odata/limits.js';
import type { ModelIndex } from '../../odata/model-index.js';
import { indexModel } from '../../odata/model-index.js';
import type { EntitySet, Model } from '../../odata/model.js';
import { splitServiceRoot } from '../../odata/resource-path.js';
import { serveBatch } from './batch.js';
import type { DataSource } from './data-source.js';
import { sendError } from './error-handler.js';
import { MethodNotAllowedError } from './errors.js';
import type { Intent } from './handle-request.js';
import { METHODS, effectiveMethod, handleRequest } from './handle-request.js';
import { ENGLISH_MESSAGES } from './messages.js';
import type { ValidationMessages } from './messages.js';
import type { ServerParts } from './operation.js';
import { PayloadRules } from './payload-rules.js';
import { Representations } from './representations.js';
import { EntityBodyReader } from './request-body.js';
import { parseRequestTarget } from './request-target.js';
import { ResourceNotFoundError } from '../../odata/errors.js';
import { DATE_TIME_OFFSETS_HEADER } from '../../odata/wall-clock.js';

export type { Intent } from './handle-request.js';

export interface ODataServiceOptions<Caller> {
  readonly model: Model;
  /** The service root's path, without a trailing slash (`/V1/Api.svc`). */
  readonly rootPath: string;
  readonly dataSource: DataSource<Caller>;
  /** Who is calling, or a thrown UnauthorizedError / ForbiddenError. */
  readonly authenticate: (request: FastifyRequest, intent: Intent) => Promise<Caller>;
  /** Most entities per page of a collection (default 100, service-api.md §8). */
  readonly pageSize?: number;
  /** Most entities one request may expand inline (default 5000). */
  readonly maxExpandedEntities?: number;
  readonly limits?: Partial<QueryLimits>;
  /** Bytes, operations and header sizes of a `$batch`. */
  readonly batchLimits?: Partial<BatchLimits>;
  readonly messages?: ValidationMessages;
  /** Realm of the `WWW-Authenticate: Basic` challenge of a 401. */
  readonly authRealm?: string;
  /** Updates and deletes of entities with an ETag must carry If-Match (else 428; default false). */
  readonly requireIfMatch?: boolean;
}

function serverParts<C>(options: ODataServiceOptions<C>, index: ModelIndex): ServerParts<C> {
  const messages = options.messages ?? ENGLISH_MESSAGES;
  const paths = new Map<EntitySet, (record: EdmRecord) => string>(options.model.entitySets.map((set) => [set, entityPath(index, set)]));
  return {
    index,
    dataSource: options.dataSource,
    representations: new Representations(index),
    payloadRules: new PayloadRules(options.model, messages),
    bodyReader: new EntityBodyReader(index, messages),
    messages,
    pageSize: options.pageSize ?? 100,
    maxExpandedEntities: options.maxExpandedEntities ?? 5000,
    requireIfMatch: options.requireIfMatch ?? false,
    entityPath: (set, record) => (paths.get(set) as (record: EdmRecord) => string)(record),
  };
}

/** A header's value; repeated fields are one list (RFC 9110 5.3). */
function headerList(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Registers the service on `app` (call before `listen`; the instance's body parsers are replaced). */
export function registerODataService<C>(app: FastifyInstance, options: ODataServiceOptions<C>): void {
  const index = indexModel(options.model);
  const parts = serverParts(options, index);
  const limits = options.limits ?? {};
  const realm = options.authRealm ?? 'OData';
  if (!app.supportedMethods.includes('MERGE')) app.addHttpMethod('MERGE', { hasBody: true });

  // Bodies stay bytes whatever their type: the entity reader decodes JSON and Atom strictly as
  // UTF-8 and the odata/ readers check them (hostile input included); a type they do not read
  // is a 415 from the handler. A batch
  // (multipart/mixed) stays a stream: its reader takes it chunk by chunk, within its own limits.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('multipart/mixed', (_request, payload, done) => done(null, payload));
  const batch = {
    parts,
    rootPath: options.rootPath,
    queryLimits: limits,
    batchLimits: { ...DEFAULT_BATCH_LIMITS, ...options.batchLimits },
    authRealm: realm,
  };

  app.setErrorHandler((error, request, reply) => sendError(error, request, reply, realm));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '';
    const error = splitServiceRoot(path, options.rootPath) === undefined
      ? new ResourceNotFoundError(`nothing is served at ${path.slice(0, 100)}; the service root is ${options.rootPath}`)
      : new MethodNotAllowedError(`${request.method} is not an OData method`, METHODS);
    return sendError(error, request, reply, realm);
  });

  app.route({
    method: [...METHODS],
    url: '*',
    handler: async (request, reply) => {
      const target = parseRequestTarget(
        { url: request.url, protocol: request.protocol, host: request.host, accept: request.headers.accept, dateTimeOffsets: headerText(request.headers[DATE_TIME_OFFSETS_HEADER]) },
        options.rootPath, index, limits,
      );
      const tunnelled = request.headers['x-http-method'];
      const method = effectiveMethod(request.method, Array.isArray(tunnelled) ? tunnelled[0] : tunnelled);
      if (target.path.kind === 'batch' && method === 'POST') return serveBatch(batch, request, reply, (intent) => options.authenticate(request, intent));
      const body = { contentType: request.headers['content-type'], bytes: Buffer.isBuffer(request.body) ? request.body : undefined };
      const preconditions = { ifMatch: headerList(request.headers['if-match']), ifNoneMatch: headerList(request.headers['if-none-match']) };
      const result = await handleRequest(parts, target, method, body, preconditions, (intent) => options.authenticate(request, intent));
      reply.code(result.status).header('dataserviceversion', '2.0');
      for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
      if (result.representation === undefined) return reply.send();
      // Text is encoded once here: given a string, Node would measure its UTF-8 length for
      // Content-Length and then encode it again to write it. Feeds come encoded already.
      const { contentType, body: document } = result.representation;
      return reply.header('content-type', contentType).send(typeof document === 'string' ? Buffer.from(document, 'utf8') : document);
    },
  });
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
