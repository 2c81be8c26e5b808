// Atom (OData V2) reader for entries and feeds written by any V2 server (ours, Olingo, SAP
// Gateway, WCF Data Services) and for client create/update payloads. Elements are matched by
// namespace URI and local name, never by prefix, so `<a:entry xmlns:a=...>` reads like
// `<entry xmlns=...>`. The minimal payload of a create (service-api.md §4.2 rule 2) is enough:
// `<entry><content type="application/xml"><m:properties><d:Name>..</d:Name>..`.
//
// Properties become typed values by the model's property types (same EdmRecord values as the
// JSON reader); unknown properties and values not valid for their type are PayloadErrors naming
// the property. Feed and entry metadata that clients act on is kept: id, edit link, etag,
// navigation links (href and m:inline content), m:count, the next link. hrefs are returned as
// written (relative to xml:base when the server wrote them relative).
//
// Feeds of the usual shape are read without a tree by atom-feed-scanner.ts, which leaves every
// other document, and every wrong one, to the reader here.
import type { EdmRecord } from './edm.js';
import type { AtomEntry, AtomFeed, AtomNavigationLink } from './atom-model.js';
import { atomEntry, atomFeed, countOf } from './atom-model.js';
import { PayloadError } from './errors.js';
import type { ModelIndex } from './model-index.js';
import { perEntitySet } from './model-index.js';
import type { EntitySet } from './model.js';
import { NS_ATOM, NS_METADATA, NS_RELATED, NS_SCHEME } from './namespaces.js';
import type { XmlElement, XmlParseOptions } from './xml-parser.js';
import { attributeOf, parseXml } from './xml-parser.js';
import { xmlTextPieces } from './xml-source.js';
import type { EntryTemplate } from './atom-entry-template.js';
import { scanAtomFeed } from './atom-feed-scanner.js';
import type { XmlElementReader } from './xml-values.js';
import { readProperties } from './xml-properties.js';
import { xmlElementReader } from './xml-values.js';

export type { AtomEntry, AtomFeed, AtomNavigationLink } from './atom-model.js';

interface CompiledNavigation {
  readonly toMany: boolean;
  readonly target: () => CompiledSet;
}

/** An entity set's readers, compiled once per model (the scanner reads with them too). */
export interface CompiledSet {
  readonly typeName: string;
  readonly fields: ReadonlyMap<string, XmlElementReader>;
  readonly navigations: ReadonlyMap<string, CompiledNavigation>;
  /**
   * The scanner's entry templates, kept from page to page by the namespaces the feed declares
   * (a template's prefixes mean what they meant where it was learned).
   */
  readonly entryTemplates: Map<string, EntryTemplate[]>;
}

export const compileSet = perEntitySet(compileEntitySet);

function compileEntitySet(index: ModelIndex, set: EntitySet): CompiledSet {
  const type = index.typeOfSet(set);
  return {
    typeName: type.fullName,
    fields: new Map(type.properties.map((p) => [p.name, xmlElementReader(index, p.type, p.name)])),
    navigations: new Map(
      type.navigationProperties.map((nav) => {
        let target: CompiledSet | undefined;
        return [
          nav.name,
          {
            toMany: nav.multiplicity === '*',
            target: () => (target ??= compileSet(index, index.navigationTarget(set, nav))),
          },
        ];
      }),
    ),
    entryTemplates: new Map(),
  };
}

function isAtom(element: XmlElement, local: string): boolean {
  return element.local === local && element.ns === NS_ATOM;
}

function expectRoot(root: XmlElement, local: string): void {
  if (!isAtom(root, local)) {
    throw new PayloadError(`expected an Atom ${local}, found {${root.ns}}${root.local.slice(0, 60)}`);
  }
}

function readInline(link: XmlElement, nav: CompiledNavigation, name: string): AtomEntry | AtomFeed | null | undefined {
  let inline: XmlElement | undefined;
  for (const child of link.children) {
    if (child.local === 'inline' && child.ns === NS_METADATA) inline = child;
  }
  if (!inline) return undefined;
  const [content, extra] = inline.children;
  if (!content) return null;
  if (extra) throw new PayloadError(`m:inline of ${name} holds more than one element`, name);
  if (isAtom(content, 'feed')) {
    if (!nav.toMany) throw new PayloadError(`navigation ${name} leads to one entry, but a feed is inline`, name);
    return readFeedElement(content, nav.target());
  }
  if (isAtom(content, 'entry')) {
    if (nav.toMany) throw new PayloadError(`navigation ${name} leads to many entries, but one entry is inline`, name);
    return readEntryElement(content, nav.target());
  }
  throw new PayloadError(`m:inline of ${name} holds neither an entry nor a feed`, name);
}

