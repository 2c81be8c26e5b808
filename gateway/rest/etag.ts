// ETags of single resources: the upstream's own (`m:etag`, `__metadata.etag`, an ETag header)
// when it writes one; else the version property (LastChangeTime by default) when the entity
// has it; else a digest of the REST representation. Conditional requests compare them weakly
// (RFC 9110 8.8.3.2), since V2 upstreams write weak ETags and expect them back in If-Match.
import { createHash } from 'node:crypto';
import type { DateTimeOffsetValue, EdmRecord } from '../../odata/edm.js';
import type { UpstreamEntry } from '../upstream/odata-codec.js';
import type { RestObject } from './rest-values.js';

export interface ResourceVersion {
  readonly etag: string;
  /** The upstream wrote it, so it may be sent back upstream in If-Match. */
  readonly fromUpstream: boolean;
}

const ENTITY_TAG = /^(W\/)?"[^"]*"$/;

function versionText(value: EdmRecord[string] | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return String(value.getTime());
  // A DateTime the upstream wrote with its offset (DATE_TIME_OFFSETS_HEADER): its instant.
  if (typeof value === 'object' && 'kind' in value && value.kind === 'DateTimeOffset') return String((value as DateTimeOffsetValue).date.getTime());
  if (typeof value === 'object') return undefined;
  return String(value);
}

export function resourceVersion(entry: UpstreamEntry, rest: RestObject, versionProperty: string): ResourceVersion {
  const upstream = entry.etag;
  if (upstream !== undefined && upstream !== '') {
    return { etag: ENTITY_TAG.test(upstream) ? upstream : `"${upstream.replaceAll('"', '')}"`, fromUpstream: true };
  }
  const version = versionText(entry.record[versionProperty]);
  if (version !== undefined) return { etag: `"v${version}"`, fromUpstream: false };
  const digest = createHash('sha256').update(JSON.stringify(rest)).digest('base64url').slice(0, 22);
  return { etag: `"h${digest}"`, fromUpstream: false };
}

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** Whether an If-Match / If-None-Match header value names `etag` (or is `*`). */
export function matchesAny(header: string, etag: string): boolean {
  const wanted = opaque(etag);
  return header.split(',').some((item) => {
    const tag = item.trim();
    return tag === '*' || opaque(tag) === wanted;
  });
}
