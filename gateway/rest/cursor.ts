// List cursors: the position after a page and everything needed to ask for the next one, opaque
// to clients and signed, so a changed, truncated or foreign cursor is refused before anything
// is sent upstream. The position is the upstream's own paging state: the `$skiptoken` of its
// next link (and a `$skip` after it, for a page that ended inside an upstream page). Nothing
// else of the next link is kept, so no upstream host or path ever reaches a client.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidCursorError } from '../errors.js';

export interface CursorState {
  /** Which list: the operation and its path parameters (a cursor is valid for that list only). */
  readonly list: string;
  /** The translated OData options (`$filter`, `$orderby`, `$select`, `$expand`), encoded. */
  readonly options: string;
  readonly limit: number;
  readonly count: boolean;
  /** The upstream's `$skiptoken`, decoded. */
  readonly skipToken?: string;
  /** Entities to skip after the token (or from the start without one). */
  readonly skip: number;
}

const VERSION = 1;
const MAC_BYTES = 16;

interface Wire {
  readonly v: number;
  readonly l: string;
  readonly o: string;
  readonly n: number;
  readonly c: boolean;
  readonly t?: string;
  readonly s: number;
}

function isWire(value: unknown): value is Wire {
  if (typeof value !== 'object' || value === null) return false;
  const w = value as Record<string, unknown>;
  return (
    w.v === VERSION && typeof w.l === 'string' && typeof w.o === 'string' && Number.isSafeInteger(w.n) &&
    typeof w.c === 'boolean' && (w.t === undefined || typeof w.t === 'string') && Number.isSafeInteger(w.s) && (w.s as number) >= 0
  );
}

export class CursorCodec {
  private readonly secret: Buffer;

  /** Without a secret, cursors are signed with a key of this process only. */
  constructor(secret: string | undefined) {
    this.secret = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
  }

  encode(state: CursorState): string {
    const wire: Wire = {
      v: VERSION,
      l: state.list,
      o: state.options,
      n: state.limit,
      c: state.count,
      ...(state.skipToken === undefined ? {} : { t: state.skipToken }),
      s: state.skip,
    };
    const payload = Buffer.from(JSON.stringify(wire), 'utf8').toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The state of a cursor written for `list`; a 400 for anything else. */
  decode(cursor: string, list: string): CursorState {
    const dot = cursor.indexOf('.');
    const payload = dot < 0 ? '' : cursor.slice(0, dot);
    const given = Buffer.from(dot < 0 ? '' : cursor.slice(dot + 1), 'base64url');
    const expected = this.mac(payload);
    if (payload === '' || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new InvalidCursorError('the cursor is not one this gateway wrote; pass `next` of the previous page unchanged');
    }
    let wire: unknown;
    try {
      wire = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      wire = undefined;
    }
    if (!isWire(wire)) throw new InvalidCursorError('the cursor cannot be read by this version of the gateway');
    if (wire.l !== list) throw new InvalidCursorError('the cursor belongs to another list');
    return {
      list: wire.l,
      options: wire.o,
      limit: wire.n,
      count: wire.c,
      ...(wire.t === undefined ? {} : { skipToken: wire.t }),
      skip: wire.s,
    };
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, MAC_BYTES);
  }
}

/** `$skiptoken` and `$skip` of an upstream next link (absolute or relative), decoded. */
export function pagingOf(nextLink: string): { skipToken?: string; skip: number } {
  const queryStart = nextLink.indexOf('?');
  let skipToken: string | undefined;
  let skip = 0;
  if (queryStart < 0) return { skip };
  for (const pair of nextLink.slice(queryStart + 1).split('#', 1)[0]?.split('&') ?? []) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const name = safeDecode(pair.slice(0, eq));
    // `+` is kept: an OData token is percent-encoded, and `+` may be part of it.
    const value = safeDecode(pair.slice(eq + 1));
    if (name === '$skiptoken' && value !== undefined) skipToken = value;
    else if (name === '$skip' && value !== undefined && /^\d{1,15}$/.test(value)) skip = Number(value);
  }
  return skipToken === undefined ? { skip } : { skipToken, skip };
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
