// The text of an XML document, from a string or from UTF-8 bytes. Whole, it is refused before
// anything reads it when it holds a character XML does not allow. In pieces, for the tag reader,
// it is only decoded: that reader checks every character as it reads it, which costs less than
// a pass over the whole text (110 µs for a page of 100 time entries). Pieces, because V8 keeps a
// string of over 128 kB in its large-object space, where every new one maps fresh pages: a 156 kB
// Atom page decoded whole took 160 µs, the same bytes in three pieces 12 µs.
import { PayloadError } from './errors.js';

// eslint-disable-next-line no-control-regex -- control characters are what XML forbids
const FORBIDDEN_CHAR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;
// eslint-disable-next-line no-control-regex -- the characters above, and surrogates
const SUSPECT_CHAR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LT = 0x3c;

/**
 * The most bytes a piece holds where the document can be cut: a piece is at most as many
 * characters, two bytes each at worst, so it stays under V8's 128 kB.
 */
export const PIECE_BYTES = 60_000;

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function fail(message: string): never {
  throw new PayloadError(message);
}

function decoded(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes); // strips a UTF-8 BOM itself
  } catch {
    return fail('the XML document is not valid UTF-8');
  }
}

/** Whether `text` holds a character XML does not allow (a lone surrogate included). */
export function hasForbiddenChar(text: string): boolean {
  return SUSPECT_CHAR.test(text) && (FORBIDDEN_CHAR.test(text) || LONE_SURROGATE.test(text));
}

function checked(text: string): string {
  if (hasForbiddenChar(text)) fail('the XML document contains a character XML does not allow');
  return text;
}

function text(input: string | Uint8Array): string {
  if (typeof input === 'string') return input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  return decoded(input);
}

/** Text of a document from a string or bytes; bytes must be valid UTF-8. */
export function xmlSource(input: string | Uint8Array): string {
  return checked(text(input));
}

/**
 * The text xmlSource reads, unchecked (its reader checks what it reads), in pieces of at most
 * `pieceBytes` where one `<` is far enough from the last. Each piece after the first begins with
 * a `<`: no tag of a well-formed document spans two pieces (tags hold no `<`), and no character
 * is cut (the bytes of a UTF-8 sequence are all above 0x7f). A string is one piece: it is made.
 */
export function xmlTextPieces(input: string | Uint8Array, pieceBytes = PIECE_BYTES): string[] {
  if (typeof input === 'string' || input.length <= pieceBytes) return [text(input)];
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const pieces: string[] = [];
  let start = 0;
  while (bytes.length - start > pieceBytes) {
    let cut = bytes.lastIndexOf(LT, start + pieceBytes);
    if (cut <= start) cut = bytes.indexOf(LT, start + pieceBytes);
    if (cut === -1) break;
    pieces.push(decoded(bytes.subarray(start, cut)));
    start = cut;
  }
  pieces.push(decoded(bytes.subarray(start)));
  return pieces;
}
