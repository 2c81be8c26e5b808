// ETags of entities in the OData V2 way: an entity type whose properties carry
// `ConcurrencyMode="Fixed"` has one, written as a weak entity tag holding the URI literals of
// those properties in model order (`W/"3"`, `W/"datetime'2026-11-27T10:00:00',3"`), as SAP
// Gateway writes them; one without such properties has none. Conditional headers (If-Match,
// If-None-Match) are lists of entity tags or `*`, compared weakly: V2 services write weak tags
// and clients send them back unchanged in If-Match, where RFC 9110's strong comparison would
// never match them.
import type { EdmRecord, EdmValue } from './edm.js';
import { formatLiteral } from './literals.js';
import type { EdmPrimitiveType, EntityType, Property } from './model.js';

/** The properties that version entities of the type (empty: the type has no ETag). */
export function concurrencyProperties(type: EntityType): readonly Property[] {
  return type.properties.filter((property) => property.concurrencyMode === 'Fixed');
}

/** The ETag of entities of `type`, or undefined when the type declares no concurrency properties. */
export function etagWriter(type: EntityType): ((record: EdmRecord) => string) | undefined {
  const properties = concurrencyProperties(type);
  if (properties.length === 0) return undefined;
  return (record) => {
    const literals = properties.map((p) => formatLiteral((record[p.name] ?? null) as EdmValue, p.type as EdmPrimitiveType));
    return `W/"${literals.join(',')}"`;
  };
}

/** A conditional header: `*` (any current entity) or the opaque parts of the tags it lists. */
export type EntityTagCondition = { readonly any: true } | { readonly any: false; readonly tags: readonly string[] };

/**
 * Reads an If-Match / If-None-Match value: `*`, or entity tags separated by commas (weak or
 * strong). Anything else (a bare word, an unclosed quote) lists no usable tag, so it matches
 * nothing: a client that sends a broken If-Match is refused rather than let through.
 */
export function parseEntityTagCondition(header: string): EntityTagCondition {
  if (header.trim() === '*') return { any: true };
  const tags: string[] = [];
  const pattern = /\s*(?:W\/)?("[^"]*")\s*(?:,|$)/y;
  let match: RegExpExecArray | null;
  while (pattern.lastIndex < header.length && (match = pattern.exec(header)) !== null) tags.push(match[1] as string);
  return { any: false, tags };
}

/** Whether the condition names `etag` (compared weakly), or is `*`. */
export function conditionMatches(condition: EntityTagCondition, etag: string): boolean {
  if (condition.any) return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  return condition.tags.includes(opaque);
}
