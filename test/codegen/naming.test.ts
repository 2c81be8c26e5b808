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

describe('names in any script are kept whole, never cut', () => {
  it.each([
    ['OrdersQüeries', 'OrdersQüeries', 'orders-qüeries', 'ordersQüeries'],
    ['Orders_Qéries', 'OrdersQéries', 'orders-qéries', 'ordersQéries'],
    ['ÖffnungsZeiten', 'ÖffnungsZeiten', 'öffnungs-zeiten', 'öffnungsZeiten'],
    ['Größe', 'Größe', 'größe', 'größe'],
    ['Prix_Unité', 'PrixUnité', 'prix-unité', 'prixUnité'],
    ['顧客ID', '顧客Id', '顧客-id', '顧客Id'],
    // Decomposed (NFD) input reads as its composed form.
    ['Qu\u0308ery', 'Qüery', 'qüery', 'qüery'],
  ])('%s -> %s, %s, %s', (edm, pascal, kebab, rest) => {
    expect(toPascalCase(edm)).toBe(pascal);
    expect(toKebabCase(edm)).toBe(kebab);
    expect(toRestName(edm)).toBe(rest);
  });

  it('the generated key type and resource of a set with a non-ASCII name carry the whole name', async () => {
    const { readEdmx } = await import('../../codegen/edmx-reader.js');
    const { emitClient } = await import('../../codegen/emit-client.js');
    const xml = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
  <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="2.0">
    <Schema Namespace="Shop" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
      <EntityType Name="Query"><Key><PropertyRef Name="ID"/><PropertyRef Name="Zeile"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Zeile" Type="Edm.Int32" Nullable="false"/></EntityType>
      <EntityContainer Name="C" m:IsDefaultEntityContainer="true"><EntitySet Name="OrdersQüeries" EntityType="Shop.Query"/></EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;
    const [client] = await emitClient(readEdmx(xml));
    expect(client?.contents).toContain('OrdersQüeriesKey');
    expect(client?.contents).toContain('export class OrdersQüeriesResource');
    expect(client?.contents).toContain('GET /orders-qüeries');
    expect(client?.contents).not.toContain('OrdersQEries');
  });
});
