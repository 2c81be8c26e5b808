// The Atom feed scanner is a fast path: it must read every feed it accepts exactly as the general
// reader (the XML tree) does, decline every document the general reader refuses, and accept the
// feeds V2 servers actually write, or it is of no use.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSet, readAtomFeed } from '../../odata/atom-reader.js';
import type { AtomFeed } from '../../odata/atom-reader.js';
import { scanAtomFeed } from '../../odata/atom-feed-scanner.js';
import { createAtomWriter } from '../../odata/atom-writer.js';
import { xmlTextPieces } from '../../odata/xml-source.js';
import type { EdmRecord } from '../../odata/edm.js';
import { ROOT, golden, setOf, timeTracking } from './fixtures/atom/models.js';

const clients = setOf(timeTracking, 'Clients');
const timeEntries = setOf(timeTracking, 'TimeEntries');
const writer = createAtomWriter(timeTracking, clients);
const ATOM = 'http://www.w3.org/2005/Atom';
const D = 'http://schemas.microsoft.com/ado/2007/08/dataservices';
const M = 'http://schemas.microsoft.com/ado/2007/08/dataservices/metadata';
const RELATED = 'http://schemas.microsoft.com/ado/2007/08/dataservices/related/';

/** The general reader alone: a depth limit of the caller's own leaves the scanner out. */
function treeRead(xml: string, set = clients): AtomFeed | Error {
  try {
    return readAtomFeed(xml, timeTracking, set, { maxDepth: 100 });
  } catch (error) {
    return error as Error;
  }
}

/** The scanner as readAtomFeed runs it: on the pieces of a document's text, unchecked. */
function scan(xml: string | Uint8Array, set = clients, pieceBytes?: number): AtomFeed | undefined {
  let pieces: string[];
  try {
    pieces = xmlTextPieces(xml, pieceBytes);
  } catch {
    return undefined;
  }
  return scanAtomFeed(pieces, compileSet(timeTracking, set));
}

/** A lone surrogate has no UTF-8: the bytes of a text that holds one would be another document. */
function hasUtf8(xml: string): boolean {
  return Buffer.from(xml).toString() === xml;
}

/**
 * The scanner on the document's bytes cut into pieces of a few tags each (xml-source.ts), so
 * that text runs on from one piece into the next and every tag may begin one.
 */
function scanInPieces(xml: string, set = clients, pieceBytes?: number): AtomFeed | undefined {
  const bytes = Buffer.from(xml);
  return scan(bytes, set, pieceBytes ?? 1 + (bytes.length % 61));
}

/** What the scanner promises of any document, whole or in pieces: the general reader's answer, or nothing. */
function expectNoDifferentAnswer(xml: string, set = clients): AtomFeed | undefined {
  const scanned = scan(xml, set);
  if (scanned !== undefined) expect(scanned).toStrictEqual(treeRead(xml, set));
  const inPieces = hasUtf8(xml) ? scanInPieces(xml, set) : undefined;
  if (inPieces !== undefined) expect(inPieces, 'in pieces').toStrictEqual(treeRead(xml, set));
  return scanned;
}

// Text with what XML must escape, white space, non-ASCII and astral characters.
const text = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '\t', '\n', '&', '<', '>', '"', "'", 'ü', '€', '😀', ']]>', '\r'), maxLength: 30 });
const client: fc.Arbitrary<EdmRecord> = fc.record({
  ID: fc.integer({ min: 1, max: 2_000_000_000 }),
  Name: text,
  Comment: fc.option(text),
  Active: fc.boolean(),
  AssignedToCurrentUser: fc.boolean(),
  Custom1: fc.option(text),
  Custom2: fc.option(text),
  Custom3: fc.constant(null),
  Custom4: fc.constant(null),
  Custom5: fc.option(text),
  LastChangeTime: fc.date({ min: new Date(Date.UTC(1900, 0, 1)), max: new Date(Date.UTC(2999, 11, 31)), noInvalidDate: true }),
  LastChangeAuthor: fc.integer({ min: -5, max: 99 }),
});
const feedOptions = fc.record({
  count: fc.option(fc.nat({ max: 100_000 }), { nil: undefined }),
  next: fc.option(fc.constant(`${ROOT}Clients?$skiptoken=7`), { nil: undefined }),
  etags: fc.boolean(),
});

function written(records: readonly EdmRecord[], options: { count?: number; next?: string; etags: boolean }): string {
  return writer.feed(records, {
    serviceRoot: ROOT,
    updated: new Date(Date.UTC(2026, 10, 20)),
    ...(options.count === undefined ? {} : { count: options.count }),
    ...(options.next === undefined ? {} : { next: options.next }),
    ...(options.etags ? { etag: (record: EdmRecord) => `W/"datetime'${(record.LastChangeTime as Date).toISOString()}'"` } : {}),
  });
}

/** The Atom elements our writer uses, as start, end or empty tags. */
const ATOM_TAG = /<(\/?)(feed|entry|id|title|updated|author|name|link|category|content)([ />])/g;

