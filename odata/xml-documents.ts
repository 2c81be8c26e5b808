// The small XML documents of OData V2 besides Atom, both directions:
//   single property (GET Set(1)/Prop, function import results of a primitive or complex type)
//     <Name xmlns="…/dataservices" xmlns:m="…/metadata" m:type="Edm.String">Website</Name>
//   $links     <links xmlns="…/dataservices"><uri>http://…/Clients(3)</uri>…</links>
//   one link   <uri xmlns="…/dataservices">http://…/Clients(3)</uri>
//   error      <error xmlns="…/metadata"><code>…</code><message xml:lang="de-DE">…</message></error>
// Shapes as Olingo V2 writes them (XmlPropertyEntityProducer, XmlLinksEntityProducer,
// XmlLinkEntityProducer, XmlErrorDocumentProducer), with one addition: simple values in a
// property document carry m:type too (service-api.md §4.2 rule 3; Olingo leaves it out there).
import type { EdmRecord, EdmValue } from './edm.js';
import { PayloadError } from './errors.js';
import type { ModelIndex } from './model-index.js';
import type { Property } from './model.js';
import { NS_DATA, NS_METADATA, NS_XML } from './namespaces.js';
import { XML_DECLARATION } from './atom-writer.js';
import { escapeXmlAttribute, escapeXmlMessage, escapeXmlText } from './xml-escape.js';
import type { XmlElement, XmlParseOptions } from './xml-parser.js';
import { attributeOf, parseXml } from './xml-parser.js';
import { xmlElementReader, xmlElementWriter } from './xml-values.js';

/** What a property document is about: a property, or a function import's name and return type. */
export type PropertyShape = Pick<Property, 'name' | 'type' | 'precision'>;

const PROPERTY_NAMESPACES = ` xmlns="${NS_DATA}" xmlns:m="${NS_METADATA}"`;

/**
 * A writer of single-property documents for one property, compiled once. Nested elements of a
 * complex value are unprefixed: `d` is the default namespace of the document.
 */
export function createXmlPropertyWriter(
  index: ModelIndex,
  property: PropertyShape,
): (value: EdmValue | EdmRecord | undefined) => string {
  const write = xmlElementWriter(index, property, '');
  const head = `<${property.name}`;
  return (value) => {
    const element = write(value);
    // Namespace declarations go first on the root element, before m:type and m:null.
    return XML_DECLARATION + head + PROPERTY_NAMESPACES + element.slice(head.length);
  };
}

export function writeXmlProperty(
  index: ModelIndex,
  property: PropertyShape,
  value: EdmValue | EdmRecord | undefined,
): string {
  return createXmlPropertyWriter(index, property)(value);
}

/** Reads a single-property document; the root must be the property's element. */
export function readXmlProperty(
  input: string | Uint8Array,
  index: ModelIndex,
  property: PropertyShape,
  options?: XmlParseOptions,
): EdmValue | EdmRecord {
  const root = parseXml(input, options);
  if (root.ns !== NS_DATA || root.local !== property.name) {
    throw new PayloadError(`expected the property ${property.name}, found {${root.ns}}${root.local.slice(0, 60)}`);
  }
  return xmlElementReader(index, property.type, property.name)(root);
}

/**
 * `$links` of a to-many navigation: absolute URIs of the related entries, and V2's `<next>`
 * with the address of the next page when the server pages the links.
 */
export function writeXmlLinks(uris: readonly string[], count?: number, next?: string): string {
  let out = `${XML_DECLARATION}<links xmlns="${NS_DATA}">`;
  if (count !== undefined) out += `<m:count xmlns:m="${NS_METADATA}">${count}</m:count>`;
  for (const uri of uris) out += `<uri>${escapeXmlText(uri)}</uri>`;
  if (next !== undefined) out += `<next>${escapeXmlText(next)}</next>`;
  return uris.length === 0 && count === undefined && next === undefined ? `${XML_DECLARATION}<links xmlns="${NS_DATA}"/>` : `${out}</links>`;
}

/** `$links` of a to-one navigation (and the body of a link create/update request). */
export function writeXmlLink(uri: string): string {
  return `${XML_DECLARATION}<uri xmlns="${NS_DATA}">${escapeXmlText(uri)}</uri>`;
}

function uriText(element: XmlElement): string {
  if (element.children.length > 0) throw new PayloadError('a uri element holds child elements');
  const uri = element.text.trim();
  if (!uri) throw new PayloadError('empty uri element');
  return uri;
}

/** The URIs of a `<links>` or a single `<uri>` document, and `m:count` and `<next>` when present. */
export function readXmlLinks(input: string | Uint8Array, options?: XmlParseOptions): { uris: string[]; count?: number; next?: string } {
  const root = parseXml(input, options);
  if (root.ns === NS_DATA && root.local === 'uri') return { uris: [uriText(root)] };
  if (root.ns !== NS_DATA || root.local !== 'links') {
    throw new PayloadError(`expected links or uri, found {${root.ns}}${root.local.slice(0, 60)}`);
  }
  const uris: string[] = [];
  let count: number | undefined;
  let next: string | undefined;
  for (const child of root.children) {
    if (child.ns === NS_DATA && child.local === 'uri') uris.push(uriText(child));
    else if (child.ns === NS_DATA && child.local === 'next') next = uriText(child);
    else if (child.ns === NS_METADATA && child.local === 'count' && /^\d{1,15}$/.test(child.text.trim())) {
      count = Number(child.text.trim());
    } else throw new PayloadError(`unexpected element {${child.ns}}${child.local.slice(0, 60)} in links`);
  }
  return { uris, ...(count === undefined ? {} : { count }), ...(next === undefined ? {} : { next }) };
}

export interface XmlError {
  /** Empty when the server gave no code (the element is always there). */
  readonly code: string;
  readonly message: string;
  /** `xml:lang` of the message (`de-DE`); empty when not given. */
  readonly lang: string;
  /** Text of `innererror`, when present. */
  readonly innerError?: string;
}

/** `<error>` in the metadata namespace, as Olingo writes it (code element always present). */
export function writeXmlError(error: XmlError): string {
  const code = error.code ? `<code>${escapeXmlMessage(error.code)}</code>` : '<code/>';
  const lang = escapeXmlAttribute(error.lang);
  const message = error.message
    ? `<message xml:lang="${lang}">${escapeXmlMessage(error.message)}</message>`
    : `<message xml:lang="${lang}"/>`;
  const inner = error.innerError === undefined ? '' : `<innererror>${escapeXmlMessage(error.innerError)}</innererror>`;
  return `${XML_DECLARATION}<error xmlns="${NS_METADATA}">${code}${message}${inner}</error>`;
}

/** Reads an error document of any V2 server (`<error>` or `<m:error>`, metadata namespace). */
export function readXmlError(input: string | Uint8Array, options?: XmlParseOptions): XmlError {
  const root = parseXml(input, options);
  if (root.ns !== NS_METADATA || root.local !== 'error') {
    throw new PayloadError(`expected an OData error, found {${root.ns}}${root.local.slice(0, 60)}`);
  }
  let code = '';
  let message = '';
  let lang = '';
  let innerError: string | undefined;
  for (const child of root.children) {
    if (child.ns !== NS_METADATA) continue;
    if (child.local === 'code') code = child.text;
    else if (child.local === 'message') {
      message = child.text;
      lang = attributeOf(child, NS_XML, 'lang') ?? '';
    } else if (child.local === 'innererror') innerError = child.text;
  }
  return innerError === undefined ? { code, message, lang } : { code, message, lang, innerError };
}
