// A strict, namespace-aware, non-validating XML 1.0 parser for OData payloads, written for
// hostile input: no DTD at all (DOCTYPE and ENTITY declarations are refused, so no external
// entities and no entity expansion), only the five predefined entities and character
// references, a depth limit checked before anything deeper is built, no recursion, and every
// failure a PayloadError. Well-formedness is checked (matching end tags, one root, quoted and
// unique attributes, bound prefixes), which the generic parsers we have do not do.
//
// The result is a small element tree with resolved namespace URIs. Mixed content is not kept
// apart: an element's `text` is all character data directly inside it (OData never mixes).
import { PayloadError } from './errors.js';
import { NS_XML } from './namespaces.js';
import { hasForbiddenChar, xmlSource } from './xml-source.js';

export interface XmlAttribute {
  /** Namespace URI; '' for an unprefixed attribute. */
  readonly ns: string;
  readonly local: string;
  readonly value: string;
}

export interface XmlElement {
  /** Namespace URI; '' when the element is in no namespace. */
  readonly ns: string;
  readonly local: string;
  readonly attributes: readonly XmlAttribute[];
  readonly children: XmlElement[];
  /** Character data directly inside the element (entities decoded, CDATA included). */
  text: string;
}

export interface XmlParseOptions {
  /** Deepest element nesting accepted (root = 1). */
  readonly maxDepth?: number;
}

const DEFAULT_MAX_DEPTH = 100;
const NS_XMLNS = 'http://www.w3.org/2000/xmlns/';

const NAME =
  /^[A-Za-z_\u00c0-\ud7ff\uf900-\ufffd][\w.\-\u00b7\u00c0-\ud7ff\uf900-\ufffd]*(?::[A-Za-z_\u00c0-\ud7ff\uf900-\ufffd][\w.\-\u00b7\u00c0-\ud7ff\uf900-\ufffd]*)?$/;
const WHITESPACE_ONLY = /^[ \t\r\n]*$/;
const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function fail(message: string, at?: number): never {
  throw new PayloadError(at === undefined ? message : `${message} at offset ${at}`, at === undefined ? undefined : String(at));
}

/** Whether XML allows the code point (Char of XML 1.0), as a character reference. */
function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** Replaces entity and character references; `at` is the offset of `raw` for messages. */
function decodeReferences(raw: string, at: number): string {
  let out = '';
  let from = 0;
  for (let amp = raw.indexOf('&'); amp !== -1; amp = raw.indexOf('&', from)) {
    const semi = raw.indexOf(';', amp);
    if (semi === -1) fail('unterminated entity reference', at + amp);
    const ref = raw.slice(amp + 1, semi);
    let char: string | undefined;
    if (ref.charCodeAt(0) === 35 /* # */) {
      const hex = ref.charCodeAt(1) === 120; /* x */
      const digits = ref.slice(hex ? 2 : 1);
      const cp = (hex ? /^[0-9a-fA-F]{1,6}$/ : /^[0-9]{1,7}$/).test(digits) ? parseInt(digits, hex ? 16 : 10) : -1;
      if (isXmlChar(cp)) char = String.fromCodePoint(cp);
    } else char = Object.hasOwn(PREDEFINED, ref) ? PREDEFINED[ref] : undefined;
    if (char === undefined) fail(`unknown or invalid reference &${ref.slice(0, 20)};`, at + amp);
    out += raw.slice(from, amp) + char;
    from = semi + 1;
  }
  return out + raw.slice(from);
}

function normalizeNewlines(raw: string): string {
  return raw.indexOf('\r') === -1 ? raw : raw.replace(/\r\n?/g, '\n');
}

// What character data or an attribute value cannot be taken as written for: `<`, a reference, a
// line end to normalise, a character XML forbids, a surrogate (which may be half of a pair). The
// tag reader reads unchecked text (xml-source.ts), so these checks are all it gets; one search
// for all of them costs what three indexOf did.
// eslint-disable-next-line no-control-regex -- control characters are what XML forbids
const TEXT_WORK = /[\u0000-\u0008\u000b-\u001f<&\ud800-\udfff\ufffe\uffff]/;
// eslint-disable-next-line no-control-regex -- the same, and tabs and line feeds, which become spaces
const ATTRIBUTE_WORK = /[\u0000-\u001f<&\ud800-\udfff\ufffe\uffff]/;

function checkChars(raw: string, at: number): void {
  if (hasForbiddenChar(raw)) fail('a character XML does not allow', at);
}

/** Character data as written between tags, decoded; `at` is its offset for messages. */
export function characterData(raw: string, at: number): string {
  if (!TEXT_WORK.test(raw)) return raw;
  if (raw.indexOf('<') !== -1) fail("'<' in character data", at);
  checkChars(raw, at);
  const text = normalizeNewlines(raw);
  return text.indexOf('&') === -1 ? text : decodeReferences(text, at);
}

