// What the writers write of an entity type at one level of a `$select`: its properties, as one
// function per selection, and its navigation properties. Both writers (JSON and Atom) select the
// same way; they differ in the parts they select from.
import { compileFunction, loadCode } from './compiled-access.js';
import type { EdmRecord } from './edm.js';
import type { SlotValue } from './json-values.js';

/** One property as the writer writes it: constant text, then the text of its value. */
export interface PropertyPart {
  readonly name: string;
  readonly prefix: string;
  readonly write: (value: SlotValue) => string;
}

/** The text of a record's selected properties, in model order. */
export type PropertiesWriter = (record: EdmRecord) => string;

/** An entity type's parts as a writer compiled them; `writeAll` writes every property. */
export interface TypeParts<N extends { readonly name: string }> {
  readonly properties: readonly PropertyPart[];
  readonly writeAll: PropertiesWriter;
  readonly navigations: readonly N[];
}

/** What one `$select` keeps at one level; `below` holds the paths under each navigation. */
export interface Selection<N> {
  readonly hasProperties: boolean;
  readonly writeProperties: PropertiesWriter;
  readonly navigations: readonly N[];
  /** Navigation name -> the paths below it; undefined = everything below. */
  readonly below: ReadonlyMap<string, readonly string[] | undefined>;
}

/**
 * Every property, with each name and prefix written into the code (compiled-access.ts): in a loop
 * over the properties each load was megamorphic and each writer call polymorphic, a tenth of
 * writing a page of time entries.
 */
export function compilePropertiesWriter(parts: readonly PropertyPart[]): PropertiesWriter {
  const lines = parts.map((p, i) =>
    `out += ${p.prefix === '' ? '' : `${JSON.stringify(p.prefix)} + `}writers[${i}](${loadCode('record', p.name)});`);
  const write = compileFunction<(record: EdmRecord, writers: readonly PropertyPart['write'][]) => string>(
    ['record', 'writers'], `let out = '';\n${lines.join('\n')}\nreturn out;`);
  const writers = parts.map((p) => p.write);
  return (record) => write(record, writers);
}

/** A subset of the properties, written in a loop: selections vary too much to compile each. */
function loopPropertiesWriter(parts: readonly PropertyPart[]): PropertiesWriter {
  return (record) => {
    let out = '';
    for (const p of parts) out += p.prefix + p.write(Object.hasOwn(record, p.name) ? record[p.name] : undefined);
    return out;
  };
}

const EVERYTHING = new Map<string, undefined>();

/** The selection of everything, made once per type: it is asked for every entry written. */
const everythingOf = new WeakMap<object, Selection<unknown>>();

/** `paths`: the `$select` paths at this level (`Name`, `Client`, `Client/Name`, `*`); absent = all. */
export function select<N extends { readonly name: string }>(parts: TypeParts<N>, paths: readonly string[] | undefined): Selection<N> {
  if (paths === undefined) {
    let all = everythingOf.get(parts) as Selection<N> | undefined;
    if (all === undefined) {
      all = { hasProperties: parts.properties.length > 0, writeProperties: parts.writeAll, navigations: parts.navigations, below: EVERYTHING };
      everythingOf.set(parts, all);
    }
    return all;
  }
  // head -> deeper paths; undefined when the head is selected as a whole (`Client`).
  const heads = new Map<string, string[] | undefined>();
  for (const path of paths) {
    const slash = path.indexOf('/');
    if (slash < 0) {
      heads.set(path, undefined);
      continue;
    }
    const head = path.slice(0, slash);
    if (heads.has(head) && heads.get(head) === undefined) continue;
    const deeper = heads.get(head) ?? [];
    deeper.push(path.slice(slash + 1));
    heads.set(head, deeper);
  }
  if (heads.has('*')) return { ...select(parts, undefined), below: heads };
  const properties = parts.properties.filter((p) => heads.has(p.name));
  return {
    hasProperties: properties.length > 0,
    // A client that names every property (the gateway always does, to leave out the navigation
    // links) gets the compiled writer.
    writeProperties: properties.length === parts.properties.length ? parts.writeAll : loopPropertiesWriter(properties),
    navigations: parts.navigations.filter((n) => heads.has(n.name)),
    below: heads,
  };
}
