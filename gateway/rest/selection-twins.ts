// Which requests are a `:select` twin (`/projects/{id}:select`): those whose path, as sent, ends
// in a literal `:select` after a key. The router cannot tell: it decodes `%3A` before it matches
// and tests a twin's key pattern on the decoded segment, so `/labels/x%3Aselect` (the entity with
// key `x:select`) looked like the twin of `x`, and `/labels/a%2Fb:select` (the twin of `a/b`) like
// a plain read. A key is addressed by its percent-encoded form; only the raw URL says which.
import type { FastifyInstance } from 'fastify';
import { SELECTION_SUFFIX } from '../../codegen/rest-surface.js';

const STRATEGY = 'selectionTwin';

type Strategy = Parameters<FastifyInstance['addConstraintStrategy']>[0];
/** What the router keeps per constraint value (its handler), as Fastify's types name it. */
type RouteStore = NonNullable<ReturnType<ReturnType<Strategy['storage']>['get']>>;

/** The raw path ends in the suffix after something (a key, a set or a navigation segment). */
function namesTwin(rawUrl: string | undefined): boolean {
  const url = rawUrl ?? '';
  const queryStart = url.indexOf('?');
  // The router ignores a trailing slash; so does the rule.
  const path = (queryStart < 0 ? url : url.slice(0, queryStart)).replace(/\/$/, '');
  return path.endsWith(SELECTION_SUFFIX) && path.length > SELECTION_SUFFIX.length && path.at(-SELECTION_SUFFIX.length - 1) !== '/';
}

/** Lets routes be constrained to twin requests; once per server (the router's strategies are global). */
export function registerSelectionTwins(face: FastifyInstance): void {
  if (face.hasConstraintStrategy(STRATEGY)) return;
  face.addConstraintStrategy({
    name: STRATEGY,
    storage: () => {
      const stores = new Map<unknown, RouteStore>();
      return { get: (value: unknown) => stores.get(value) ?? null, set: (value: unknown, store: RouteStore) => void stores.set(value, store) };
    },
    deriveConstraint: (request: { url?: string }) => (namesTwin(request.url) ? 'yes' : 'no'),
    // Routes without this constraint (every path but a twin's) match whatever it derives.
    mustMatchWhenDerived: false,
    validate: () => undefined,
  });
}

/**
 * The route options of a twin path: it matches only requests the raw URL names it for, so a
 * decoded `%3A` falls through to the plain route of the same key.
 */
export function twinRouteOptions(url: string): { url: string; constraints?: Record<string, string> } {
  return url.endsWith(SELECTION_SUFFIX) ? { url, constraints: { [STRATEGY]: 'yes' } } : { url };
}