/** An attribute value as written between its quotes, normalised and decoded. */
export function attributeValue(raw: string, at: number): string {
  if (!ATTRIBUTE_WORK.test(raw)) return raw;
  if (raw.indexOf('<') !== -1) fail("'<' in an attribute value", at);
  checkChars(raw, at);
  // Literal white space is normalised to spaces; references (&#xA;) keep their character.
  const text = normalizeNewlines(raw).replace(/[\t\n]/g, ' ');
  return text.indexOf('&') === -1 ? text : decodeReferences(text, at);
}

interface Scope {
  readonly parent: Scope | undefined;
  readonly bindings: Map<string, string> | undefined;
}

function lookup(scope: Scope | undefined, prefix: string): string | undefined {
  if (prefix === 'xml') return NS_XML;
  for (let s = scope; s; s = s.parent) {
    const uri = s.bindings?.get(prefix);
    if (uri !== undefined) return uri;
  }
  return prefix === '' ? '' : undefined;
}

/** XML white space (S): space, tab, line feed, carriage return. */
export function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/** A checked name split at its colon, made once per distinct name of a document. */
interface QName {
  readonly prefix: string;
  /** Internalised, so every element of this name shares it, and comparing or keying by it is fast. */
  readonly local: string;
  readonly isNamespaceDeclaration: boolean;
}

/** The engine's own copy of a string, as property keys are kept (one lookup, then shared). */
function internalised(text: string): string {
  return Object.keys({ [text]: 0 })[0] ?? text;
}

// Most elements of an OData payload have no attributes or no children: they share these.
const NO_ATTRIBUTES: readonly XmlAttribute[] = Object.freeze([]);
const NO_CHILDREN = Object.freeze([]) as unknown as XmlElement[];

