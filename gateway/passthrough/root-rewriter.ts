// Replaces the upstream's service root with the gateway's in everything a response carries
// (`__metadata.uri`, `__deferred.uri`, `__next`, Atom `id`, `link href`, `xml:base`, JSONP and
// error bodies alike), so a client never sees or follows the upstream host. Bodies are rewritten
// as they stream: a chunk is passed on at once except for its last few bytes, which could be the
// start of a root split across two chunks and wait for the next one.
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';

export interface RootPair {
  /** What the upstream writes, e.g. `http://10.0.0.5:4004/V1/Api.svc`. */
  readonly from: string;
  /** What the client should see, e.g. `https://api.example.com/V1/Api.svc`. */
  readonly to: string;
}

/** Both spellings of a root in a body: as is, and with JSON's optional `\/` escape of slashes. */
function spellings(pair: RootPair): Array<[Buffer, Buffer]> {
  const plain: [Buffer, Buffer] = [Buffer.from(pair.from), Buffer.from(pair.to)];
  const escapedFrom = pair.from.replaceAll('/', '\\/');
  if (escapedFrom === pair.from) return [plain];
  return [plain, [Buffer.from(escapedFrom), Buffer.from(pair.to.replaceAll('/', '\\/'))]];
}

interface Rewritten {
  readonly parts: Buffer[];
  /** Bytes of the input used up: at least `end`, more when a match ran past it. */
  readonly consumed: number;
}

/** Rewrites every match that starts before `end`; bytes from `end` on are left to the caller. */
function rewriteSpan(buffer: Buffer, replacements: ReadonlyArray<[Buffer, Buffer]>, end: number): Rewritten {
  const parts: Buffer[] = [];
  let position = 0;
  // Where each pattern occurs next (-1: nowhere). A pattern is searched again only once the
  // position has passed its last hit, so a pattern that never occurs is scanned for once.
  const nextAt = replacements.map(([from]) => buffer.indexOf(from));
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
    if (best < 0 || (nextAt[best] as number) >= end) break;
    const at = nextAt[best] as number;
    const [from, to] = replacements[best] as [Buffer, Buffer];
    parts.push(buffer.subarray(position, at), to);
    position = at + from.length;
  }
  if (position < end) parts.push(buffer.subarray(position, end));
  return { parts, consumed: Math.max(position, end) };
}

/** Output is passed on in pieces of at least this size (the last piece may be smaller). */
const MIN_PUSH_BYTES = 16 * 1024;

/**
 * A stream that rewrites `pair.from` to `pair.to` in the bytes flowing through it. A small body
 * leaves as one piece: split writes of one small answer cost the client a packet round more.
 */
export class RootRewriteStream extends Transform {
  private readonly replacements: ReadonlyArray<[Buffer, Buffer]>;
  /** The longest pattern minus one: how many trailing bytes may start a split match. */
  private readonly holdBack: number;
  private tail: Buffer = Buffer.alloc(0);
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(pair: RootPair) {
    super();
    this.replacements = spellings(pair);
    this.holdBack = Math.max(...this.replacements.map(([from]) => from.length)) - 1;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const buffer = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
    const end = Math.max(0, buffer.length - this.holdBack);
    const { parts, consumed } = rewriteSpan(buffer, this.replacements, end);
    // The tail is copied: `chunk` may be a view into a pooled buffer that is reused.
    this.tail = Buffer.from(buffer.subarray(consumed));
    for (const part of parts) {
      if (part.length === 0) continue;
      this.pending.push(part);
      this.pendingBytes += part.length;
    }
    if (this.pendingBytes >= MIN_PUSH_BYTES) this.pushPending();
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.tail.length > 0) this.pending.push(...rewriteSpan(this.tail, this.replacements, this.tail.length).parts);
    this.pushPending();
    callback();
  }

  private pushPending(): void {
    if (this.pending.length === 0) return;
    this.push(this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending));
    this.pending = [];
    this.pendingBytes = 0;
  }
}

/** The same rewrite on a whole body. */
export function rewriteRootBytes(body: Buffer, pair: RootPair): Buffer {
  const { parts } = rewriteSpan(body, spellings(pair), body.length);
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}

/** The same rewrite on a whole string (headers). */
export function rewriteRoot(text: string, pair: RootPair): string {
  if (!text.includes(pair.from) && !text.includes(pair.from.replaceAll('/', '\\/'))) return text;
  return text.replaceAll(pair.from, pair.to).replaceAll(pair.from.replaceAll('/', '\\/'), pair.to.replaceAll('/', '\\/'));
}

/** Media types whose bodies can carry URIs as text: JSON (and JSONP), XML/Atom, text, multipart. */
export function isRewritable(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = contentType.toLowerCase();
  return type.includes('json') || type.includes('xml') || type.includes('javascript') || type.startsWith('text/') || type.startsWith('multipart/');
}
