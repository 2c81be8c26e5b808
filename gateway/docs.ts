// The REST face's documents: the contract itself at /openapi.json (exactly what codegen wrote),
// and Swagger UI at /docs over that same document (@fastify/swagger in static mode feeds it),
// whose "Authorize" dialog offers the contract's security schemes, so a reader can call the API
// from the page with any of the key forms. The gateway's own address, `/`, leads a person who
// opens it to the docs page, or, where the page is off, to an index of the documents.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

export function registerDocs(app: FastifyInstance, openapi: OpenAPIV3_1.Document, withPage: boolean): void {
  const text = JSON.stringify(openapi);
  app.get(OPENAPI_PATH, (_request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-cache').send(text);
  });
  app.get('/', (_request, reply) => {
    if (withPage) return reply.redirect(DOCS_PATH);
    return reply.send({ openapi: OPENAPI_PATH });
  });
  if (!withPage) return;
  app.register(fastifySwagger, { mode: 'static', specification: { document: openapi as never } });
  app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PATH,
    uiConfig: { docExpansion: 'list', deepLinking: true, persistAuthorization: false, tryItOutEnabled: true, displayOperationId: true },
    staticCSP: true,
  });
}
