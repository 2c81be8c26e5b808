// The AtomPub service document (GET on the service root), as Olingo V2's
// AtomServiceDocumentProducer writes it: AtomPub as the default namespace, one workspace titled
// "Default", one collection per entity set in container order:
//   <service xml:base="root" xmlns="http://www.w3.org/2007/app" xmlns:atom="http://www.w3.org/2005/Atom">
//     <workspace><atom:title>Default</atom:title>
//       <collection href="Projects"><atom:title>Projects</atom:title></collection>…
import type { Model } from './model.js';
import { NS_APP, NS_ATOM } from './namespaces.js';
import { XML_DECLARATION } from './atom-writer.js';
import { escapeXmlAttribute, escapeXmlText } from './xml-escape.js';

/** A writer of the service document of `model`, compiled once; the root varies per request. */
export function createServiceDocumentWriter(model: Model): (serviceRoot: string) => string {
  let body = '<workspace><atom:title>Default</atom:title>';
  for (const set of model.entitySets) {
    const href = escapeXmlAttribute(encodeURIComponent(set.name));
    body += `<collection href="${href}"><atom:title>${escapeXmlText(set.name)}</atom:title></collection>`;
  }
  body += '</workspace></service>';
  return (serviceRoot) =>
    `${XML_DECLARATION}<service xml:base="${escapeXmlAttribute(serviceRoot)}" xmlns="${NS_APP}" xmlns:atom="${NS_ATOM}">${body}`;
}

export function writeServiceDocument(model: Model, serviceRoot: string): string {
  return createServiceDocumentWriter(model)(serviceRoot);
}
