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
  for (;;) {
    let bestAt = -1;
    let best: [Buffer, Buffer] | undefined;
    for (const replacement of replacements) {
      const at = buffer.indexOf(replacement[0], position);
      if (at >= 0 && (bestAt < 0 || at < bestAt)) {
        bestAt = at;
        best = replacement;
      }
    }
    if (best === undefined || bestAt >= end) break;
    parts.push(buffer.subarray(position, bestAt), best[1]);
    position = bestAt + best[0].length;
  }
  if (position < end) parts.push(buffer.subarray(position, end));
  return { parts, consumed: Math.max(position, end) };
}

/** A stream that rewrites `pair.from` to `pair.to` in the bytes flowing through it. */
export class RootRewriteStream extends Transform {
  private readonly replacements: ReadonlyArray<[Buffer, Buffer]>;
  /** The longest pattern minus one: how many trailing bytes may start a split match. */
  private readonly holdBack: number;
  private tail: Buffer = Buffer.alloc(0);

  constructor(pair: RootPair) {
    super();
    this.replacements = spellings(pair);
    this.holdBack = Math.max(...this.replacements.map(([from]) => from.length)) - 1;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const buffer = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
    const end = Math.max(0, buffer.length - this.holdBack);
    const { parts, consumed } = rewriteSpan(buffer, this.replacements, end);
    this.tail = buffer.subarray(consumed);
    const out = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
    if (out.length > 0) this.push(out);
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.tail.length > 0) {
      this.push(Buffer.concat(rewriteSpan(this.tail, this.replacements, this.tail.length).parts));
    }
    callback();
  }
}

/** The same rewrite on a whole string (headers, small bodies). */
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
