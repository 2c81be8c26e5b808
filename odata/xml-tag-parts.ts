// What the tag reader (xml-tag-reader.ts) is made of that keeps no state of a document: how it
// gives up, which characters a name may hold, how it compares text with text read before, and
// what it remembers of names and of leaves.
import type { XmlAttribute } from './xml-parser.js';
import { isSpace } from './xml-parser.js';

/** Thrown inside a reader to give the document to the general parser. */
class Decline {}
const DECLINE = new Decline();

export function decline(): never {
  throw DECLINE;
}

export function isDecline(error: unknown): boolean {
  return error === DECLINE;
}

export const NO_ATTRIBUTES: readonly XmlAttribute[] = Object.freeze([]);
const NO_SPANS: readonly number[] = Object.freeze([]);

export function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

export function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57) || c === 46 || c === 45;
}

/**
 * Whether `xml` holds `text` at `at`. startsWith compares character by character, about 2 ns
 * each; a slice (a view, no copy, from 13 characters) compares as memory, about 35 ns whatever
 * its length: the tails of start tags are 20 to 40 characters long.
 */
export function holdsAt(xml: string, text: string, at: number): boolean {
  return text.length < 16 ? xml.startsWith(text, at) : xml.slice(at, at + text.length) === text;
}

/** Whether a known name written before `c` is the whole name of a start tag. */
export function endsName(c: number): boolean {
  return isSpace(c) || c === 62 /* > */ || c === 47 /* / */;
}

/**
 * A name of the document, resolved once. Element names also remember the tag read after them
 * and how their last start tag went on, because the entries of a feed repeat both.
 */
export interface KnownName {
  readonly raw: string;
  readonly ns: string;
  readonly local: string;
  /** The name of the start tag that followed this one last time. */
  successor: KnownName | undefined;
  /** The text after the name in this name's last start tag (attributes, `>` or `/>`)... */
  tail: string;
  /** ...and what it was read as. */
  tailAttributes: readonly XmlAttribute[];
  tailSelfClosing: boolean;
  /** Where each attribute value of the tail begins and ends, from the tail's start: 2 per attribute. */
  tailSpans: readonly number[];
  /** Whatever the reader learns about this name and keeps (the scanner: its property slot). */
  memo: unknown;
}

/**
 * How an element without child elements (a leaf) was written in a run of them, from the end of
 * the text of the leaf before it: read again in one comparison where the entries of a feed
 * repeat it (leafAs). Every character of it was checked when it was first read.
 */
export interface LeafShape {
  /** The end tag of the leaf before (if there was one), white space, and this start tag. */
  readonly open: string;
  /** The leaf whose end tag `open` begins with; undefined for none. */
  readonly closes: KnownName | undefined;
  readonly tag: KnownName;
  readonly attributes: readonly XmlAttribute[];
  readonly selfClosing: boolean;
}

export function knownName(raw: string, ns: string, local: string): KnownName {
  return { raw, ns, local, successor: undefined, tail: '', tailAttributes: NO_ATTRIBUTES, tailSelfClosing: false, tailSpans: NO_SPANS, memo: undefined };
}
