// A small, namespace-resolved view of an XML document, built on fast-xml-parser.
// DTDs are refused before parsing: EDMX never needs them, and entity declarations are the
// classic way to make an XML parser expand or fetch what it should not.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { EdmxError } from './errors.js';

export const XMLNS_URI = 'http://www.w3.org/2000/xmlns/';
const XML_URI = 'http://www.w3.org/XML/1998/namespace';

export interface XmlAttribute {
  /** As written, with its prefix (`sap:creatable`). */
  readonly qname: string;
  readonly prefix: string | undefined;
  readonly local: string;
  /** Namespace URI; undefined for unprefixed attributes (they belong to their element). */
  readonly ns: string | undefined;
  readonly value: string;
}

export interface XmlElement {
  readonly qname: string;
  readonly local: string;
  readonly ns: string | undefined;
  /** In document order. */
  readonly attributes: readonly XmlAttribute[];
  readonly children: readonly XmlElement[];
  /** Prefix -> namespace URI of every declaration in scope here (`''` is the default namespace). */
  readonly scope: ReadonlyMap<string, string>;
}

type Ordered = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  processEntities: false,
  parseAttributeValue: false,
  parseTagValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: '#comment',
});

const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Entities are not expanded by the parser (on purpose); decode the predefined ones here. */
function decodeText(value: string, where: string): string {
  return value.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g, (_, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number.parseInt(ref.slice(1), 10));
    const text = PREDEFINED[ref];
    if (text === undefined) throw new EdmxError('EDMX_DOCTYPE', `${where}: undeclared entity &${ref};`);
    return text;
  });
}

function splitQName(qname: string): [string | undefined, string] {
  const colon = qname.indexOf(':');
  return colon < 0 ? [undefined, qname] : [qname.slice(0, colon), qname.slice(colon + 1)];
}

function resolve(prefix: string, scope: ReadonlyMap<string, string>, qname: string): string {
  if (prefix === 'xml') return XML_URI;
  const ns = scope.get(prefix);
  if (ns === undefined) throw new EdmxError('EDMX_NAMESPACE', `<${qname}>: namespace prefix "${prefix}" is not declared`);
  return ns;
}

function buildElement(node: Ordered, parentScope: ReadonlyMap<string, string>): XmlElement | undefined {
  const qname = Object.keys(node).find((key) => key !== ':@');
  if (qname === undefined || qname.startsWith('#') || qname.startsWith('?')) return undefined;
  const rawAttributes = (node[':@'] ?? {}) as Record<string, string>;
  let scope = parentScope;
  for (const [name, value] of Object.entries(rawAttributes)) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) {
      if (scope === parentScope) scope = new Map(parentScope);
      (scope as Map<string, string>).set(name === 'xmlns' ? '' : name.slice(6), decodeText(value, `<${qname}>`));
    }
  }
  const attributes: XmlAttribute[] = Object.entries(rawAttributes).map(([name, raw]) => {
    const [prefix, local] = splitQName(name);
    const value = decodeText(raw, `<${qname}> attribute ${name}`);
    if (name === 'xmlns' || prefix === 'xmlns') return { qname: name, prefix, local, ns: XMLNS_URI, value };
    return { qname: name, prefix, local, ns: prefix === undefined ? undefined : resolve(prefix, scope, qname), value };
  });
  const [prefix, local] = splitQName(qname);
  const ns = prefix === undefined ? scope.get('') : resolve(prefix, scope, qname);
  const children: XmlElement[] = [];
  for (const child of (node[qname] ?? []) as Ordered[]) {
    const element = buildElement(child, scope);
    if (element) children.push(element);
  }
  return { qname, local, ns, attributes, children, scope };
}

/** Parses an XML document into its root element; refuses DTDs and malformed XML. */
export function parseXml(xml: string): XmlElement {
  if (/<!DOCTYPE/i.test(xml)) throw new EdmxError('EDMX_DOCTYPE', 'DOCTYPE declarations are not allowed in EDMX');
  if (/<!ENTITY/i.test(xml)) throw new EdmxError('EDMX_DOCTYPE', 'ENTITY declarations are not allowed in EDMX');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    const at = col === undefined ? `line ${line}` : `line ${line}, column ${col}`;
    throw new EdmxError('EDMX_NOT_XML', `not well-formed XML at ${at}: ${msg}`);
  }
  const roots = (parser.parse(xml) as Ordered[])
    .map((node) => buildElement(node, new Map()))
    .filter((element): element is XmlElement => element !== undefined);
  const [root] = roots;
  if (!root || roots.length > 1) throw new EdmxError('EDMX_NOT_XML', 'not well-formed XML: expected exactly one root element');
  return root;
}
