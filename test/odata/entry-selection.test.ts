// The writers' compiled property writers (odata/entry-selection.ts) and the millisecond text of
// JSON dates: what a client reads must not depend on which path wrote it.
import { describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { createAtomWriter } from '../../odata/atom-writer.js';
import { millisecondsText } from '../../odata/datetime.js';
import type { EdmRecord } from '../../odata/edm.js';
import { createJsonWriter } from '../../odata/json-writer.js';
import { indexModel } from '../../odata/model-index.js';
import { VALID_EDMX } from '../codegen/fixtures/malformed-edmx.js';
import { project, ROOT, setOf, timeTracking } from './fixtures/json/models.js';

// Property names that are also names of Object.prototype's members.
const hostile = indexModel(readEdmx(VALID_EDMX
  .replace('<Property Name="Name" Type="Edm.String" Nullable="false" MaxLength="40" sap:filterable="true"/>',
    '<Property Name="__proto__" Type="Edm.String" Nullable="true"/><Property Name="constructor" Type="Edm.String" Nullable="true"/>')));
const customers = setOf(hostile, 'Customers');

/** A record from JSON text, which makes `__proto__` an own property (a literal would set the prototype). */
function customer(json: string): EdmRecord {
  return JSON.parse(json) as EdmRecord;
}

describe('writers: property names of Object.prototype', () => {
  it('writes own __proto__ and constructor properties, and null (not the prototype) when a record lacks them', () => {
    const json = createJsonWriter(hostile, customers);
    const written = JSON.parse(json.entry(customer('{"ID":1,"__proto__":"Ada","constructor":"Lovelace"}'), { serviceRoot: ROOT })).d;
    expect(Object.getOwnPropertyDescriptor(written, '__proto__')?.value).toBe('Ada');
    expect(written.constructor).toBe('Lovelace');
    const empty = json.entry(customer('{"ID":2}'), { serviceRoot: ROOT });
    expect(empty).toContain('"__proto__":null,"constructor":null');
    const selected = json.entry(customer('{"ID":2}'), { serviceRoot: ROOT, select: ['constructor'] });
    expect(selected).toContain('"constructor":null}');

    const atom = createAtomWriter(hostile, customers);
    const entry = atom.entry(customer('{"ID":1,"__proto__":"Ada"}'), { serviceRoot: ROOT });
    expect(entry).toContain('<d:__proto__ m:type="Edm.String">Ada</d:__proto__><d:constructor m:type="Edm.String" m:null="true"/>');
  });
});

describe('writers: a $select of every property writes what no $select writes', () => {
  const names = timeTracking.typeOfSet(setOf(timeTracking, 'Projects')).properties.map((p) => p.name);
  const projects = setOf(timeTracking, 'Projects');

  it('JSON and Atom, entry and feed', () => {
    const json = createJsonWriter(timeTracking, projects);
    const noNavigation = (text: string) => text.replace(/,"[A-Za-z]+":\{"__deferred":\{"uri":"[^"]*"\}\}/g, '');
    expect(json.entry(project, { serviceRoot: ROOT, select: names })).toBe(noNavigation(json.entry(project, { serviceRoot: ROOT })));
    expect(json.feed([project, project], { serviceRoot: ROOT, select: names }))
      .toBe(noNavigation(json.feed([project, project], { serviceRoot: ROOT })));

    const atom = createAtomWriter(timeTracking, projects);
    const updated = new Date(Date.UTC(2026, 10, 25));
    const properties = (text: string) => text.match(/<m:properties>.*?<\/m:properties>/g);
    expect(properties(atom.entry(project, { serviceRoot: ROOT, select: names, updated })))
      .toEqual(properties(atom.entry(project, { serviceRoot: ROOT, updated })));
  });

  it('a subset of the properties (written by a loop, not the compiled writer) writes the same values', () => {
    const json = createJsonWriter(timeTracking, projects);
    const whole = JSON.parse(json.entry(project, { serviceRoot: ROOT, select: names })).d as Record<string, unknown>;
    const atom = createAtomWriter(timeTracking, projects);
    const updated = new Date(Date.UTC(2026, 10, 25));
    const wholeAtom = atom.entry(project, { serviceRoot: ROOT, select: names, updated });
    for (const left of names) {
      const subset = names.filter((name) => name !== left);
      const { [left]: _left, ...expected } = whole;
      expect(JSON.parse(json.entry(project, { serviceRoot: ROOT, select: subset })).d).toEqual(expected);
      const element = new RegExp(`<d:${left}[ >/].*?(</d:${left}>|/>)`);
      expect(element.test(wholeAtom), left).toBe(true);
      expect(atom.entry(project, { serviceRoot: ROOT, select: subset, updated })).toBe(wholeAtom.replace(element, ''));
    }
  });
});

describe('millisecondsText', () => {
  it('writes every integral time value as String() does, at the edges of its fast range and at random', () => {
    const edges = [0, 1, -1, 999_999, 1_000_000, 1_000_001, 1_767_600_000_000, 1e15 - 1, 1e15, 8.64e15, -8.64e15, -1_000_000, 1_000_000_999_000];
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const values = [...edges, ...Array.from({ length: 20_000 }, () => Math.floor((random() * 2 - 0.5) * 1e13) * (random() < 0.1 ? 100 : 1))];
    for (const ms of values) expect(millisecondsText(ms), String(ms)).toBe(String(ms));
  });

  it('is how JSON dates are written', () => {
    const json = createJsonWriter(timeTracking, setOf(timeTracking, 'Projects'));
    const at = (ms: number) => json.entry({ ...project, LastChangeTime: new Date(ms) }, { serviceRoot: ROOT });
    expect(at(1_767_600_000_007)).toContain('"LastChangeTime":"\\/Date(1767600000007)\\/"');
    expect(at(-62_135_596_800_000)).toContain('"LastChangeTime":"\\/Date(-62135596800000)\\/"');
    expect(at(5)).toContain('"LastChangeTime":"\\/Date(5)\\/"');
  });
});
