// Entry templates (odata/atom-entry-template.ts) read the entries of a feed written as earlier
// ones were in one regular expression. They are a fast path of the scanner: every entry they read
// must come out exactly as the general reader (the XML tree) reads it, and everything a hole may
// not take (references, CR, characters XML forbids, attribute white space) must go the slow way.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileSet, readAtomFeed } from '../../odata/atom-reader.js';
import { scanAtomFeed } from '../../odata/atom-feed-scanner.js';
import { createAtomWriter } from '../../odata/atom-writer.js';
import type { EdmRecord } from '../../odata/edm.js';
import { xmlTextPieces } from '../../odata/xml-source.js';
import { XmlTagReader } from '../../odata/xml-tag-reader.js';
import { ROOT, setOf, timeTracking } from './fixtures/atom/models.js';

const clients = setOf(timeTracking, 'Clients');
const writer = createAtomWriter(timeTracking, clients);
const D = 'http://schemas.microsoft.com/ado/2007/08/dataservices';

/** Client `i`, with Comment, Custom1 and Custom5 null in turns, as rows of a real page are. */
function client(i: number, name = `Client ${i}`): EdmRecord {
  return {
    ID: i, Name: name, Comment: i % 3 === 0 ? null : `note ${i}`, Active: i % 2 === 0, AssignedToCurrentUser: false,
    Custom1: i % 4 === 0 ? `c${i}` : null, Custom2: null, Custom3: null, Custom4: null, Custom5: i % 5 === 0 ? null : 'x',
    LastChangeTime: new Date(Date.UTC(2026, 10, 1 + (i % 28), i % 24)), LastChangeAuthor: i % 7, Version: 1 + (i % 3),
  };
}

function page(records: readonly EdmRecord[]): string {
  return writer.feed(records, { serviceRoot: ROOT, updated: new Date(Date.UTC(2026, 10, 20)), etag: (r) => `W/"${r.ID as number}"` });
}

function treeRead(xml: string): unknown {
  try {
    return readAtomFeed(xml, timeTracking, clients, { maxDepth: 100 });
  } catch (error) {
    return error;
  }
}

function scan(xml: string) {
  return scanAtomFeed(xmlTextPieces(xml), compileSet(timeTracking, clients));
}

/** How many entries a template read during `read`. */
function templateReads(read: () => void): number {
  const elementAs = vi.spyOn(XmlTagReader.prototype, 'elementAs');
  read();
  const reads = elementAs.mock.results.filter((result) => result.value !== null).length;
  elementAs.mockRestore();
  return reads;
}

afterEach(() => vi.restoreAllMocks());

describe('Atom entry templates', () => {
  it('read entries that differ in their values and in which properties are null, as the general reader does', () => {
    const records = Array.from({ length: 60 }, (_, i) => client(i + 1));
    const xml = page(records);
    let scanned: ReturnType<typeof scan>;
    const reads = templateReads(() => {
      scanned = scan(xml);
    });
    expect(scanned).toStrictEqual(treeRead(xml));
    expect(scanned?.entries.map((e) => e.properties)).toStrictEqual(records);
    // Eight ways of writing an entry here (three properties null or not): a few are read tag by tag.
    expect(reads).toBeGreaterThanOrEqual(45);
    // The next page is read by the templates the first one taught.
    const next = page(Array.from({ length: 20 }, (_, i) => client(i + 200)));
    expect(templateReads(() => expect(scan(next)).toStrictEqual(treeRead(next)))).toBeGreaterThanOrEqual(18);
  });

  it('give every value a hole may not take to the tag reader: references, CR, astral and forbidden characters', () => {
    const names = ['Müller &amp; Co', 'line\r\nbreak', 'emoji 😀', 'tab\tand\nnewline', ' spaced ', '', 'a > b'];
    const records = Array.from({ length: 30 }, (_, i) => client(i + 1, i >= 20 ? (names[i - 20] ?? 'last') : `Client ${i}`));
    const xml = page(records);
    expect(scan(xml)).toStrictEqual(treeRead(xml));
    expect(scan(xml)?.entries.map((e) => e.properties.Name)).toStrictEqual(records.map((r) => r.Name));
    // The same text with a character XML forbids in a later entry: the general reader refuses it, so must the scanner.
    const forbidden = xml.replace('>Client 15<', '>Client\u000115<');
    expect(treeRead(forbidden)).toBeInstanceOf(Error);
    expect(scan(forbidden)).toBeUndefined();
    const lone = xml.replace('>Client 16<', '>Client\ud80016<');
    expect(treeRead(lone)).toBeInstanceOf(Error);
    expect(scan(lone)).toBeUndefined();
  });

  it('leave hrefs a hole may not take to the tag reader, which decodes and normalises them', () => {
    const xml = page(Array.from({ length: 12 }, (_, i) => client(i + 1)))
      .replace('href="Clients(9)"', 'href="Clients(&apos;9&apos;)"')
      .replace('href="Clients(10)"', 'href="Clients(\t10)"')
      .replace('href="Clients(11)"', 'href="Clients(\n11)"');
    const scanned = scan(xml);
    expect(scanned).toStrictEqual(treeRead(xml));
    expect(scanned?.entries.slice(8, 11).map((e) => e.editLink)).toStrictEqual(["Clients('9')", 'Clients( 10)', 'Clients( 11)']);
  });

  it('are kept for the namespaces they were learned under: the same text under other bindings is read anew', () => {
    const xml = page(Array.from({ length: 10 }, (_, i) => client(i + 1)));
    expect(scan(xml)).toStrictEqual(treeRead(xml));
    // `d` now names another namespace: these are no properties of the entity, whatever a template says.
    const other = xml.replace(`xmlns:d="${D}"`, 'xmlns:d="urn:elsewhere"');
    expect(treeRead(other)).toBeInstanceOf(Error);
    expect(scan(other)).toBeUndefined();
    expect(() => readAtomFeed(other, timeTracking, clients)).toThrow('element outside the data namespace {urn:elsewhere}: ID');
  });

  it('are not made of entries too long to repeat: such a page is read tag by tag, as the general reader reads it', () => {
    const author = `<author><name>${'biography '.repeat(2_000)}</name></author>`;
    const xml = page(Array.from({ length: 6 }, (_, i) => client(i + 1))).replaceAll('<content type=', `${author}<content type=`);
    let scanned: ReturnType<typeof scan>;
    expect(templateReads(() => {
      scanned = scan(xml);
    })).toBe(0);
    expect(scanned).toBeDefined();
    expect(scanned).toStrictEqual(treeRead(xml));
  });

  it('read an entry that ends one piece of a page and begins the next tag by tag, and the rest by template', () => {
    const records = Array.from({ length: 40 }, (_, i) => client(i + 1));
    const xml = page(records);
    const pieces = xmlTextPieces(Buffer.from(xml), 4_000);
    expect(pieces.length).toBeGreaterThan(3);
    const scanned = scanAtomFeed(pieces, compileSet(timeTracking, clients));
    expect(scanned).toStrictEqual(treeRead(xml));
  });
});
