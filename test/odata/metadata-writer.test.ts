import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { writeMetadata } from '../../odata/metadata-writer.js';

const timeTrackingEdmx = readFileSync('spec/timetracking.edmx', 'utf8');
const timeTracking = readEdmx(timeTrackingEdmx);
const northwind = readEdmx(readFileSync('test/fixtures/northwind/northwind.edmx', 'utf8'));
const SELF = 'http://localhost:8080/V1/Api.svc/$metadata';

describe('$metadata writer', () => {
  it('writes the time-tracking model back byte for byte as spec/timetracking.edmx', () => {
    expect(writeMetadata(timeTracking)).toBe(timeTrackingEdmx);
  });

  it('matches the golden document with the SAP-style atom:link rel="self" as last child of the Schema', () => {
    const xml = writeMetadata(timeTracking, { selfUrl: SELF });
    expect(xml).toBe(readFileSync('test/odata/fixtures/metadata/timetracking-self.edmx', 'utf8'));
    expect(xml).toContain(
      `      <atom:link rel="self" href="${SELF}" xmlns:atom="http://www.w3.org/2005/Atom"/>\n    </Schema>`,
    );
  });

  it('is byte-stable: writing twice gives the same bytes', () => {
    expect(writeMetadata(northwind, { selfUrl: SELF })).toBe(writeMetadata(northwind, { selfUrl: SELF }));
  });

  it.each([
    ['time tracking', timeTracking],
    ['Northwind (two schemas, composite keys, OnDelete, every facet)', northwind],
  ])('reads back into the same model: %s', (_name, model) => {
    expect(readEdmx(writeMetadata(model))).toEqual(model);
    expect(readEdmx(writeMetadata(model, { selfUrl: SELF }))).toEqual(model);
  });

  it('escapes annotation values and the self URL for XML attributes', () => {
    const model = {
      ...timeTracking,
      entitySets: timeTracking.entitySets.map((s, i) =>
        i === 0 ? { ...s, annotations: { ...s.annotations, 'sap:label': 'A & "B" <C>' } } : s,
      ),
    };
    const xml = writeMetadata(model, { selfUrl: 'http://h/$metadata?a=1&b="2"' });
    expect(xml).toContain('sap:label="A &amp; &quot;B&quot; &lt;C&gt;"');
    expect(xml).toContain('href="http://h/$metadata?a=1&amp;b=&quot;2&quot;"');
    expect(readEdmx(xml).entitySets[0]?.annotations['sap:label']).toBe('A & "B" <C>');
  });
});
