// Typed, strict reading of one EDMX element's attributes. Every refusal names the element
// (`where`) and the attribute, so a user can find the line to fix.
import type { Annotations } from '../odata/model.js';
import type { ReadProblems } from './edmx-problems.js';
import { EdmxError } from './errors.js';
import { XMLNS_URI, type XmlAttribute, type XmlElement } from './xml-tree.js';

export const EDMX_URI = 'http://schemas.microsoft.com/ado/2007/06/edmx';
export const METADATA_URI = 'http://schemas.microsoft.com/ado/2007/08/dataservices/metadata';
export const SAP_URI = 'http://www.sap.com/Protocols/SAPData';
export const TIMEGATE_URI = 'urn:timegate:annotations:v1';
/** CSDL 1.0, 1.1 and 2.0: what OData V1/V2 services publish. 2009/11 (CSDL 3.0) is OData V3. */
export const EDM_URIS: readonly string[] = [
  'http://schemas.microsoft.com/ado/2006/04/edm',
  'http://schemas.microsoft.com/ado/2007/05/edm',
  'http://schemas.microsoft.com/ado/2008/09/edm',
];

/** Collects the prefix -> URI bindings of every annotation read, over the whole document. */
export class AnnotationNamespaces {
  readonly byPrefix: Record<string, string> = {};

  add(attribute: XmlAttribute, where: string): void {
    const prefix = attribute.prefix ?? '';
    const known = this.byPrefix[prefix];
    if (known !== undefined && known !== attribute.ns) {
      throw new EdmxError('EDMX_NAMESPACE', `${where}: prefix "${prefix}" is bound to both ${known} and ${String(attribute.ns)}`);
    }
    this.byPrefix[prefix] = attribute.ns ?? '';
  }
}

function isAnnotation(attribute: XmlAttribute): boolean {
  const { ns } = attribute;
  return ns !== undefined && ns !== XMLNS_URI && ns !== METADATA_URI && ns !== EDMX_URI && !EDM_URIS.includes(ns);
}

export class Attributes {
  constructor(
    readonly element: XmlElement,
    readonly where: string,
  ) {}

  /** An unprefixed (EDM) attribute. */
  get(name: string): string | undefined {
    return this.element.attributes.find((a) => a.ns === undefined && a.local === name)?.value;
  }

  /** An attribute of another namespace, found by URI whatever prefix the document uses. */
  foreign(ns: string, name: string): string | undefined {
    return this.element.attributes.find((a) => a.ns === ns && a.local === name)?.value;
  }

  required(name: string): string {
    const value = this.get(name);
    if (value === undefined || value === '') {
      throw new EdmxError('EDMX_MISSING_ATTRIBUTE', `${this.where}: attribute ${name} is required`);
    }
    return value;
  }

  /** A CSDL SimpleIdentifier (used for names and roles). */
  identifier(name: string): string {
    const value = this.required(name);
    if (!/^[\p{L}_][\p{L}\p{Nd}_]*$/u.test(value)) {
      throw new EdmxError('EDMX_BAD_VALUE', `${this.where}: ${name}="${value}" is not a valid identifier`);
    }
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    return parseBoolean(this.get(name), name, fallback, this.where);
  }

  foreignBoolean(ns: string, name: string, qname: string, fallback: boolean): boolean {
    return parseBoolean(this.foreign(ns, name), qname, fallback, this.where);
  }

  /** A non-negative integer facet. */
  integer(name: string): number | undefined {
    const value = this.get(name);
    if (value === undefined) return undefined;
    if (!/^[0-9]+$/.test(value)) {
      throw new EdmxError('EDMX_BAD_VALUE', `${this.where}: ${name}="${value}" is not a non-negative integer`);
    }
    return Number(value);
  }

  /** One of a fixed set of values, or undefined when absent. */
  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.get(name);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) {
      throw new EdmxError('EDMX_BAD_VALUE', `${this.where}: ${name}="${value}" must be one of ${allowed.join(', ')}`);
    }
    return value as T;
  }

  requiredOneOf<T extends string>(name: string, allowed: readonly T[]): T {
    this.required(name);
    return this.oneOf(name, allowed) as T;
  }

  /** Refuses EDM attributes this reader does not support rather than silently dropping their meaning. */
  refuse(names: readonly string[]): void {
    for (const name of names) {
      if (this.get(name) === undefined) continue;
      if (name === 'Alias') throw new EdmxError('EDMX_ALIAS', `${this.where}: Alias is not allowed, use full type names`);
      throw new EdmxError('EDMX_UNSUPPORTED', `${this.where}: attribute ${name} is not supported`);
    }
  }

  /** Foreign (`sap:`, `tg:`, ...) attributes in document order, keyed by their qualified name. */
  annotations(namespaces: AnnotationNamespaces): Annotations {
    const result: Record<string, string> = {};
    for (const attribute of this.element.attributes) {
      if (!isAnnotation(attribute)) continue;
      // Annotation booleans follow the XML Schema rule too: `True` is a typo a client may not forgive.
      if (/^(true|false)$/i.test(attribute.value) && !/^(true|false)$/.test(attribute.value)) {
        throw new EdmxError('EDMX_BOOLEAN', `${this.where}: ${attribute.qname}="${attribute.value}" must be lowercase true or false`);
      }
      namespaces.add(attribute, this.where);
      result[attribute.qname] = attribute.value;
    }
    return result;
  }
}

function parseBoolean(value: string | undefined, name: string, fallback: boolean, where: string): boolean {
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new EdmxError('EDMX_BOOLEAN', `${where}: ${name}="${value}" must be lowercase true or false`);
}

/**
 * Children in an EDM namespace; Documentation and foreign (annotation) elements are skipped. Any
 * other is refused, or, given `problems`, recorded as a problem and skipped.
 */
export function edmChildren(element: XmlElement, where: string, allowed: readonly string[], problems?: ReadProblems): XmlElement[] {
  const result: XmlElement[] = [];
  const unsupported = (child: XmlElement): void => {
    const error = new EdmxError('EDMX_UNSUPPORTED', `${where}: element <${child.qname}> is not supported here`);
    if (problems === undefined) throw error;
    const name = child.attributes.find((a) => a.ns === undefined && a.local === 'Name')?.value;
    problems.problem(error, `skipped <${child.qname}${name === undefined ? '' : ` Name="${name}"`}> in ${where}`);
  };
  for (const child of element.children) {
    if (child.ns === undefined || !EDM_URIS.includes(child.ns)) {
      if (child.ns === element.ns) unsupported(child);
      continue;
    }
    if (child.local === 'Documentation') continue;
    if (!allowed.includes(child.local)) {
      unsupported(child);
      continue;
    }
    result.push(child);
  }
  return result;
}
