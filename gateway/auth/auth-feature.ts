// Auth normalisation for both faces, as one onRequest hook on the root instance: a key sent in a
// configured alias header is moved to X-ServiceApiKey (so the REST face reads it like any other
// form), and with a gateway key list, a request whose key is not on it is refused with 401
// before anything else is done for it. The passthrough normalises what it forwards itself.
import type { GatewayFeature } from '../features.js';
import { sendFaceRefusal } from '../face-refusal.js';
import { KEY_HEADER } from './caller-key.js';
import { CredentialNormaliser, refusalOf } from './credential-normaliser.js';

/** The gateway's own endpoints answer without a key. */
const OPEN_PATHS = /^\/(?:healthz|readyz|metrics|openapi\.json|docs)(?:[/?]|$)/;

export function authFeature(): GatewayFeature {
  return {
    name: 'auth',
    register(app, parts) {
      const { auth, upstream } = parts.config;
      const normaliser = new CredentialNormaliser(auth, upstream.credential);
      const aliases = normaliser.keyHeaders.filter((name) => name !== KEY_HEADER);
      const checksKeys = auth.allowedKeys !== undefined;
      if (aliases.length === 0 && !checksKeys) return;
      app.addHook('onRequest', async (request, reply) => {
        if (OPEN_PATHS.test(request.url)) return;
        const headers = request.raw.headers;
        if (headers[KEY_HEADER] === undefined) {
          const alias = aliases.find((name) => headers[name] !== undefined);
          if (alias !== undefined) headers[KEY_HEADER] = headers[alias];
        }
        if (!checksKeys) return;
        const admission = normaliser.admit(request.method, normaliser.callerOf(headers, request.url));
        // The query-key write rule needs the face's reading of the method: each face applies it.
        if (!admission.allowed && admission.reason !== 'query-key-write') return sendFaceRefusal(refusalOf(admission.reason), request, reply);
      });
    },
  };
}
