// The baseline input of fast-xml-parser's XMLBuilder: the same Atom feed our writer produces
// (same elements, attributes and value texts), shaped as the generic builder wants it. Value
// texts are formatted here, once, with our own formatters: the baseline times only the
// builder's walk and escaping, which flatters it (it does no Edm formatting at all).
import type { EdmRecord, EdmValue } from '../odata/edm.js';
import type { ModelIndex } from '../odata/model-index.js';
import type { EntitySet } from '../odata/model.js';
import { isEdmPrimitiveType } from '../odata/model.js';
import { NS_ATOM, NS_DATA, NS_METADATA, NS_RELATED, NS_SCHEME } from '../odata/namespaces.js';
import { xmlFormatter } from '../odata/xml-values.js';

type Node = Record<string, unknown>;

/** XMLBuilder options the tree is shaped for (attributes as `@_name`, text as `#text`). */
export const BUILDER_OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  suppressEmptyNode: true,
} as const;

export function atomFeedTree(index: ModelIndex, set: EntitySet, records: readonly EdmRecord[], root: string): Node {
  const type = index.typeOfSet(set);
  // Formatters are not the baseline's job: the tree holds text, as XMLBuilder needs.
  const properties = type.properties.map((p) => {
    if (!isEdmPrimitiveType(p.type)) throw new Error(`${p.name}: the bench model has only primitive properties`);
    return { name: p.name, type: p.type, format: xmlFormatter(p.type, p.name, p.precision) };
  });
  const updated = '2026-01-05T08:00:00Z';
  const entries = records.map((record) => {
    const self = `${set.name}(${String(record.ID)})`;
    const values: Node = {};
    for (const p of properties) {
      const value = record[p.name] as EdmValue | undefined;
      values[`d:${p.name}`] =
        value === null || value === undefined
          ? { '@_m:type': p.type, '@_m:null': 'true' }
          : { '#text': p.format(value), '@_m:type': p.type };
    }
    return {
      id: root + self,
      title: { '#text': set.name, '@_type': 'text' },
      updated,
      category: { '@_term': type.fullName, '@_scheme': NS_SCHEME },
      link: [
        { '@_href': self, '@_rel': 'edit', '@_title': type.name },
        ...type.navigationProperties.map((nav) => ({
          '@_href': `${self}/${nav.name}`,
          '@_rel': NS_RELATED + nav.name,
          '@_title': nav.name,
          '@_type': `application/atom+xml;type=${nav.multiplicity === '*' ? 'feed' : 'entry'}`,
        })),
      ],
      content: { '@_type': 'application/xml', 'm:properties': values },
    };
  });
  return {
    '?xml': { '@_version': '1.0', '@_encoding': 'utf-8' },
    feed: {
      '@_xmlns': NS_ATOM,
      '@_xmlns:m': NS_METADATA,
      '@_xmlns:d': NS_DATA,
      '@_xml:base': root,
      id: root + set.name,
      title: { '#text': set.name, '@_type': 'text' },
      updated,
      author: { name: '' },
      link: { '@_href': set.name, '@_rel': 'self', '@_title': set.name },
      entry: entries,
    },
  };
}
