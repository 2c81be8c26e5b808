// A document's text in pieces must be the text read whole, cut only where a tag begins, and
// refused exactly when the bytes are not UTF-8 (the characters are its reader's to check).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PIECE_BYTES, xmlTextPieces } from '../../odata/xml-source.js';

function outcome(read: () => string | string[]): string | Error {
  try {
    const text = read();
    return typeof text === 'string' ? text : text.join('');
  } catch (error) {
    return error as Error;
  }
}

describe('xmlTextPieces', () => {
  it('joins to the whole text, each piece after the first beginning with a tag, none longer than asked where a tag allows', () => {
    const unit = fc.constantFrom('<', '>', 'a', ' ', 'ü', '€', '😀', '\u0001', '\r');
    const bytes = fc.oneof(
      fc.string({ unit, maxLength: 300 }).map((text) => Buffer.from(text)),
      // Bytes that are not UTF-8, or a cut sequence, anywhere.
      fc.uint8Array({ maxLength: 300 }).map((array) => Buffer.from(array)),
      fc.string({ unit, maxLength: 300 }).map((text) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])),
    );
    fc.assert(
      fc.property(bytes, fc.integer({ min: 1, max: 80 }), (input, pieceBytes) => {
        const whole = outcome(() => new TextDecoder('utf-8', { fatal: true }).decode(input)); // strips a BOM
        const joined = outcome(() => xmlTextPieces(input, pieceBytes));
        if (whole instanceof Error) expect(joined instanceof Error ? joined.message : joined).toBe('the XML document is not valid UTF-8');
        else expect(joined).toBe(whole);
        if (whole instanceof Error) return;
        const pieces = xmlTextPieces(input, pieceBytes);
        for (const [i, piece] of pieces.entries()) {
          if (i > 0) expect(piece.startsWith('<')).toBe(true);
          const size = Buffer.byteLength(piece);
          // Longer only when no `<` lies within reach: then up to the next one.
          if (size > pieceBytes) expect(Buffer.from(piece).subarray(1, pieceBytes + 1).includes(0x3c)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a page of two-byte characters in strings V8 holds in its ordinary heap (under 128 kB)', () => {
    const page = Buffer.from(`<feed>${'<d:Name>Überstunden € 😀</d:Name>'.repeat(20_000)}</feed>`);
    const pieces = xmlTextPieces(page);
    expect(pieces.length).toBeGreaterThan(page.length / PIECE_BYTES);
    expect(pieces.join('')).toBe(page.toString());
    for (const piece of pieces) expect(piece.length * 2).toBeLessThan(128 * 1024);
  });
});
