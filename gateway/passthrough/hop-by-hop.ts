// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are never forwarded: the
// fixed set, and every header the Connection header names.

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

type Headers = Record<string, string | string[] | number | undefined>;

/** Removes the hop-by-hop headers of `headers` (lower-case names) in place. */
export function stripHopByHop<T extends Headers>(headers: T): T {
  const connection = headers.connection;
  if (typeof connection === 'string') {
    for (const name of connection.split(',')) delete headers[name.trim().toLowerCase()];
  }
  for (const name of HOP_BY_HOP) delete headers[name];
  return headers;
}
