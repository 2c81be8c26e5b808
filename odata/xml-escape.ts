// Escaping of text and attribute values for the XML writers (Atom, property, links, errors).
//
// `>` is escaped too (as Olingo's StAX writer does), which also keeps `]]>` harmless. Carriage
// return, and in attributes tab and line feed, become character references so a parser's
// end-of-line and attribute-value normalisation cannot change the value on the way back.
// Characters XML 1.0 cannot carry at all (C0 controls other than tab/LF/CR, U+FFFE, U+FFFF,
// lone surrogates) are refused with a SerializationError: escaping them as `&#1;` would
// produce a document no conforming parser reads, and dropping them would change the data.
import { SerializationError } from './errors.js';

// eslint-disable-next-line no-control-regex -- control characters are what this detects
const TEXT_WORK = /[&<>\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/;
// eslint-disable-next-line no-control-regex -- control characters are what this detects
const ATTR_WORK = /[&<>"\t\n\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/;
const TEXT_REPLACE = /[&<>\r]/g;
const ATTR_REPLACE = /[&<>"\t\n\r]/g;
const INVALID =
  // eslint-disable-next-line no-control-regex -- control characters are what this detects
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const INVALID_ALL = new RegExp(INVALID.source, 'g');

const ENTITY: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\t': '&#x9;',
  '\n': '&#xA;',
  '\r': '&#xD;',
};

function entity(c: string): string {
  return ENTITY[c] ?? c;
}

/** Throws when `text` holds a character that no XML 1.0 document can contain. */
export function assertXmlChars(text: string, target?: string): void {
  const bad = INVALID.exec(text);
  if (bad) {
    const code = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    throw new SerializationError(
      `character U+${code} cannot be written in XML${target ? ` (${target})` : ''}`,
      target,
    );
  }
}

/** Character data of an element. */
export function escapeXmlText(text: string, target?: string): string {
  if (!TEXT_WORK.test(text)) return text;
  assertXmlChars(text, target);
  return text.replace(TEXT_REPLACE, entity);
}

/**
 * Character data of text written for people (an error message, which may quote the request):
 * a character XML cannot carry becomes U+FFFD, so the document that explains a bad request can
 * always be written. Data is never written this way: there, changing a character is refused.
 */
export function escapeXmlMessage(text: string): string {
  return escapeXmlText(TEXT_WORK.test(text) ? text.replace(INVALID_ALL, '\ufffd') : text);
}

/** A value inside double quotes. */
export function escapeXmlAttribute(text: string, target?: string): string {
  if (!ATTR_WORK.test(text)) return text;
  assertXmlChars(text, target);
  return text.replace(ATTR_REPLACE, entity);
}
