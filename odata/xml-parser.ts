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

// eslint-disable-next-line no-control-regex -- control characters are what XML forbids
const FORBIDDEN_CHAR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;
const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NAME =
  /^[A-Za-z_\u00c0-\ud7ff\uf900-\ufffd][\w.\-\u00b7\u00c0-\ud7ff\uf900-\ufffd]*(?::[A-Za-z_\u00c0-\ud7ff\uf900-\ufffd][\w.\-\u00b7\u00c0-\ud7ff\uf900-\ufffd]*)?$/;
const WHITESPACE_ONLY = /^[ \t\r\n]*$/;
const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function fail(message: string, at?: number): never {
  throw new PayloadError(at === undefined ? message : `${message} at offset ${at}`, at === undefined ? undefined : String(at));
}

/** Text of a document from a string or bytes; bytes must be valid UTF-8. */
export function xmlSource(input: string | Uint8Array): string {
  let text: string;
  if (typeof input === 'string') text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  else {
    try {
      text = decoder.decode(input); // strips a UTF-8 BOM itself
    } catch {
      return fail('the XML document is not valid UTF-8');
    }
  }
  if (FORBIDDEN_CHAR.test(text) || (SURROGATE.test(text) && LONE_SURROGATE.test(text))) {
    fail('the XML document contains a character XML does not allow');
  }
  return text;
}

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

function characterData(raw: string, at: number): string {
  if (raw.indexOf('<') !== -1) fail("'<' in character data", at);
  const text = normalizeNewlines(raw);
  return text.indexOf('&') === -1 ? text : decodeReferences(text, at);
}

const ATTRIBUTE_WORK = /[<&\t\n\r]/;

