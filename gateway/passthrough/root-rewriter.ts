// Replaces the upstream's service root with the gateway's in everything a response carries
// (`__metadata.uri`, `__deferred.uri`, `__next`, Atom `id`, `link href`, `xml:base`, JSONP and
// error bodies alike), so a client never sees or follows the upstream host. Bodies are rewritten
// as they stream.
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';

export interface RootPair {
  /** What the upstream writes, e.g. `http://10.0.0.5:4004/V1/Api.svc`. */
  readonly from: string;
  /** What the client should see, e.g. `https://api.example.com/V1/Api.svc`. */
  readonly to: string;
  /**
   * What an upstream that believes X-Forwarded-Host/-Proto writes when its root path is not the
   * gateway's: the gateway's origin with the upstream's path, e.g.
   * `https://api.example.com/sap/opu/odata/sap/TIME_SRV`. Unset where that is `to` itself.
   */
  readonly forwardedFrom?: string;
}

/** Each root to replace, as is and with JSON's optional `\/` escape of slashes, and its replacement. */
function replacementTexts(pair: RootPair): Array<[string, string]> {
  const texts: Array<[string, string]> = [];
  for (const from of pair.forwardedFrom === undefined ? [pair.from] : [pair.from, pair.forwardedFrom]) {
    texts.push([from, pair.to]);
    const escapedFrom = from.replaceAll('/', '\\/');
    if (escapedFrom !== from) texts.push([escapedFrom, pair.to.replaceAll('/', '\\/')]);
  }
  return texts;
}

function spellings(pair: RootPair): Array<[Buffer, Buffer]> {
  return replacementTexts(pair).map(([from, to]) => [Buffer.from(from), Buffer.from(to)]);
}

type Replacements = ReadonlyArray<[Buffer, Buffer]>;

/**
 * Finds every match in `buffer` from `start` on, pushes onto `parts` the bytes before and between
 * them and the replacements, and returns where the last match ended (`start` when none did); the
 * bytes after that are the caller's.
 */
function rewriteMatches(buffer: Buffer, replacements: Replacements, start: number, parts: Buffer[]): number {
  let position = start;
  // Where each pattern occurs next (-1: nowhere). A pattern is searched again only once the
  // position has passed its last hit, so a pattern that never occurs is scanned for once.
  const nextAt = replacements.map(([from]) => buffer.indexOf(from, start));
  for (;;) {
    let best = -1;
    for (let i = 0; i < replacements.length; i++) {
      let at = nextAt[i] as number;
      if (at >= 0 && at < position) {
        at = buffer.indexOf((replacements[i] as [Buffer, Buffer])[0], position);
        nextAt[i] = at;
      }
      if (at >= 0 && (best < 0 || at < (nextAt[best] as number))) best = i;
    }
    if (best < 0) return position;
    const at = nextAt[best] as number;
    const [from, to] = replacements[best] as [Buffer, Buffer];
    if (at > position) parts.push(buffer.subarray(position, at));
    parts.push(to);
    position = at + from.length;
  }
}

/**
 * Where the bytes that could begin a match cut off by the end of `buffer` start (at or after
 * `from`): the earliest index whose rest is a proper prefix of a pattern, or the length.
 */
function heldBackFrom(buffer: Buffer, replacements: Replacements, longest: number, from: number): number {
  for (let at = Math.max(from, buffer.length - longest + 1); at < buffer.length; at++) {
    const rest = buffer.length - at;
    for (const [pattern] of replacements) {
      if (rest < pattern.length && buffer.compare(pattern, 0, rest, at) === 0) return at;
    }
  }
  return buffer.length;
}

/**
 * A stream that rewrites `pair.from` to `pair.to` in the bytes flowing through it. A chunk
 * without a root in it is passed on as it came, not copied: an upstream that already writes the
 * gateway's root (it honours X-Forwarded-Host) costs one scan of the bytes and no allocation.
 * Only the few bytes at a chunk's end that could start a root split across chunks wait for the
 * next chunk.
 */
export class RootRewriteStream extends Transform {
  private readonly replacements: Replacements;
  private readonly longest: number;
  /** Bytes held back from the last chunk: a proper prefix of a pattern. */
  private carry: Buffer | undefined;

  constructor(pair: RootPair) {
    super();
    this.replacements = spellings(pair);
    this.longest = Math.max(...this.replacements.map(([from]) => from.length));
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let buffer = chunk;
    let start = 0;
    const carry = this.carry;
    this.carry = undefined;
    if (carry !== undefined) {
      if (chunk.length < this.longest) {
        buffer = Buffer.concat([carry, chunk]);
      } else {
        start = this.joinCarry(carry, chunk);
      }
    }
    const parts: Buffer[] = [];
    const position = rewriteMatches(buffer, this.replacements, start, parts);
    const held = heldBackFrom(buffer, this.replacements, this.longest, position);
    if (held > position) parts.push(buffer.subarray(position, held));
    // The held bytes are copied: `buffer` may be a view into memory its producer reuses.
    if (held < buffer.length) this.carry = Buffer.from(buffer.subarray(held));
    if (parts.length === 1) this.push(parts[0]);
    else if (parts.length > 1) this.push(Buffer.concat(parts));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.carry !== undefined) this.push(this.carry);
    callback();
  }

  /**
   * Passes on the carried bytes, rewriting a match that starts in them and ends in `chunk`;
   * returns where in `chunk` the rest begins.
   */
  private joinCarry(carry: Buffer, chunk: Buffer): number {
    const joined = Buffer.concat([carry, chunk.subarray(0, this.longest - 1)]);
    let best: [number, Buffer, Buffer] | undefined;
    for (const [from, to] of this.replacements) {
      const at = joined.indexOf(from);
      if (at >= 0 && at < carry.length && (best === undefined || at < best[0])) best = [at, from, to];
    }
    if (best === undefined) {
      this.push(carry);
      return 0;
    }
    const [at, from, to] = best;
    this.push(Buffer.concat([carry.subarray(0, at), to]));
    return at + from.length - carry.length;
  }
}

/** The same rewrite on a whole body. */
export function rewriteRootBytes(body: Buffer, pair: RootPair): Buffer {
  const parts: Buffer[] = [];
  const position = rewriteMatches(body, spellings(pair), 0, parts);
  if (position === 0) return body;
  if (position < body.length) parts.push(body.subarray(position));
  return Buffer.concat(parts);
}

/** The same rewrite on a whole string (headers). */
export function rewriteRoot(text: string, pair: RootPair): string {
  let rewritten = text;
  for (const [from, to] of replacementTexts(pair)) {
    if (rewritten.includes(from)) rewritten = rewritten.replaceAll(from, to);
  }
  return rewritten;
}

/** Media types whose bodies can carry URIs as text: JSON (and JSONP), XML/Atom, text, multipart. */
export function isRewritable(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = contentType.toLowerCase();
  return type.includes('json') || type.includes('xml') || type.includes('javascript') || type.startsWith('text/') || type.startsWith('multipart/');
}