/** The same feed as other V2 servers write it: indented, other prefixes, single quotes. */
const styles: Record<string, (xml: string) => string> = {
  ours: (xml) => xml,
  indented: (xml) => xml.replace(/></g, '>\n    <').replace(/\/>/g, ' />'),
  prefixes: (xml) =>
    xml
      .replace(/([</ ])m:/g, '$1meta:').replace('xmlns:m=', 'xmlns:meta=')
      .replace(/([</ ])d:/g, '$1data:').replace('xmlns:d=', 'xmlns:data=')
      .replace(`xmlns="${ATOM}"`, `xmlns:atom="${ATOM}"`)
      .replace(ATOM_TAG, '<$1atom:$2$3'),
  spacedIds: (xml) => xml.replace(/<id>([^<]*)<\/id>/g, '<id>\n      $1\n    </id>'),
  singleQuotes: (xml) => xml.replace(/<[^>]*>/g, (tag) => tag.replace(/="([^"']*)"/g, "='$1'")),
  defaultData: (xml) =>
    xml.replace(`xmlns="${ATOM}"`, `xmlns:a="${ATOM}"`).replace(`xmlns:d="${D}"`, `xmlns="${D}"`)
      .replace(ATOM_TAG, '<$1a:$2$3')
      .replaceAll('<d:', '<').replaceAll('</d:', '</'),
};

describe('Atom feed scanner: the feeds servers write', () => {
  it('reads the golden feed of clients (m:count, next link, deferred links) as the general reader does', () => {
    const xml = golden('clients-feed.xml');
    expect(expectNoDifferentAnswer(xml)).toBeDefined();
    expect(scanInPieces(xml)).toBeDefined();
  });

  it('accepts every feed of the writer, in the styles of other servers, and answers the same', () => {
    fc.assert(
      fc.property(fc.array(client, { maxLength: 5 }), feedOptions, fc.constantFrom(...Object.keys(styles)), (records, options, style) => {
        const xml = (styles[style] as (xml: string) => string)(written(records, options));
        const scanned = expectNoDifferentAnswer(xml);
        expect(scanned, `${style}: ${xml.slice(0, 400)}`).toBeDefined();
        expect(scanInPieces(xml), `${style}, in pieces`).toStrictEqual(scanned);
        expect(scanned?.entries).toHaveLength(records.length);
      }),
      { numRuns: 300 },
    );
  });

  it('reads deferred navigation links, m:count and the next link', () => {
    const xml = `<feed xmlns="${ATOM}" xmlns:m="${M}" xmlns:d="${D}"><m:count>12</m:count><entry m:etag="W/&quot;1&quot;">
      <id>${ROOT}Projects(1)</id><link rel="edit" href="Projects(1)"/><link rel="${RELATED}Client" href="Projects(1)/Client"/>
      <content type="application/xml"><m:properties><d:ID m:type="Edm.Int32">1</d:ID><d:Name>Web&#x20;site</d:Name></m:properties></content>
      </entry><link rel="next" href="${ROOT}Projects?$skiptoken=1"/></feed>`;
    const projects = setOf(timeTracking, 'Projects');
    expect(expectNoDifferentAnswer(xml, projects)).toStrictEqual({
      entries: [{ properties: { ID: 1, Name: 'Web site' }, id: `${ROOT}Projects(1)`, editLink: 'Projects(1)', etag: 'W/"1"', navigation: { Client: { href: 'Projects(1)/Client' } } }],
      count: 12,
      next: `${ROOT}Projects?$skiptoken=1`,
    });
  });
});

describe('Atom feed scanner: what it leaves to the general reader', () => {
  const record: EdmRecord = { ID: 1, Name: 'A', Comment: null, Active: true, AssignedToCurrentUser: false, Custom1: null, Custom2: null, Custom3: null, Custom4: null, Custom5: null, LastChangeTime: new Date(0), LastChangeAuthor: 1 };
  const page = written([record], { etags: false });
  // The second entry's properties are read as the first wrote them, where it writes them so.
  const pair = written([record, { ...record, ID: 2, Name: 'B' }], { etags: false });
  const inSecond = (...edits: [string, string][]) => {
    const at = pair.lastIndexOf('<entry>');
    return pair.slice(0, at) + edits.reduce((entry, [from, to]) => entry.replace(from, to), pair.slice(at));
  };
  const cases: Record<string, string> = {
    'a comment': page.replace('<entry>', '<entry><!-- x -->'),
    'CDATA': page.replace('>A</d:Name>', '><![CDATA[A]]></d:Name>'),
    'a namespace declared inside': page.replace('<entry>', `<entry xmlns:q="${D}">`),
    'a non-ASCII name': page.replace('<title', '<tïtle').replace('</title>', '</tïtle>'),
    'an inline expansion': page.replace('<content', `<link rel="${RELATED}Projects" href="x"><m:inline/></link><content`),
    'an unknown property': page.replace('<d:Name ', '<d:Nom>x</d:Nom><d:Name '),
    'a wrong entity type': page.replace('term="Service.Client"', 'term="Service.Project"'),
    'a mismatched end tag': page.replace('</d:Name>', '</d:Nam>'),
    'a duplicate attribute': page.replace('<entry>', '<entry m:etag="1" m:etag="2">'),
    'an unbound prefix': page.replace('<d:Name m:type="Edm.String">A</d:Name>', '<q:Name>A</q:Name>'),
    'a bad count': page.replace('<entry>', '<m:count>-1</m:count><entry>'),
    'text after the feed': `${page}x`,
    'a property given twice in a later entry, the second time as the first entry wrote it':
      inSecond(['<d:ID m:type="Edm.Int32">2</d:ID>', '<d:Name m:type="Edm.String">C</d:Name>']),
    'a mismatched end tag in a later entry': inSecond(['B</d:Name>', 'B</d:Nam>']),
    // What follows is written as the first entry wrote it after its ID, but closes another element.
    'a property of a later entry ended by the end tag of another':
      inSecond(['<d:ID m:type="Edm.Int32">2</d:ID>', '<d:Comment m:type="Edm.String">x</d:ID>'], ['<d:Comment m:type="Edm.String" m:null="true"/>', '']),
    'an element inside a property of a later entry': inSecond(['>B</d:Name>', '>B<d:x/></d:Name>']),
    'markup after the feed': `${page} <x/>`,
    'a character XML forbids in text': page.replace('>A</d:Name>', '>A\u0001</d:Name>'),
    'a character XML forbids in an attribute value': page.replace('term="Service.Client"', 'term="Service.Client\uffff"'),
    'a character XML forbids in the XML declaration': page.replace('?>', '\u000b?>'),
    'a lone surrogate in text': page.replace('>A</d:Name>', '>\ud800A</d:Name>'),
    'a lone surrogate in an attribute value': page.replace('scheme="', 'scheme="\udc00'),
  };
  for (const [name, xml] of Object.entries(cases)) {
    it(`declines ${name}, and readAtomFeed still answers as the general reader does`, () => {
      expect(xml).not.toBe(page);
      expect(scan(xml)).toBeUndefined();
      if (hasUtf8(xml)) for (const pieceBytes of [1, 7, 61]) expect(scanInPieces(xml, clients, pieceBytes), `pieces of ${pieceBytes} bytes`).toBeUndefined();
      const tree = treeRead(xml);
      if (tree instanceof Error) expect(() => readAtomFeed(xml, timeTracking, clients)).toThrow(tree.message);
      else expect(readAtomFeed(xml, timeTracking, clients)).toStrictEqual(tree);
    });
  }

  it('never accepts a broken feed the general reader refuses, nor reads one differently', () => {
    const base = written([
      { ID: 7, Name: 'Müller & Co <GmbH>', Comment: 'a\nb', Active: false, AssignedToCurrentUser: true, Custom1: 'x', Custom2: null, Custom3: null, Custom4: null, Custom5: null, LastChangeTime: new Date(Date.UTC(2026, 1, 28, 12)), LastChangeAuthor: 3 },
      { ID: 8, Name: '', Comment: null, Active: true, AssignedToCurrentUser: false, Custom1: null, Custom2: null, Custom3: null, Custom4: null, Custom5: null, LastChangeTime: new Date(0), LastChangeAuthor: 0 },
    ], { count: 2, next: `${ROOT}Clients?$skiptoken=8`, etags: true });
    const piece = fc.constantFrom('<', '>', '/', '"', "'", '=', ':', '&', ';', ' ', 'x', 'd:', 'm:', '</d:Name>', '<entry>', '&amp;', '&#0;', 'xmlns:d="x"', '\u0001', '\uffff', '\ud800', '\r', '\u000b');
    const edit = fc.oneof(
      fc.record({ at: fc.nat(), insert: piece, remove: fc.constant(0) }),
      fc.record({ at: fc.nat(), insert: fc.constant(''), remove: fc.integer({ min: 1, max: 12 }) }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...Object.values(styles)), fc.array(edit, { minLength: 1, maxLength: 3 }), (style, edits) => {
        let xml = style(base);
        for (const { at, insert, remove } of edits) {
          const i = at % (xml.length + 1);
          xml = xml.slice(0, i) + insert + xml.slice(i + remove);
        }
        expectNoDifferentAnswer(xml);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a feed of another entity type (time entries) by the same rules', () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?><feed xmlns="${ATOM}" xmlns:m="${M}" xmlns:d="${D}"><entry><content type="application/xml"><m:properties>
      <d:ID m:type="Edm.Int32">5</d:ID><d:StartTime m:type="Edm.DateTime">2026-11-19T07:52:00.000</d:StartTime><d:EndTime m:type="Edm.DateTime" m:null="true"/>
      <d:RevenueTotal m:type="Edm.Decimal">118.750</d:RevenueTotal><d:Billable m:type="Edm.Boolean">1</d:Billable></m:properties></content></entry></feed>`;
    expect(expectNoDifferentAnswer(xml, timeEntries)?.entries[0]?.properties).toStrictEqual({
      ID: 5, StartTime: new Date(Date.UTC(2026, 10, 19, 7, 52)), EndTime: null, RevenueTotal: '118.75', Billable: true,
    });
  });
});
