import { describe, expect, it } from 'vitest';
import { readAtomEntry, readAtomFeed } from '../../odata/atom-reader.js';
import { PayloadError } from '../../odata/errors.js';
import { readXmlError, readXmlLinks } from '../../odata/xml-documents.js';
import { parseXml } from '../../odata/xml-parser.js';
import { setOf, timeTracking } from './fixtures/atom/models.js';

const projects = setOf(timeTracking, 'Projects');
const ATOM = 'http://www.w3.org/2005/Atom';
const D = 'http://schemas.microsoft.com/ado/2007/08/dataservices';
const M = 'http://schemas.microsoft.com/ado/2007/08/dataservices/metadata';

function refused(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(PayloadError);
    return (error as PayloadError).message;
  }
  throw new Error('expected the input to be refused');
}

describe('hostile XML is refused with a PayloadError', () => {
  it('XXE: an external entity in a DOCTYPE', () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE entry [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
      <entry xmlns="${ATOM}" xmlns:d="${D}" xmlns:m="${M}"><content><m:properties><d:Name>&xxe;</d:Name></m:properties></content></entry>`;
    expect(refused(() => readAtomEntry(xml, timeTracking, projects))).toMatch(/DOCTYPE/);
  });

  it('billion laughs', () => {
    let dtd = '<!ENTITY lol0 "lol">';
    for (let i = 1; i < 10; i++) dtd += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
    const xml = `<!DOCTYPE lolz [${dtd}]><feed xmlns="${ATOM}"><title>&lol9;</title></feed>`;
    expect(refused(() => readAtomFeed(xml, timeTracking, projects))).toMatch(/DOCTYPE/);
  });

  it('a DOCTYPE in lower case, a bare ENTITY declaration, an external DTD', () => {
    expect(refused(() => parseXml('<!doctype a><a/>'))).toMatch(/DOCTYPE/);
    expect(refused(() => parseXml('<!ENTITY x "y"><a/>'))).toMatch(/ENTITY/);
    expect(refused(() => parseXml('<!DOCTYPE a SYSTEM "http://evil.example/a.dtd"><a/>'))).toMatch(/DOCTYPE/);
  });

  it('an entity reference that is not one of the five predefined ones', () => {
    expect(refused(() => parseXml('<a>&nbsp;</a>'))).toMatch(/reference &nbsp;/);
    expect(refused(() => parseXml('<a b="&x;"/>'))).toMatch(/reference/);
    expect(refused(() => parseXml('<a>&#0;</a>'))).toMatch(/reference/);
    expect(refused(() => parseXml('<a>&#x110000;</a>'))).toMatch(/reference/);
    expect(refused(() => parseXml('<a>& b</a>'))).toMatch(/reference/);
  });

  it('10 000 levels of nesting (checked before anything deeper is built)', () => {
    const deep = `<entry xmlns="${ATOM}">${'<x>'.repeat(10_000)}${'</x>'.repeat(10_000)}</entry>`;
    expect(refused(() => readAtomEntry(deep, timeTracking, projects))).toMatch(/nested deeper than 100/);
    expect(refused(() => parseXml('<a><a><a><a/></a></a></a>', { maxDepth: 3 }))).toMatch(/deeper than 3/);
  });

  it('invalid UTF-8 bytes and characters XML does not allow', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('<a>'), 0xc3, 0x28, ...new TextEncoder().encode('</a>')]);
    expect(refused(() => parseXml(bytes))).toMatch(/UTF-8/);
    expect(refused(() => parseXml(new Uint8Array([0x3c, 0x61, 0x3e, 0xed, 0xa0, 0x80, 0x3c, 0x2f, 0x61, 0x3e])))).toMatch(/UTF-8/);
    expect(refused(() => parseXml('<a>\u0001</a>'))).toMatch(/character/);
    expect(refused(() => parseXml('<a>\ud800</a>'))).toMatch(/character/);
    expect(refused(() => parseXml('<a>x\udc00</a>'))).toMatch(/character/);
    expect(refused(() => parseXml('<a>\ufffe</a>'))).toMatch(/character/);
    expect(parseXml('<a>\ud83d\ude00</a>').text).toBe('😀');
  });

  it('__proto__ and constructor as element names do not reach any object prototype', () => {
    const xml = `<entry xmlns="${ATOM}" xmlns:d="${D}" xmlns:m="${M}"><content><m:properties><d:constructor>x</d:constructor></m:properties></content></entry>`;
    expect(refused(() => readAtomEntry(xml, timeTracking, projects))).toBe('unknown property constructor');
    const root = parseXml('<__proto__ __proto__="1"><constructor/></__proto__>');
    expect(root.local).toBe('__proto__');
    expect(root.attributes).toEqual([{ ns: '', local: '__proto__', value: '1' }]);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it('documents that are not well-formed', () => {
    const cases = [
      '<a><b></a></b>',
      '<a>',
      '<a></a><b/>',
      'text<a/>',
      '<a/>text',
      '<a x="1" x="2"/>',
      '<a x=1/>',
      '<a x="1"y="2"/>',
      '<a x="<"/>',
      '<p:a/>',
      '<a xmlns:p=""/>',
      '<a><![CDATA[x</a>',
      '<a><!-- x</a>',
      '<1a/>',
      '',
      '<a></b>',
      '<ab></a>',
      '<a></ab>',
      '<a></a x>',
      '<a><b></b></a></a>',
    ];
    for (const xml of cases) expect(() => parseXml(xml), xml).toThrow(PayloadError);
  });

  it('never throws anything but a PayloadError on random input', () => {
    const pieces = ['<', '>', '/', 'a', 'd:x', ' ', '"', "'", '=', '&', ';', '&amp;', '<!--', '-->', '<![CDATA[', ']]>', '<?', '?>', 'xmlns:d="u"', '\n', '😀', '#x41'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 5000; i++) {
      let xml = '';
      const length = next() % 30;
      for (let j = 0; j < length; j++) xml += pieces[next() % pieces.length];
      for (const read of [() => parseXml(xml), () => readXmlError(xml), () => readXmlLinks(xml)]) {
        try {
          read();
        } catch (error) {
          expect(error, xml).toBeInstanceOf(PayloadError);
        }
      }
    }
  });
});

describe('the XML parser keeps what conforming parsers keep', () => {
  it('decodes references, normalises line ends and attribute white space', () => {
    const root = parseXml('<a b="x&#xA;y\tz&quot;">1\r\n2\r3&#xD;&#128512;&lt;&gt;&amp;&apos;&quot;<![CDATA[<&\r\n>]]></a>');
    expect(root.attributes[0]?.value).toBe('x\ny z"');
    expect(root.text).toBe('1\n2\n3\r😀<>&\'"<&\n>');
  });

  it('accepts white space before the end of an end tag', () => {
    expect(parseXml('<a><b>1</b \n></a\t>').children[0]?.text).toBe('1');
  });

  it('resolves default and prefixed namespaces per scope, and xml:', () => {
    const root = parseXml('<a xmlns="urn:1" xmlns:p="urn:2"><p:b xml:lang="de"/><c xmlns=""/><p:d xmlns:p="urn:3"/></a>');
    expect(root.ns).toBe('urn:1');
    expect(root.children.map((c) => [c.ns, c.local])).toEqual([['urn:2', 'b'], ['', 'c'], ['urn:3', 'd']]);
    expect(root.children[0]?.attributes).toEqual([{ ns: 'http://www.w3.org/XML/1998/namespace', local: 'lang', value: 'de' }]);
  });

  it('reads bytes with a UTF-8 byte order mark', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('<a>ü</a>')]);
    expect(parseXml(bytes).text).toBe('ü');
  });
});
