import { describe, expect, it } from 'vitest';
import { PayloadError } from '../../odata/errors.js';
import { writeServiceDocument } from '../../odata/service-document.js';
import {
  readXmlError,
  readXmlLinks,
  readXmlProperty,
  writeXmlError,
  writeXmlLink,
  writeXmlLinks,
  writeXmlProperty,
} from '../../odata/xml-documents.js';
import { golden, ROOT, timeTracking } from './fixtures/atom/models.js';

const digest = { name: 'GetChangesDigest', type: 'Service.ChangeSet' };
const digestValue = {
  TotalClients: 4,
  ChangedClients: 1,
  TotalProjects: 12,
  ChangedProjects: 0,
  TotalTasks: 7,
  ChangedTasks: 0,
  TotalUsers: 3,
  ChangedUsers: 0,
  TotalTimeEntries: 1500,
  ChangedTimeEntries: 25,
  DeletedTimeEntryIDs: '17,18',
  CurrentServerTime: new Date(Date.UTC(2026, 10, 22, 9, 0, 0, 120)),
};
const name = { name: 'Name', type: 'Edm.String' };

describe('single-property documents', () => {
  it('writes a complex function import result (GetChangesDigest) and reads it back', () => {
    const xml = writeXmlProperty(timeTracking, { ...digest, precision: 3 }, digestValue);
    expect(xml).toBe(golden('changes-digest.xml'));
    expect(readXmlProperty(xml, timeTracking, digest)).toEqual(digestValue);
  });

  it('writes a primitive property with the data namespace as default namespace', () => {
    expect(writeXmlProperty(timeTracking, name, 'A & B')).toBe(
      '<?xml version="1.0" encoding="utf-8"?><Name xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:type="Edm.String">A &amp; B</Name>',
    );
    expect(writeXmlProperty(timeTracking, name, null)).toBe(
      '<?xml version="1.0" encoding="utf-8"?><Name xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:type="Edm.String" m:null="true"/>',
    );
    expect(writeXmlProperty(timeTracking, digest, null)).toContain(' m:null="true"/>');
  });

  it('reads property documents of other servers and refuses the wrong property', () => {
    const wcf = '<Name xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices">Web</Name>';
    expect(readXmlProperty(wcf, timeTracking, name)).toBe('Web');
    const prefixed = `<d:TimeBudget xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:null="true"/>`;
    expect(readXmlProperty(prefixed, timeTracking, { name: 'TimeBudget', type: 'Edm.Int32' })).toBeNull();
    expect(() => readXmlProperty(wcf, timeTracking, { name: 'Comment', type: 'Edm.String' })).toThrow(/expected the property Comment/);
    const unknown = golden('changes-digest.xml').replace('<TotalTasks', '<Extra m:type="Edm.Int32">1</Extra><TotalTasks');
    expect(() => readXmlProperty(unknown, timeTracking, digest)).toThrow(/unknown property GetChangesDigest\/Extra/);
  });
});

describe('$links documents', () => {
  it('writes links of a to-many navigation with an optional m:count, and a single link', () => {
    expect(writeXmlLinks([`${ROOT}TimeEntries(1)`, `${ROOT}TimeEntries(2)`], 2)).toBe(
      '<?xml version="1.0" encoding="utf-8"?><links xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices">' +
        '<m:count xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">2</m:count>' +
        `<uri>${ROOT}TimeEntries(1)</uri><uri>${ROOT}TimeEntries(2)</uri></links>`,
    );
    expect(writeXmlLinks([])).toBe('<?xml version="1.0" encoding="utf-8"?><links xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices"/>');
    expect(writeXmlLink(`${ROOT}Clients(3)`)).toBe(
      `<?xml version="1.0" encoding="utf-8"?><uri xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices">${ROOT}Clients(3)</uri>`,
    );
  });

  it('reads both forms back', () => {
    expect(readXmlLinks(writeXmlLinks(['a', 'b&c'], 7))).toEqual({ uris: ['a', 'b&c'], count: 7 });
    expect(readXmlLinks(writeXmlLink(`${ROOT}Clients(3)`))).toEqual({ uris: [`${ROOT}Clients(3)`] });
    expect(() => readXmlLinks('<uri xmlns="urn:x">a</uri>')).toThrow(PayloadError);
  });
});

describe('error documents', () => {
  it('writes Olingo\'s error document: code element even when empty, message with xml:lang', () => {
    const xml = writeXmlError({ code: '', message: 'Projekt: Name fehlt <Pflichtfeld>', lang: 'de-DE' });
    expect(xml).toBe(golden('error.xml'));
    expect(readXmlError(xml)).toEqual({ code: '', message: 'Projekt: Name fehlt <Pflichtfeld>', lang: 'de-DE' });
  });

  it('writes an inner error and a code', () => {
    const xml = writeXmlError({ code: 'ODATA_PAYLOAD', message: 'm', lang: 'en', innerError: 'at x' });
    expect(xml).toContain('<code>ODATA_PAYLOAD</code><message xml:lang="en">m</message><innererror>at x</innererror></error>');
    expect(readXmlError(xml)).toEqual({ code: 'ODATA_PAYLOAD', message: 'm', lang: 'en', innerError: 'at x' });
  });

  it('writes a message quoting characters XML cannot carry with U+FFFD in their place, so the document still parses', () => {
    const message = 'no entity Projects(\u0000) or Tasks(\ud800\uffff)';
    const xml = writeXmlError({ code: 'BAD\u0001', message, lang: 'en', innerError: '\u0008' });
    expect(readXmlError(xml)).toEqual({ code: 'BAD\ufffd', message: 'no entity Projects(\ufffd) or Tasks(\ufffd\ufffd)', lang: 'en', innerError: '\ufffd' });
  });

  it('reads the m:-prefixed form of SAP Gateway and WCF', () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?><m:error xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"><m:code>SY/530</m:code><m:message xml:lang="en">Not found</m:message></m:error>`;
    expect(readXmlError(xml)).toEqual({ code: 'SY/530', message: 'Not found', lang: 'en' });
    expect(() => readXmlError('<error/>')).toThrow(/expected an OData error/);
  });
});

describe('service document', () => {
  it('lists every entity set as Olingo writes it', () => {
    expect(writeServiceDocument(timeTracking.model, ROOT)).toBe(golden('service-document.xml'));
  });
});
