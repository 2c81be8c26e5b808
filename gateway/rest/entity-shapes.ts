// An entity set's REST shape, compiled once per set (as fast-json-stringify compiles a schema):
// upstream entries to REST objects (camelCase names in model order, converted values, expanded
// navigation nested), and REST bodies to Edm records for the upstream.
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
    const properties: { readonly name: string; readonly restName: string; readonly convert: ToRest }[] = type.properties.map((p) => ({
      name: p.name,
      restName: p.restName,
      convert: toRestValue(index, p.type),
    }));
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
        const record = entry.record;
        const out: RestObject = {};
        for (const p of properties) {
          const value = record[p.name];
          if (value !== undefined) out[p.restName] = p.convert(value);
        }
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

function isEntryList(value: UpstreamEntry | readonly UpstreamEntry[]): value is readonly UpstreamEntry[] {
  return Array.isArray(value);
}
