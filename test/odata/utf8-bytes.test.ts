import { describe, expect, it } from 'vitest';
import { createAtomWriter } from '../../odata/atom-writer.js';
import { createJsonWriter } from '../../odata/json-writer.js';
import { Utf8Bytes } from '../../odata/utf8-bytes.js';
import { project, ROOT, setOf, timeTracking } from './fixtures/json/models.js';

const projects = setOf(timeTracking, 'Projects');
const named = (count: number, name: string) => Array.from({ length: count }, (_, i) => ({ ...project, ID: i + 1, Name: `${name} ${i}` }));

describe('feeds written as UTF-8 bytes, entry by entry', () => {
  for (const [format, writer] of [['JSON', createJsonWriter(timeTracking, projects)], ['Atom', createAtomWriter(timeTracking, projects)]] as const) {
    it(`${format}: the same bytes as the text encoded, for small and large pages, umlauts and emoji included`, () => {
      // A first page of one entry sizes the next buffer far too small: it has to grow, more than once.
      for (const records of [named(1, 'Ärger'), named(400, 'Grüße 😀 aus Köln'), named(0, ''), named(3, '"<&>"')]) {
        // One time for both documents: Atom writes <updated> as now unless told.
        const options = { serviceRoot: ROOT, count: records.length, next: `${ROOT}Projects?$skiptoken=9`, updated: new Date(Date.UTC(2026, 10, 23)) };
        const bytes = writer.feedBytes(records, options);
        expect(bytes.equals(Buffer.from(writer.feed(records, options), 'utf8'))).toBe(true);
        if (records.length === 400) expect(bytes.toString('utf8')).toContain('Grüße 😀 aus Köln 399');
      }
    });
  }

  it('never cuts a character at a buffer boundary and shows nothing of the buffer but what was written', () => {
    const sink = new Utf8Bytes(1);
    const pieces = ['a'.repeat(1023), '€', '😀'.repeat(700), 'ü', ''];
    for (const piece of pieces) sink.add(piece);
    expect(sink.bytes().toString('utf8')).toBe(pieces.join(''));
    expect(sink.bytes().length).toBe(Buffer.byteLength(pieces.join('')));
  });
});
