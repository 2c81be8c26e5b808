// CORS for browser apps on other origins, with @fastify/cors, on both faces: off by default,
// on for the origins of `--cors-origin` (a list, or `*`). Preflights are answered in the first
// hook, before the key is read or anything is counted or cached, so they need no key; answers
// expose what a client of either face reads (ETag, Location, the rate-limit and cache fields).
import cors from '@fastify/cors';
import type { GatewayFeature } from './features.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'MERGE', 'DELETE'];

const EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'Content-Location',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Request-Id',
  'X-Cache',
  'Cache-Status',
  'DataServiceVersion',
];

export function corsFeature(): GatewayFeature {
  return {
    name: 'cors',
    async register(app, parts) {
      const { origins, maxAgeSeconds } = parts.config.cors;
      if (origins.length === 0) return;
      await app.register(cors, {
        origin: origins.includes('*') ? '*' : [...origins],
        methods: METHODS,
        // No allowedHeaders: a preflight's own Access-Control-Request-Headers are allowed
        // (X-ServiceApiKey, Authorization, If-Match, MaxDataServiceVersion, ...).
        exposedHeaders: EXPOSED_HEADERS,
        maxAge: maxAgeSeconds,
        strictPreflight: false,
      });
    },
  };
}