function readEntryElement(entry: XmlElement, c: CompiledSet): AtomEntry {
  let properties: EdmRecord | undefined;
  let id: string | undefined;
  let editLink: string | undefined;
  const navigation: Record<string, AtomNavigationLink> = {};
  const readPropertiesOnce = (container: XmlElement): void => {
    if (properties) throw new PayloadError('the entry holds m:properties more than once');
    properties = readProperties(container, c.fields);
  };
  for (const child of entry.children) {
    if (child.ns === NS_METADATA && child.local === 'properties') {
      readPropertiesOnce(child); // media link entry: m:properties beside an empty content
      continue;
    }
    if (child.ns !== NS_ATOM) continue;
    switch (child.local) {
      case 'id':
        id = child.text.trim();
        break;
      case 'category': {
        const term = attributeOf(child, '', 'term');
        if (attributeOf(child, '', 'scheme') === NS_SCHEME && term !== c.typeName) {
          throw new PayloadError(`entry of type ${String(term).slice(0, 60)} where ${c.typeName} is expected`);
        }
        break;
      }
      case 'link': {
        const rel = attributeOf(child, '', 'rel') ?? '';
        const href = attributeOf(child, '', 'href');
        if (rel === 'edit') editLink = href;
        else if (rel.startsWith(NS_RELATED)) {
          const name = rel.slice(NS_RELATED.length);
          const nav = c.navigations.get(name);
          if (!nav) throw new PayloadError(`unknown navigation property ${name.slice(0, 60)}`, name);
          if (Object.hasOwn(navigation, name)) throw new PayloadError(`navigation ${name} given twice`, name);
          const inline = readInline(child, nav, name);
          navigation[name] = inline === undefined ? { href } : { href, inline };
        }
        break;
      }
      case 'content':
        for (const inner of child.children) {
          if (inner.ns === NS_METADATA && inner.local === 'properties') readPropertiesOnce(inner);
          else throw new PayloadError(`unexpected element {${inner.ns}}${inner.local.slice(0, 60)} in content`);
        }
        break;
      default:
        break; // title, updated, author, summary, ...: syndication metadata we do not need
    }
  }
  return atomEntry(properties, id, editLink, attributeOf(entry, NS_METADATA, 'etag'), navigation);
}

function readFeedElement(feed: XmlElement, c: CompiledSet): AtomFeed {
  const entries: AtomEntry[] = [];
  let id: string | undefined;
  let count: number | undefined;
  let next: string | undefined;
  for (const child of feed.children) {
    if (child.ns === NS_METADATA && child.local === 'count') {
      const text = child.text.trim();
      count = countOf(text);
      if (count === undefined) throw new PayloadError(`m:count '${text.slice(0, 20)}' is not a count`);
    } else if (child.ns === NS_ATOM) {
      if (child.local === 'entry') entries.push(readEntryElement(child, c));
      else if (child.local === 'id') id = child.text.trim();
      else if (child.local === 'link' && attributeOf(child, '', 'rel') === 'next') next = attributeOf(child, '', 'href');
    }
  }
  return atomFeed(entries, id, count, next);
}

/** Reads an Atom `<entry>` document of `set`'s entity type. */
export function readAtomEntry(
  input: string | Uint8Array,
  index: ModelIndex,
  set: EntitySet,
  options?: XmlParseOptions,
): AtomEntry {
  const root = parseXml(input, options);
  expectRoot(root, 'entry');
  return readEntryElement(root, compileSet(index, set));
}

/** Reads an Atom `<feed>` document of `set`'s entity type. */
export function readAtomFeed(
  input: string | Uint8Array,
  index: ModelIndex,
  set: EntitySet,
  options?: XmlParseOptions,
): AtomFeed {
  const c = compileSet(index, set);
  // The scanner reads the usual shape of a feed fast and declines anything else; a depth limit
  // of the caller's own is the general reader's to enforce.
  let source = input;
  if (options?.maxDepth === undefined) {
    const pieces = xmlTextPieces(input);
    const scanned = scanAtomFeed(pieces, c);
    if (scanned !== undefined) return scanned;
    if (pieces.length === 1) source = pieces[0] as string; // parseXml checks its characters
  }
  const root = parseXml(source, options);
  expectRoot(root, 'feed');
  return readFeedElement(root, c);
}
