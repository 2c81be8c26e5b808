// The text of an XML document, from a string or from UTF-8 bytes, refused before anything reads
// it when it holds a character XML does not allow. Bytes may be decoded in pieces: V8 keeps a
// string of over 128 kB in its large-object space, where every new one maps fresh pages, and a
// 156 kB Atom page decoded whole took 160 µs where the same bytes in three pieces took 12 µs.
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

function checked(text: string): string {
  // One pass finds whether anything needs a closer look (a surrogate may be half of a pair).
  if (SUSPECT_CHAR.test(text) && (FORBIDDEN_CHAR.test(text) || LONE_SURROGATE.test(text))) {
    fail('the XML document contains a character XML does not allow');
  }
  return text;
}

/** Text of a document from a string or bytes; bytes must be valid UTF-8. */
export function xmlSource(input: string | Uint8Array): string {
  if (typeof input === 'string') return checked(input.charCodeAt(0) === 0xfeff ? input.slice(1) : input);
  return checked(decoded(input));
}

/**
 * The document as xmlSource reads it (the same text, the same errors), in pieces of at most
 * `pieceBytes` where one `<` is far enough from the last. Each piece after the first begins with
 * a `<`: no tag of a well-formed document spans two pieces (tags hold no `<`), and no character
 * is cut (the bytes of a UTF-8 sequence are all above 0x7f). A string is one piece: it is made.
 */
export function xmlSourcePieces(input: string | Uint8Array, pieceBytes = PIECE_BYTES): string[] {
  if (typeof input === 'string' || input.length <= pieceBytes) return [xmlSource(input)];
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
  // Checked once all are decoded, so that the error is the one the whole text gets.
  for (const piece of pieces) checked(piece);
  return pieces;
}
