// The ApiKey query parameter in a raw URL: found or removed without re-encoding the rest
// of the query (an OData `$filter` must reach the upstream byte for byte as the client wrote it).
// The name is matched case-insensitively and after percent-decoding, so `%41pikey` is caught too.

function decodedName(pair: string): string {
  const eq = pair.indexOf('=');
  const raw = (eq < 0 ? pair : pair.slice(0, eq)).replaceAll('+', ' ');
  if (!raw.includes('%')) return raw.trim().toLowerCase();
  try {
    return decodeURIComponent(raw).trim().toLowerCase();
  } catch {
    // a malformed escape is no key name
    return raw.trim().toLowerCase();
  }
}

function isKeyPair(pair: string): boolean {
  return pair.length >= 6 && decodedName(pair) === 'apikey';
}

function valueOf(pair: string): string | undefined {
  const eq = pair.indexOf('=');
  if (eq < 0) return undefined;
  try {
    return decodeURIComponent(pair.slice(eq + 1).replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/** Cheap test first: most URLs carry no key at all. */
function mayHoldKey(url: string, queryStart: number): boolean {
  return queryStart >= 0 && (/apikey/i.test(url) || url.includes('%', queryStart));
}

/** The first non-empty ApiKey value of `url`, if any. */
export function queryKeyOf(url: string): string | undefined {
  const queryStart = url.indexOf('?');
  if (!mayHoldKey(url, queryStart)) return undefined;
  for (const pair of url.slice(queryStart + 1).split('&')) {
    if (!isKeyPair(pair)) continue;
    const value = valueOf(pair)?.trim();
    if (value) return value;
  }
  return undefined;
}

/** `url` without any ApiKey parameter (`?` dropped when nothing is left). */
export function withoutQueryKeyInUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (!mayHoldKey(url, queryStart)) return url;
  const kept = url.slice(queryStart + 1).split('&').filter((pair) => !isKeyPair(pair));
  const query = kept.join('&');
  return query === '' ? url.slice(0, queryStart) : `${url.slice(0, queryStart)}?${query}`;
}
