// Reading the caller's key, for both faces, as one onRequest hook on the root instance before the
// limits, the cache and the upstream: the key from any of its carriers (odata/api-key.ts, the
// reading the service uses too), kept on the request as its credential; a query that spells the
// key in a malformed way (400), a key no upstream credential could carry (401), the query key on
// a write (403) and, with a gateway key list, a key not on it (401) are refused here, as typed
// errors each face writes in its own format. The gateway's own endpoints answer without a key,
// and CORS preflights too: the CORS hook answers them before this one runs.
import type { FastifyRequest } from 'fastify';
import { isSendableKey, readApiKey } from '../../odata/api-key.js';
import { KeyNotAllowedError, MalformedKeyError, MalformedKeyParameterError, QueryKeyForWriteError } from '../errors.js';
import type { GatewayFeature } from '../features.js';
import { keyHeadersOf } from './auth-config.js';
import { createKeyCheck } from './key-check.js';
import type { RequestCredential } from './request-credential.js';
import { ANONYMOUS, requestCredential } from './request-credential.js';

/** The gateway's own endpoints: they answer without a key. */
const OPEN_PATHS = /^\/(?:(?:healthz|readyz|metrics|openapi\.json|docs)(?:[/?]|$)|(?:\?|$))/;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const CREDENTIAL = Symbol('timegate.credential');
type CredentialHolder = FastifyRequest & { [CREDENTIAL]?: RequestCredential };

export function authFeature(): GatewayFeature {
  return {
    name: 'auth',
    register(app, parts) {
      const { auth } = parts.config;
      const keyHeaders = keyHeadersOf(auth);
      const isAllowedKey = auth.allowedKeys === undefined ? undefined : createKeyCheck(auth.allowedKeys);
      // Anonymous until the hook reads a key: a request refused before it still has a credential.
      app.decorateRequest('credential', {
        getter(this: FastifyRequest) {
          return (this as CredentialHolder)[CREDENTIAL] ?? ANONYMOUS;
        },
        setter(this: FastifyRequest, credential: RequestCredential) {
          (this as CredentialHolder)[CREDENTIAL] = credential;
        },
      });
      const refusalOf = (request: FastifyRequest): Error | undefined => {
        if (OPEN_PATHS.test(request.url)) return undefined;
        const reading = readApiKey(request.headers, request.url, keyHeaders);
        if (reading.kind === 'malformed') return new MalformedKeyParameterError(reading.detail);
        if (reading.kind === 'key') {
          if (!isSendableKey(reading.key)) return new MalformedKeyError();
          if (reading.form === 'query' && !READ_METHODS.has(request.method)) return new QueryKeyForWriteError();
          request.credential = requestCredential(reading.key, reading.form);
        }
        if (isAllowedKey !== undefined && !isAllowedKey(request.credential.key)) return new KeyNotAllowedError();
        return undefined;
      };
      // A callback hook: nothing here waits, and an async hook costs a promise per request.
      app.addHook('onRequest', (request, _reply, done) => {
        done(refusalOf(request));
      });
    },
  };
}