/** Parses a whole document; returns its root element. */
export function parseXml(input: string | Uint8Array, options: XmlParseOptions = {}): XmlElement {
  const xml = xmlSource(input);
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const names = new Map<string, QName>();
  // The open elements, as parallel stacks (no frame object per element).
  const open: XmlElement[] = [];
  const openNames: string[] = [];
  const scopes: (Scope | undefined)[] = [];
  // A start tag's attributes as written, reused from tag to tag.
  const rawNames: string[] = [];
  const rawQNames: QName[] = [];
  const rawValues: string[] = [];
  const rawAt: number[] = [];
  let root: XmlElement | undefined;
  let pos = 0;

  const qname = (name: string, at: number): QName => {
    const known = names.get(name);
    if (known !== undefined) return known;
    if (!NAME.test(name)) fail(`invalid XML name '${name.slice(0, 40)}'`, at);
    const colon = name.indexOf(':');
    const checked: QName = {
      prefix: colon === -1 ? '' : name.slice(0, colon),
      local: internalised(colon === -1 ? name : name.slice(colon + 1)),
      isNamespaceDeclaration: name === 'xmlns' || name.startsWith('xmlns:'),
    };
    names.set(name, checked);
    return checked;
  };

  const text = (from: number, to: number): void => {
    const top = open[open.length - 1];
    const raw = xml.slice(from, to);
    if (!top) {
      if (!WHITESPACE_ONLY.test(raw)) fail('text outside the root element', from);
      return;
    }
    top.text += characterData(raw, from);
  };

  const startTag = (lt: number): void => {
    if (open.length >= maxDepth) fail(`elements nested deeper than ${maxDepth}`, lt);
    const len = xml.length;
    let i = lt + 1;
    while (i < len) {
      const c = xml.charCodeAt(i);
      if (isSpace(c) || c === 62 /* > */ || c === 47 /* / */) break;
      i++;
    }
    const rawName = xml.slice(lt + 1, i);
    const name = qname(rawName, lt);
    let count = 0;
    let selfClosing = false;
    for (;;) {
      const before = i;
      while (i < len && isSpace(xml.charCodeAt(i))) i++;
      const c = xml.charCodeAt(i);
      if (i >= len) fail(`unterminated start tag <${rawName}>`, lt);
      if (c === 62) {
        i++;
        break;
      }
      if (c === 47) {
        if (xml.charCodeAt(i + 1) !== 62) fail(`'/' not followed by '>' in <${rawName}>`, i);
        selfClosing = true;
        i += 2;
        break;
      }
      if (i === before) fail(`missing white space before an attribute in <${rawName}>`, i);
      const nameStart = i;
      while (i < len && !isSpace(xml.charCodeAt(i)) && xml.charCodeAt(i) !== 61 /* = */) i++;
      const attributeName = xml.slice(nameStart, i);
      while (i < len && isSpace(xml.charCodeAt(i))) i++;
      if (xml.charCodeAt(i) !== 61) fail(`attribute ${attributeName} has no value`, i);
      i++;
      while (i < len && isSpace(xml.charCodeAt(i))) i++;
      const quote = xml.charCodeAt(i);
      if (quote !== 34 && quote !== 39) fail(`attribute ${attributeName} is not quoted`, i);
      const end = xml.indexOf(quote === 34 ? '"' : "'", i + 1);
      if (end === -1) fail(`unterminated value of attribute ${attributeName}`, i);
      rawNames[count] = attributeName;
      rawQNames[count] = qname(attributeName, nameStart);
      rawValues[count] = attributeValue(xml.slice(i + 1, end), i + 1);
      rawAt[count] = nameStart;
      count++;
      i = end + 1;
    }

    const depth = open.length;
    const parent = depth === 0 ? undefined : open[depth - 1];
    let scope = depth === 0 ? undefined : scopes[depth - 1];
    let attributes = NO_ATTRIBUTES;
    if (count > 0) {
      let bindings: Map<string, string> | undefined;
      for (let k = 0; k < count; k++) {
        if (!(rawQNames[k] as QName).isNamespaceDeclaration) continue;
        const attributeName = rawNames[k] as string;
        const value = rawValues[k] as string;
        const prefix = attributeName === 'xmlns' ? '' : attributeName.slice(6);
        const at = rawAt[k] as number;
        if (prefix !== '' && value === '') fail(`namespace prefix ${prefix} bound to the empty URI`, at);
        if (prefix === 'xmlns' || (prefix === 'xml' && value !== NS_XML)) fail(`reserved prefix ${prefix}`, at);
        bindings ??= new Map();
        if (bindings.has(prefix)) fail(`duplicate namespace declaration ${attributeName}`, at);
        // Internalised: elements compare their namespace with constants on every step.
        bindings.set(prefix, internalised(value));
      }
      if (bindings) scope = { parent: scope, bindings };
      const list: XmlAttribute[] = [];
      for (let k = 0; k < count; k++) {
        const q = rawQNames[k] as QName;
        let ns = '';
        let local = q.local;
        if (q.isNamespaceDeclaration) {
          ns = NS_XMLNS;
          if (q.prefix === '') local = '';
        } else if (q.prefix !== '') {
          const uri = lookup(scope, q.prefix);
          if (uri === undefined) fail(`unbound namespace prefix ${q.prefix}`, rawAt[k]);
          ns = uri;
        }
        for (const other of list) {
          if (other.ns === ns && other.local === local) fail(`duplicate attribute ${rawNames[k] as string}`, rawAt[k]);
        }
        list.push({ ns, local, value: rawValues[k] as string });
      }
      attributes = list;
    }

    const ns = lookup(scope, name.prefix);
    if (ns === undefined) fail(`unbound namespace prefix ${name.prefix}`, lt);
    const element: XmlElement = { ns, local: name.local, attributes, children: NO_CHILDREN, text: '' };

    if (parent) {
      if (parent.children === NO_CHILDREN) (parent as { children: XmlElement[] }).children = [element];
      else parent.children.push(element);
    } else if (root) fail('more than one root element', lt);
    else root = element;

    if (!selfClosing) {
      open.push(element);
      openNames.push(rawName);
      scopes.push(scope);
    }
    pos = i;
  };

  const endTag = (lt: number): void => {
    const gt = xml.indexOf('>', lt);
    if (gt === -1) fail('unterminated end tag', lt);
    const expected = openNames.pop();
    // The name must be the open element's, followed by nothing but white space.
    let matches = expected !== undefined && xml.startsWith(expected, lt + 2);
    for (let i = lt + 2 + (expected?.length ?? 0); matches && i < gt; i++) matches = isSpace(xml.charCodeAt(i));
    if (!matches) fail(`end tag </${xml.slice(lt + 2, gt).trimEnd().slice(0, 40)}> does not match`, lt);
    open.pop();
    scopes.pop();
    pos = gt + 1;
  };

  while (pos < xml.length) {
    const lt = xml.indexOf('<', pos);
    if (lt === -1) {
      text(pos, xml.length);
      break;
    }
    if (lt > pos) text(pos, lt);
    const c = xml.charCodeAt(lt + 1);
    if (c === 47 /* / */) endTag(lt);
    else if (c === 63 /* ? */) {
      const end = xml.indexOf('?>', lt + 2);
      if (end === -1) fail('unterminated processing instruction', lt);
      pos = end + 2;
    } else if (c === 33 /* ! */) {
      if (xml.startsWith('<!--', lt)) {
        const end = xml.indexOf('-->', lt + 4);
        if (end === -1) fail('unterminated comment', lt);
        pos = end + 3;
      } else if (xml.startsWith('<![CDATA[', lt)) {
        const end = xml.indexOf(']]>', lt + 9);
        if (end === -1) fail('unterminated CDATA section', lt);
        const top = open[open.length - 1];
        if (!top) fail('CDATA outside the root element', lt);
        top.text += normalizeNewlines(xml.slice(lt + 9, end));
        pos = end + 3;
      } else if (/^<!(DOCTYPE|ENTITY)/i.test(xml.slice(lt, lt + 9))) {
        fail('DOCTYPE and ENTITY declarations are not accepted', lt);
      } else fail('unexpected markup declaration', lt);
    } else startTag(lt);
  }
  if (openNames.length > 0) fail(`element <${openNames[openNames.length - 1] ?? ''}> is not closed`);
  if (!root) fail('the XML document has no root element');
  return root;
}

/** The value of an attribute by namespace URI ('' for unprefixed) and local name. */
export function attributeOf(element: XmlElement, ns: string, local: string): string | undefined {
  for (const a of element.attributes) if (a.local === local && a.ns === ns) return a.value;
  return undefined;
}
