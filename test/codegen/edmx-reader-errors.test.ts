import { describe, expect, it } from 'vitest';
import { readEdmx } from '../../codegen/edmx-reader.js';
import { EdmxError } from '../../codegen/errors.js';
import { MALFORMED_CASES, VALID_EDMX } from './fixtures/malformed-edmx.js';

function errorOf(xml: string): EdmxError {
  try {
    readEdmx(xml);
  } catch (error) {
    if (error instanceof EdmxError) return error;
    throw error;
  }
  throw new Error('readEdmx accepted the document');
}

describe('readEdmx refuses malformed EDMX with a typed, one-line error', () => {
  it('accepts the unmodified fixture the cases are made from', () => {
    const model = readEdmx(VALID_EDMX);
    expect(model.entitySets.map((s) => s.name)).toEqual(['Customers', 'Orders']);
    expect(model.entitySets[1]?.capabilities.deletable).toBe(false);
    expect(model.functionImports.map((f) => `${f.rest.method} ${f.rest.path}`)).toEqual(['GET /top-customer', 'GET /get-summary']);
  });

  it.each(MALFORMED_CASES.map((c) => [c.name, c] as const))('%s', (_, { xml, code, mentions }) => {
    const error = errorOf(xml);
    expect(error.code).toBe(code);
    expect(error.message).not.toContain('\n');
    for (const words of mentions) expect(error.message).toContain(words);
  });

  it('refuses an entity returned by a function import without EntitySet', () => {
    const error = errorOf(VALID_EDMX.replace(' EntitySet="Customers" m:HttpMethod', ' m:HttpMethod'));
    expect(error.code).toBe('EDMX_MISSING_ATTRIBUTE');
    expect(error.message).toContain('FunctionImport TopCustomer');
  });

  it('refuses a malformed tg:rest operation', () => {
    const xml = VALID_EDMX.replace('xmlns:sap=', 'xmlns:tg="urn:timegate:annotations:v1" xmlns:sap=').replace(
      'Name="GetSummary" ReturnType="Shop.Summary" m:HttpMethod="GET"',
      'Name="GetSummary" ReturnType="Shop.Summary" m:HttpMethod="GET" tg:rest="FETCH summary"',
    );
    const error = errorOf(xml);
    expect(error.code).toBe('EDMX_BAD_VALUE');
    expect(error.message).toContain('tg:rest="FETCH summary"');
  });

  it('decodes character references in attribute values', () => {
    const model = readEdmx(VALID_EDMX.replace('sap:filterable="true"', 'sap:label="Name &amp; title &#x263A;" sap:filterable="true"'));
    expect(model.entityTypes[0]?.properties[1]?.label).toBe('Name & title \u263a');
  });

  it('resolves annotation namespaces by URI whatever the prefix', () => {
    const xml = VALID_EDMX.replace('xmlns:sap="http://www.sap.com/Protocols/SAPData"', 'xmlns:s="http://www.sap.com/Protocols/SAPData"').replaceAll('sap:', 's:');
    const model = readEdmx(xml);
    expect(model.entitySets[1]?.capabilities.deletable).toBe(false);
    expect(model.entitySets[1]?.annotations).toEqual({ 's:deletable': 'false' });
    expect(model.annotationNamespaces).toEqual({ s: 'http://www.sap.com/Protocols/SAPData' });
  });
});
