// The `d:` children of a container element (`m:properties`, a complex value) read into a record
// by the readers of its properties (xml-values.ts), one slot per property.
import { compileFunction, storeCode } from './compiled-access.js';
import type { EdmRecord } from './edm.js';
import { PayloadError } from './errors.js';
import { NS_DATA } from './namespaces.js';
import type { XmlElement } from './xml-parser.js';
import type { XmlElementReader } from './xml-values.js';

type RecordBuilder = (slots: readonly unknown[], absent: unknown) => EdmRecord;

/** A container's properties by slot: where each name goes, its reader, the record builder. */
export interface PropertySlots {
  readonly slotOf: ReadonlyMap<string, number>;
  readonly readers: readonly XmlElementReader[];
  readonly build: RecordBuilder;
}

/** Marks a property the payload did not hold. */
export const ABSENT = Symbol('absent');
const compiledProperties = new WeakMap<ReadonlyMap<string, XmlElementReader>, PropertySlots>();

/**
 * Values are read into slots by position, and the record is made by a builder with every name
 * written into its code (compiled-access.ts), as the JSON reader's: stores by names that vary
 * per child made every store megamorphic (an eighth of reading an Atom feed).
 */
function compileProperties(fields: ReadonlyMap<string, XmlElementReader>): PropertySlots {
  const names = [...fields.keys()];
  const lines = names.map((name, i) => `v = slots[${i}]; if (v !== absent) ${storeCode('record', name, 'v')};`);
  return {
    slotOf: new Map(names.map((name, i) => [name, i])),
    readers: [...fields.values()],
    build: compileFunction(['slots', 'absent'], `const record = {}; let v;\n${lines.join('\n')}\nreturn record;`),
  };
}

/** The slots of `fields`, compiled once per map of readers. */
export function propertySlots(fields: ReadonlyMap<string, XmlElementReader>): PropertySlots {
  let compiled = compiledProperties.get(fields);
  if (compiled === undefined) compiledProperties.set(fields, (compiled = compileProperties(fields)));
  return compiled;
}

function pathOf(child: XmlElement, target: string | undefined): string {
  return target ? `${target}/${child.local}` : child.local;
}

/** The `d:` children of a container element (`m:properties`, a complex value) as a record. */
export function readProperties(
  container: XmlElement,
  fields: ReadonlyMap<string, XmlElementReader>,
  target?: string,
): EdmRecord {
  const compiled = propertySlots(fields);
  const slots: unknown[] = new Array<unknown>(compiled.readers.length).fill(ABSENT);
  for (const child of container.children) {
    const slot = child.ns === NS_DATA ? compiled.slotOf.get(child.local) : undefined;
    if (slot === undefined) {
      const what = child.ns === NS_DATA ? 'unknown property' : `element outside the data namespace {${child.ns}}:`;
      const path = pathOf(child, target).slice(0, 120);
      throw new PayloadError(`${what} ${path}`, path);
    }
    if (slots[slot] !== ABSENT) throw new PayloadError(`property ${pathOf(child, target)} given twice`, pathOf(child, target));
    slots[slot] = (compiled.readers[slot] as XmlElementReader)(child);
  }
  return compiled.build(slots, ABSENT);
}
