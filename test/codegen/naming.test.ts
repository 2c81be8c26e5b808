import { describe, expect, it } from 'vitest';
import { toKebabCase, toPascalCase, toRestName, toRestPath } from '../../codegen/naming.js';

describe('toRestName: EDM names to camelCase JSON names', () => {
  it.each([
    ['ID', 'id'],
    ['ClientID', 'clientId'],
    ['LastChangeTime', 'lastChangeTime'],
    ['DeletedTimeEntryIDs', 'deletedTimeEntryIds'],
    ['Order_Details', 'orderDetails'],
    ['HTMLBody', 'htmlBody'],
    ['Custom1', 'custom1'],
    ['ProjectCustom1Label', 'projectCustom1Label'],
    ['UnitPrice', 'unitPrice'],
    ['CurrentStopWatch', 'currentStopWatch'],
    ['lastName', 'lastName'],
    ['URLs', 'urls'],
    ['Picture', 'picture'],
    ['TypeID', 'typeId'],
  ])('%s -> %s', (edm, rest) => {
    expect(toRestName(edm)).toBe(rest);
  });
});

describe('toRestPath: entity set names to kebab-case resource paths', () => {
  it.each([
    ['Projects', 'projects'],
    ['TimeEntries', 'time-entries'],
    ['Order_Details', 'order-details'],
    ['AccountSettings', 'account-settings'],
    ['Users', 'users'],
    ['Shipments', 'shipments'],
  ])('%s -> %s', (set, path) => {
    expect(toRestPath(set)).toBe(path);
  });
});

describe('toPascalCase and toKebabCase', () => {
  it.each([
    ['orderDetails', 'OrderDetails', 'order-details'],
    ['Order_Details', 'OrderDetails', 'order-details'],
    ['changes-digest', 'ChangesDigest', 'changes-digest'],
    ['stopwatch', 'Stopwatch', 'stopwatch'],
    ['GetChangesDigest', 'GetChangesDigest', 'get-changes-digest'],
    ['HTMLBody', 'HtmlBody', 'html-body'],
  ])('%s -> %s / %s', (name, pascal, kebab) => {
    expect(toPascalCase(name)).toBe(pascal);
    expect(toKebabCase(name)).toBe(kebab);
  });
});