function attributeValue(raw: string, at: number): string {
  if (!ATTRIBUTE_WORK.test(raw)) return raw;
  if (raw.indexOf('<') !== -1) fail("'<' in an attribute value", at);
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

interface Frame {
  readonly element: XmlElement;
  readonly rawName: string;
  readonly scope: Scope | undefined;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/** Parses a whole document; returns its root element. */
export function parseXml(input: string | Uint8Array, options: XmlParseOptions = {}): XmlElement {
  const xml = xmlSource(input);
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const validNames = new Set<string>();
  const stack: Frame[] = [];
  let root: XmlElement | undefined;
  let pos = 0;

  const checkName = (name: string, at: number): void => {
    if (validNames.has(name)) return;
    if (!NAME.test(name)) fail(`invalid XML name '${name.slice(0, 40)}'`, at);
    validNames.add(name);
  };

  const text = (from: number, to: number): void => {
    const top = stack[stack.length - 1];
    const raw = xml.slice(from, to);
    if (!top) {
      if (!WHITESPACE_ONLY.test(raw)) fail('text outside the root element', from);
      return;
    }
    top.element.text += characterData(raw, from);
  };

  const startTag = (lt: number): void => {
    if (stack.length >= maxDepth) fail(`elements nested deeper than ${maxDepth}`, lt);
    const len = xml.length;
    let i = lt + 1;
    while (i < len) {
      const c = xml.charCodeAt(i);
      if (isSpace(c) || c === 62 /* > */ || c === 47 /* / */) break;
      i++;
    }
    const rawName = xml.slice(lt + 1, i);
    checkName(rawName, lt);
    const raw: { name: string; value: string; at: number }[] = [];
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
      const name = xml.slice(nameStart, i);
      checkName(name, nameStart);
      while (i < len && isSpace(xml.charCodeAt(i))) i++;
      if (xml.charCodeAt(i) !== 61) fail(`attribute ${name} has no value`, i);
      i++;
      while (i < len && isSpace(xml.charCodeAt(i))) i++;
      const quote = xml.charCodeAt(i);
      if (quote !== 34 && quote !== 39) fail(`attribute ${name} is not quoted`, i);
      const end = xml.indexOf(quote === 34 ? '"' : "'", i + 1);
      if (end === -1) fail(`unterminated value of attribute ${name}`, i);
      raw.push({ name, value: attributeValue(xml.slice(i + 1, end), i + 1), at: nameStart });
      i = end + 1;
    }

    const parentFrame = stack[stack.length - 1];
    let scope = parentFrame?.scope;
    let bindings: Map<string, string> | undefined;
    for (const a of raw) {
      if (a.name === 'xmlns' || a.name.startsWith('xmlns:')) {
        const prefix = a.name === 'xmlns' ? '' : a.name.slice(6);
        if (prefix !== '' && a.value === '') fail(`namespace prefix ${prefix} bound to the empty URI`, a.at);
        if (prefix === 'xmlns' || (prefix === 'xml' && a.value !== NS_XML)) fail(`reserved prefix ${prefix}`, a.at);
        bindings ??= new Map();
        if (bindings.has(prefix)) fail(`duplicate namespace declaration ${a.name}`, a.at);
        bindings.set(prefix, a.value);
      }
    }
    if (bindings) scope = { parent: scope, bindings };

    const attributes: XmlAttribute[] = [];
    for (const a of raw) {
      const colon = a.name.indexOf(':');
      let ns = '';
      let local = a.name;
      if (a.name === 'xmlns' || a.name.startsWith('xmlns:')) {
        ns = NS_XMLNS;
        local = colon === -1 ? '' : a.name.slice(colon + 1);
      } else if (colon !== -1) {
        const prefix = a.name.slice(0, colon);
        const uri = lookup(scope, prefix);
        if (uri === undefined) fail(`unbound namespace prefix ${prefix}`, a.at);
        ns = uri;
        local = a.name.slice(colon + 1);
      }
      for (const other of attributes) {
        if (other.ns === ns && other.local === local) fail(`duplicate attribute ${a.name}`, a.at);
      }
      attributes.push({ ns, local, value: a.value });
    }

    const colon = rawName.indexOf(':');
    const prefix = colon === -1 ? '' : rawName.slice(0, colon);
    const ns = lookup(scope, prefix);
    if (ns === undefined) fail(`unbound namespace prefix ${prefix}`, lt);
    const element: XmlElement = { ns, local: rawName.slice(colon + 1), attributes, children: [], text: '' };

    if (parentFrame) parentFrame.element.children.push(element);
    else if (root) fail('more than one root element', lt);
    else root = element;

    if (!selfClosing) stack.push({ element, rawName, scope });
    pos = i;
  };

  while (pos < xml.length) {
    const lt = xml.indexOf('<', pos);
    if (lt === -1) {
      text(pos, xml.length);
      break;
    }
    if (lt > pos) text(pos, lt);
    const c = xml.charCodeAt(lt + 1);
    if (c === 47 /* / */) {
      const gt = xml.indexOf('>', lt);
      if (gt === -1) fail('unterminated end tag', lt);
      const name = xml.slice(lt + 2, gt).trimEnd();
      const top = stack.pop();
      if (!top || top.rawName !== name) fail(`end tag </${name.slice(0, 40)}> does not match`, lt);
      pos = gt + 1;
    } else if (c === 63 /* ? */) {
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
        const top = stack[stack.length - 1];
        if (!top) fail('CDATA outside the root element', lt);
        top.element.text += normalizeNewlines(xml.slice(lt + 9, end));
        pos = end + 3;
      } else if (/^<!(DOCTYPE|ENTITY)/i.test(xml.slice(lt, lt + 9))) {
        fail('DOCTYPE and ENTITY declarations are not accepted', lt);
      } else fail('unexpected markup declaration', lt);
    } else startTag(lt);
  }
  if (stack.length > 0) fail(`element <${stack[stack.length - 1]?.rawName ?? ''}> is not closed`);
  if (!root) fail('the XML document has no root element');
  return root;
}

/** The value of an attribute by namespace URI ('' for unprefixed) and local name. */
export function attributeOf(element: XmlElement, ns: string, local: string): string | undefined {
  for (const a of element.attributes) if (a.local === local && a.ns === ns) return a.value;
  return undefined;
}
