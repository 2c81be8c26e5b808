import { describe, expect, it } from 'vitest';
import { PayloadError, UriSyntaxError } from '../../odata/errors.js';
import {
  JSONP_CONTENT_TYPE,
  readJsonError,
  readJsonLinks,
  readJsonProperty,
  wrapJsonp,
  writeJsonError,
  writeJsonFunctionResult,
  writeJsonLink,
  writeJsonLinks,
  writeJsonProperty,
} from '../../odata/json-documents.js';
import { dateTimeOffset } from '../../odata/edm.js';
import { northwind, timeTracking } from './fixtures/json/models.js';

function propertyOf(name: string): NonNullable<ReturnType<typeof timeTracking.property>> {
  const type = timeTracking.entityType('Service.Project');
  const property = type && timeTracking.property(type, name);
  if (!property) throw new Error(name);
  return property;
}

function functionOf(index: typeof timeTracking, name: string): NonNullable<ReturnType<typeof index.functionImport>> {
  const fn = index.functionImport(name);
  if (!fn) throw new Error(name);
  return fn;
}

describe('JSON error document', () => {
  it('writes code, message lang and value as Olingo does', () => {
    expect(writeJsonError({ code: '', message: 'Projekt: Name fehlt', lang: 'de-DE' })).toBe(
      '{"error":{"code":"","message":{"lang":"de-DE","value":"Projekt: Name fehlt"}}}',
    );
    expect(writeJsonError({ code: null, message: 'x', lang: 'en', innerError: 'trace-id 1' })).toBe(
      '{"error":{"code":null,"message":{"lang":"en","value":"x"},"innererror":"trace-id 1"}}',
    );
  });

  it('reads errors of other servers, including a bare message string', () => {
    expect(readJsonError('{"error":{"code":"SY/530","message":{"lang":"en","value":"Boom"}}}')).toEqual({
      code: 'SY/530',
      message: 'Boom',
      lang: 'en',
    });
    expect(readJsonError({ error: { code: 1, message: 'plain' } })).toEqual({ code: null, message: 'plain', lang: '' });
    expect(() => readJsonError('{"d":{}}')).toThrow(PayloadError);
  });
});

describe('JSON single property, $links and function results', () => {
  it('writes a single property as {"d":{"Name":value}} and reads it back', () => {
    const json = writeJsonProperty(timeTracking, propertyOf('LastChangeTime'), new Date(0));
    expect(json).toBe('{"d":{"LastChangeTime":"\\/Date(0)\\/"}}');
    expect(readJsonProperty(timeTracking, propertyOf('LastChangeTime'), json)).toEqual(new Date(0));
    expect(() => readJsonProperty(timeTracking, propertyOf('Name'), '{"d":{"Other":1}}')).toThrow(PayloadError);
  });

  it('writes $links of a collection (with __count first) and of a single link, and reads both forms', () => {
    expect(writeJsonLinks(['http://h/Projects(1)', 'http://h/Projects(2)'], 2)).toBe(
      '{"d":{"__count":"2","results":[{"uri":"http://h/Projects(1)"},{"uri":"http://h/Projects(2)"}]}}',
    );
    expect(writeJsonLinks([])).toBe('{"d":{"results":[]}}');
    expect(writeJsonLink('http://h/Clients(3)')).toBe('{"d":{"uri":"http://h/Clients(3)"}}');
    expect(readJsonLinks(writeJsonLinks(['a', 'b']))).toEqual(['a', 'b']);
    expect(readJsonLinks('{"d":[{"uri":"a"}]}')).toEqual(['a']);
    expect(readJsonLinks(writeJsonLink('c'))).toEqual(['c']);
  });

  it('writes a complex function result under the function name with its __metadata type', () => {
    const json = writeJsonFunctionResult(timeTracking, functionOf(timeTracking, 'GetChangesDigest'), {
      TotalClients: 1,
      ChangedClients: 0,
      TotalProjects: 2,
      ChangedProjects: 1,
      TotalTasks: 0,
      ChangedTasks: 0,
      TotalUsers: 1,
      ChangedUsers: 0,
      TotalTimeEntries: 3,
      ChangedTimeEntries: 1,
      DeletedTimeEntryIDs: '4,5',
      CurrentServerTime: new Date(1700000000000),
    });
    expect(json).toBe(
      '{"d":{"GetChangesDigest":{"__metadata":{"type":"Service.ChangeSet"},"TotalClients":1,"ChangedClients":0,' +
        '"TotalProjects":2,"ChangedProjects":1,"TotalTasks":0,"ChangedTasks":0,"TotalUsers":1,"ChangedUsers":0,' +
        '"TotalTimeEntries":3,"ChangedTimeEntries":1,"DeletedTimeEntryIDs":"4,5","CurrentServerTime":"\\/Date(1700000000000)\\/"}}}',
    );
  });

  it('writes a complex result with a DateTimeOffset of Northwind', () => {
    const json = writeJsonFunctionResult(northwind, functionOf(northwind, 'GetShipmentSummary'), {
      OrderID: 1,
      ShipmentCount: 2,
      TotalWeightKg: null,
      LastShippedAt: dateTimeOffset(new Date(0), -60),
    });
    expect(json).toBe(
      '{"d":{"GetShipmentSummary":{"__metadata":{"type":"NorthwindModel.ShipmentSummary"},"OrderID":1,"ShipmentCount":2,' +
        '"TotalWeightKg":null,"LastShippedAt":"\\/Date(0-0060)\\/"}}}',
    );
  });
});

describe('JSONP', () => {
  it('wraps the document in callback(...) and escapes what could end or break a script', () => {
    expect(wrapJsonp('cb', '{"d":{"Name":"</script>\u2028"}}')).toBe('cb({"d":{"Name":"\\u003c/script>\\u2028"}})');
    expect(wrapJsonp('jQuery1_2.done', '{}')).toBe('jQuery1_2.done({})');
    expect(JSONP_CONTENT_TYPE).toBe('text/javascript;charset=utf-8');
  });

  it('refuses a callback that is not a JavaScript identifier path', () => {
    for (const name of ['alert(1);x', 'a b', '1x', '', 'a..b', `${'a'.repeat(129)}`]) {
      expect(() => wrapJsonp(name, '{}'), name).toThrow(UriSyntaxError);
    }
  });
});
