// An entity set's REST shape, compiled once per set (as fast-json-stringify compiles a schema):
// upstream entries to REST objects (camelCase names in model order, converted values, expanded
// navigation nested), and REST bodies to Edm records for the upstream.
import { compileFunction, loadCode, storeCode } from '../../odata/compiled-access.js';
import type { EdmRecord } from '../../odata/edm.js';
import type { ModelIndex } from '../../odata/model-index.js';
import type { EntitySet } from '../../odata/model.js';
import type { UpstreamEntry } from '../upstream/odata-codec.js';
import type { FromRest, RestObject, ToRest } from './rest-values.js';
import { fromRestValue, toRestValue } from './rest-values.js';

export interface EntityShape {
  readonly set: EntitySet;
  /** The REST object of an entry: the properties it has (all, or the selected), and its expansions. */
  toRest(entry: UpstreamEntry): RestObject;
  /** The Edm record of a REST body (already valid for its schema); unknown names are left out. */
  toRecord(body: Readonly<Record<string, unknown>>): EdmRecord;
}

interface NavigationPart {
  readonly name: string;
  readonly restName: string;
  readonly target: () => EntityShape;
}

export class EntityShapes {
  private readonly shapes = new Map<EntitySet, EntityShape>();

  constructor(private readonly index: ModelIndex) {}

  of(set: EntitySet): EntityShape {
    let shape = this.shapes.get(set);
    if (shape === undefined) {
      shape = this.compile(set);
      this.shapes.set(set, shape);
    }
    return shape;
  }

  private compile(set: EntitySet): EntityShape {
    const { index } = this;
    const type = index.typeOfSet(set);
    const converters = type.properties.map((p) => toRestValue(index, p.type, p));
    const propertiesToRest = compilePropertiesToRest(type.properties);
    const inputs = new Map<string, { readonly name: string; readonly convert: FromRest }>(
      type.properties.map((p) => [p.restName, { name: p.name, convert: fromRestValue(index, p.type) }]),
    );
    // Lazy: navigation graphs have cycles (Project -> TimeEntries -> Project).
    const navigations: NavigationPart[] = type.navigationProperties.map((nav) => ({
      name: nav.name,
      restName: nav.restName,
      target: () => this.of(index.navigationTarget(set, nav)),
    }));
    return {
      set,
      toRest(entry) {
        const out = propertiesToRest(entry.record, converters);
        for (const n of navigations) {
          const inline = entry.expanded[n.name];
          if (inline === undefined) continue;
          if (inline === null) out[n.restName] = null;
          else if (isEntryList(inline)) out[n.restName] = inline.map((e) => n.target().toRest(e));
          else out[n.restName] = n.target().toRest(inline);
        }
        return out;
      },
      toRecord(body) {
        const record: EdmRecord = {};
        for (const [restName, value] of Object.entries(body)) {
          const input = inputs.get(restName);
          if (input !== undefined) record[input.name] = input.convert(value);
        }
        return record;
      },
    };
  }
}

type PropertiesToRest = (record: EdmRecord, converters: readonly ToRest[]) => RestObject;

/**
 * The properties of a record as a REST object, with every EDM and REST name written into the
 * code (odata/compiled-access.ts): a loop over the names made each load and store megamorphic.
 */
function compilePropertiesToRest(properties: readonly { readonly name: string; readonly restName: string }[]): PropertiesToRest {
  const lines = properties.map((p, i) =>
    `v = ${loadCode('record', p.name)}; if (v !== undefined) ${storeCode('out', p.restName, `converters[${i}](v)`)};`);
  return compileFunction(['record', 'converters'], `const out = {}; let v;\n${lines.join('\n')}\nreturn out;`);
}

function isEntryList(value: UpstreamEntry | readonly UpstreamEntry[]): value is readonly UpstreamEntry[] {
  return Array.isArray(value);
}
