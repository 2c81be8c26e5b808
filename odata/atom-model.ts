// What the Atom readers read from an entry or a feed, made one way by both of them (the general
// reader, atom-reader.ts, and its fast path, atom-feed-scanner.ts), so their answers cannot
// differ in shape.
import type { EdmRecord } from './edm.js';

/** A navigation link of an entry: where it points, and what was expanded inline. */
export interface AtomNavigationLink {
  readonly href?: string;
  /** undefined: deferred; null: expanded, nothing related; else the inline entry or feed. */
  readonly inline?: AtomEntry | AtomFeed | null;
}

export interface AtomEntry {
  /** Typed values of the properties present in the payload, by EDMX name. */
  readonly properties: EdmRecord;
  readonly id?: string;
  readonly editLink?: string;
  readonly etag?: string;
  /** The navigation links present in the payload, by navigation property name. */
  readonly navigation: Readonly<Record<string, AtomNavigationLink>>;
}

export interface AtomFeed {
  readonly entries: readonly AtomEntry[];
  readonly id?: string;
  /** `m:count` (`$inlinecount=allpages`). */
  readonly count?: number;
  /** href of `<link rel="next">`. */
  readonly next?: string;
}

/** An entry with the metadata the payload held and nothing for what it did not. */
export function atomEntry(
  properties: EdmRecord | undefined,
  id: string | undefined,
  editLink: string | undefined,
  etag: string | undefined,
  navigation: Record<string, AtomNavigationLink>,
): AtomEntry {
  return {
    properties: properties ?? {},
    ...(id === undefined ? {} : { id }),
    ...(editLink === undefined ? {} : { editLink }),
    ...(etag === undefined ? {} : { etag }),
    navigation,
  };
}

export function atomFeed(entries: AtomEntry[], id: string | undefined, count: number | undefined, next: string | undefined): AtomFeed {
  return {
    entries,
    ...(id === undefined ? {} : { id }),
    ...(count === undefined ? {} : { count }),
    ...(next === undefined ? {} : { next }),
  };
}

const COUNT = /^\d{1,15}$/;

/** The number of an `m:count` element's text (trimmed), or undefined when it is not a count. */
export function countOf(text: string): number | undefined {
  return COUNT.test(text) ? Number(text) : undefined;
}
