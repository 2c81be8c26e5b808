// Atom (and plain XML for function results) with an upstream: odata/'s Atom reader for feeds and
// entries, its property-document reader for complex and primitive results, and the minimal
// create/update entry of service-api.md §4.2 rule 2 for bodies.
import type { AtomEntry, AtomFeed } from '../../odata/atom-reader.js';
import { readAtomEntry, readAtomFeed } from '../../odata/atom-reader.js';
import type { EdmRecord } from '../../odata/edm.js';
import { PayloadError } from '../../odata/errors.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntitySet, FunctionImport } from '../../odata/model.js';
import { NS_ATOM, NS_DATA, NS_METADATA, NS_SCHEME } from '../../odata/namespaces.js';
import { readXmlProperty } from '../../odata/xml-documents.js';
import { parseXml } from '../../odata/xml-parser.js';
import type { XmlElementWriter } from '../../odata/xml-values.js';
import { xmlElementReader, xmlElementWriter } from '../../odata/xml-values.js';
import type { FunctionValue, ODataCodec, UpstreamEntry, UpstreamFeed } from './odata-codec.js';

const COLLECTION = /^Collection\((.+)\)$/;
const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

function toEntry(entry: AtomEntry): UpstreamEntry {
  const expanded: Record<string, UpstreamEntry | null | readonly UpstreamEntry[]> = {};
  for (const [name, link] of Object.entries(entry.navigation)) {
    const inline = link.inline;
    if (inline === undefined) continue;
    expanded[name] = inline === null ? null : 'entries' in inline ? inline.entries.map(toEntry) : toEntry(inline);
  }
  return { record: entry.properties, ...(entry.etag === undefined ? {} : { etag: entry.etag }), expanded };
}

function toFeed(feed: AtomFeed): UpstreamFeed {
  return {
    entries: feed.entries.map(toEntry),
    ...(feed.count === undefined ? {} : { count: feed.count }),
    ...(feed.next === undefined ? {} : { next: feed.next }),
  };
}

interface EntityBodyParts {
  readonly head: string;
  readonly writers: ReadonlyMap<string, XmlElementWriter>;
}

export function createAtomCodec(index: ModelIndex): ODataCodec {
  const bodies = new Map<EntitySet, EntityBodyParts>();
  for (const set of index.model.entitySets) {
    const type = index.typeOfSet(set);
    bodies.set(set, {
      head:
        `${XML_DECLARATION}<entry xmlns="${NS_ATOM}" xmlns:m="${NS_METADATA}" xmlns:d="${NS_DATA}">` +
        `<category term="${type.fullName}" scheme="${NS_SCHEME}"/><content type="application/xml"><m:properties>`,
      writers: new Map(type.properties.map((p) => [p.name, xmlElementWriter(index, p, 'd:')])),
    });
  }

  return {
    // Function results of complex or primitive type come as plain XML property documents.
    accept: 'application/atom+xml,application/xml;q=0.9',
    contentType: 'application/atom+xml',
    feed: (set, body) => toFeed(readAtomFeed(body, index, set)),
    entry: (set, body) => toEntry(readAtomEntry(body, index, set)),
    functionValue(fn: FunctionImport, body: Buffer): FunctionValue {
      const returnType = fn.returnType;
      if (returnType === undefined) return null;
      const item = COLLECTION.exec(returnType)?.[1];
      if (item === undefined) return readXmlProperty(body, index, { name: fn.name, type: returnType, precision: undefined });
      const root = parseXml(body);
      if (root.ns !== NS_DATA || root.local !== fn.name) throw new PayloadError(`expected the collection ${fn.name}`);
      const read = xmlElementReader(index, item, fn.name);
      return root.children.filter((child) => child.ns === NS_DATA && child.local === 'element').map((child) => read(child));
    },
    entityBody(set, record: EdmRecord): string {
      const parts = bodies.get(set) as EntityBodyParts;
      let out = parts.head;
      for (const [name, value] of Object.entries(record)) {
        const write = parts.writers.get(name);
        if (write === undefined) throw new TypeError(`${name} is not a property of ${set.name}`);
        out += write(value);
      }
      return `${out}</m:properties></content></entry>`;
    },
  };
}
