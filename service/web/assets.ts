// The web interface's own stylesheet, scripts and icon, read once at start-up from ./assets and served
// with a content hash in their ETag; nothing is fetched from elsewhere (the CSP allows 'self' only).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

const TYPES: Readonly<Record<string, string>> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8', svg: 'image/svg+xml' };
const FILES = ['app.css', 'stopwatch.js', 'copy.js', 'favicon.svg'] as const;

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

function load(): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of FILES) {
    const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)] as string;
    assets.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` });
  }
  return assets;
}

export function serveAssets(web: FastifyInstance): void {
  const assets = load();
  web.get('/assets/:name', async (request, reply) => {
    const asset = assets.get((request.params as { name: string }).name);
    if (asset === undefined) return reply.code(404).type('text/plain; charset=utf-8').send('not found');
    reply.header('etag', asset.etag).header('cache-control', 'public, max-age=300');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  });
}
