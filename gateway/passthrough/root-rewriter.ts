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

/**
 * Each root to replace, as is and (unless `escapedSlashes` is false) with JSON's optional `\/`
 * escape of slashes, and its replacement.
 */
function replacementTexts(pair: RootPair, escapedSlashes = true): Array<[string, string]> {
  const texts: Array<[string, string]> = [];
  for (const from of pair.forwardedFrom === undefined ? [pair.from] : [pair.from, pair.forwardedFrom]) {
    texts.push([from, pair.to]);
    const escapedFrom = from.replaceAll('/', '\\/');
    if (escapedSlashes && escapedFrom !== from) texts.push([escapedFrom, pair.to.replaceAll('/', '\\/')]);
  }
  return texts;
}

function spellings(pair: RootPair, escapedSlashes: boolean): Array<[Buffer, Buffer]> {
  return replacementTexts(pair, escapedSlashes).map(([from, to]) => [Buffer.from(from), Buffer.from(to)]);
}

type Replacements = ReadonlyArray<[Buffer, Buffer]>;

/** Matches as pairs of numbers: where each begins, and the index of its replacement. */
interface Matches {
  readonly matches: number[];
  /** Where the last match ends; the search's start when there is none. */
  readonly end: number;
}

/**
 * Every match in `buffer` from `start` on. Where two patterns match at one place, the first
 * listed wins.
 */
function findMatches(buffer: Buffer, replacements: Replacements, start: number): Matches {
  const matches: number[] = [];
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
    if (best < 0) return { matches, end: position };
    const at = nextAt[best] as number;
    matches.push(at, best);
    position = at + (replacements[best] as [Buffer, Buffer])[0].length;
  }
}

/**
 * `buffer[start, end)` with `matches` (all inside it) replaced. The bytes are copied once, `lead`
 * bytes into a new buffer, and then moved within it (copyWithin) as the replacements are written
 * in front of them: a view per stretch, joined by Buffer.concat or copied by Buffer#copy (which
 * makes a view on Node 20), cost 80 to 95 ns each, copyWithin and writing a whole replacement
 * about 20, and a page of 100 time entries holds 400 roots.
 */
function replaced(buffer: Buffer, replacements: Replacements, start: number, end: number, matches: readonly number[]): Buffer {
  // The writing never overtakes the bytes still to be moved when they start `lead` bytes in:
  // the most the output has grown at any match.
  let lead = 0;
  let growth = 0;
  for (let m = 1; m < matches.length; m += 2) {
    const [from, to] = replacements[matches[m] as number] as [Buffer, Buffer];
    growth += to.length - from.length;
    if (growth > lead) lead = growth;
  }
  const out = Buffer.allocUnsafe(lead + end - start);
  out.set(start === 0 && end === buffer.length ? buffer : buffer.subarray(start, end), lead);
  let write = 0;
  let read = lead;
  for (let m = 0; m < matches.length; m += 2) {
    const [from, to] = replacements[matches[m + 1] as number] as [Buffer, Buffer];
    const matchAt = lead + (matches[m] as number) - start;
    if (write !== read) out.copyWithin(write, read, matchAt);
    write += matchAt - read;
    out.set(to, write);
    write += to.length;
    read = matchAt + from.length;
  }
  if (write !== read) out.copyWithin(write, read, out.length);
  return out.subarray(0, write + out.length - read);
}

/**
 * Where the bytes that could begin a match cut off by the end of `buffer` start (at or after
 * `from`): the earliest index whose rest is a proper prefix of a pattern, or the length.
 */
function heldBackFrom(buffer: Buffer, replacements: Replacements, longest: number, from: number): number {
  for (let at = Math.max(from, buffer.length - longest + 1); at < buffer.length; at++) {
    const rest = buffer.length - at;
    for (const [pattern] of replacements) {
      // The first byte first: a compare is a call into C++, reading a byte is not.
      if (rest < pattern.length && buffer[at] === pattern[0] && buffer.compare(pattern, 0, rest, at) === 0) return at;
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

  /** `escapedSlashes`: whether the body may spell roots with JSON's `\/` (bodyMayEscapeSlashes). */
  constructor(pair: RootPair, escapedSlashes = true) {
    super();
    this.replacements = spellings(pair, escapedSlashes);
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
    const { matches, end } = findMatches(buffer, this.replacements, start);
    const held = heldBackFrom(buffer, this.replacements, this.longest, end);
    if (matches.length > 0) this.push(replaced(buffer, this.replacements, start, held, matches));
    else if (held > start) this.push(buffer.subarray(start, held));
    // The held bytes are copied: `buffer` may be a view into memory its producer reuses.
    if (held < buffer.length) this.carry = Buffer.from(buffer.subarray(held));
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
export function rewriteRootBytes(body: Buffer, pair: RootPair, escapedSlashes = true): Buffer {
  const replacements = spellings(pair, escapedSlashes);
  const { matches } = findMatches(body, replacements, 0);
  return matches.length === 0 ? body : replaced(body, replacements, 0, body.length, matches);
}

/** The same rewrite on a whole string (headers). */
export function rewriteRoot(text: string, pair: RootPair): string {
  let rewritten = text;
  for (const [from, to] of replacementTexts(pair)) {
    if (rewritten.includes(from)) rewritten = rewritten.replaceAll(from, to);
  }
  return rewritten;
}

/**
 * Whether a body of this (rewritable) media type may spell a root with JSON's `\/`: any but XML,
 * where `\/` is no escape. Looking for that spelling in an Atom page of 100 time entries, where
 * it never occurs, took as long as finding every root in it.
 */
export function bodyMayEscapeSlashes(contentType: string): boolean {
  const type = contentType.toLowerCase();
  return type.startsWith('multipart/') || !type.includes('xml');
}

/** Media types whose bodies can carry URIs as text: JSON (and JSONP), XML/Atom, text, multipart. */
export function isRewritable(contentType: string | undefined): contentType is string {
  if (contentType === undefined) return false;
  const type = contentType.toLowerCase();
  return type.includes('json') || type.includes('xml') || type.includes('javascript') || type.startsWith('text/') || type.startsWith('multipart/');
}
