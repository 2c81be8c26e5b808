// EDMX 1.0 (OData V1/V2 CSDL) -> Model. Strict on purpose: what we accept must also load in
// standard V2 clients, and whatever we would have to guess about is refused with a one-line reason.
import type {
  Association,
  AssociationEnd,
  AssociationSet,
  ComplexType,
  EntitySet,
  EntityType,
  FunctionImport,
  Model,
  NavigationProperty,
  ReferentialConstraint,
  RestOperation,
} from '../odata/model.js';
import { isEdmPrimitiveType } from '../odata/model.js';
import {
  AnnotationNamespaces,
  Attributes,
  EDM_URIS,
  EDMX_URI,
  METADATA_URI,
  SAP_URI,
  TIMEGATE_URI,
  edmChildren,
} from './edmx-attributes.js';
import { readParameter, readProperty } from './edmx-properties.js';
import { checkUnique, validateModel } from './edmx-validate.js';
import { ReadProblems, pruneDangling } from './edmx-problems.js';
import { EdmxError } from './errors.js';
import { toKebabCase, toRestName, toRestPath } from './naming.js';
import { parseXml, type XmlElement } from './xml-tree.js';

const MULTIPLICITIES = ['1', '0..1', '*'] as const;

interface Schema {
  readonly namespace: string;
  readonly element: XmlElement;
}

export interface ReadOptions {
  /** Skip or map what is not supported, one warning each, instead of failing (codegen --lenient). */
  readonly lenient?: boolean;
}

export interface EdmxReading {
  readonly model: Model;
  /** Lenient reading: one line per construct skipped or mapped. */
  readonly warnings: readonly string[];
}

/** Parses and checks an EDMX document; throws EdmxError naming every problem found. */
export function readEdmx(xml: string): Model {
  return readEdmxWithWarnings(xml).model;
}

/**
 * Parses and checks an EDMX document. Strict (the default): throws EdmxError naming every problem
 * found. Lenient: skips or maps what it does not support and says so in `warnings`; throws only
 * when no model is left to speak of (not EDMX at all, no container, name clashes).
 */
export function readEdmxWithWarnings(xml: string, options: ReadOptions = {}): EdmxReading {
  const problems = new ReadProblems(options.lenient === true);
  const root = parseXml(xml);
  const { dataServices, dataServiceVersion } = readEnvelope(root);
  const schemas = readSchemas(dataServices, problems);
  const namespaces = new AnnotationNamespaces();
  const read = <T>(construct: (element: XmlElement) => string, reader: (element: XmlElement) => T) =>
    (element: XmlElement): T[] => {
      const value = problems.attempt(construct(element), () => reader(element));
      return value === undefined ? [] : [value];
    };
  const named = (kind: string, schema?: Schema) => (element: XmlElement): string => {
    const name = element.attributes.find((a) => a.ns === undefined && a.local === 'Name')?.value ?? '(no Name)';
    return `${kind} ${schema === undefined ? '' : `${schema.namespace}.`}${name}`;
  };

  const schemaMembers = schemas.flatMap((schema) =>
    edmChildren(schema.element, `Schema ${schema.namespace}`, ['EntityType', 'ComplexType', 'Association', 'EntityContainer'], problems)
      .map((element) => ({ schema, element })));
  const members = (local: string): { schema: Schema; element: XmlElement }[] => schemaMembers.filter(({ element }) => element.local === local);

  const associations = members('Association').flatMap(({ schema, element }) =>
    read(named('Association', schema), (e) => readAssociation(e, schema.namespace, namespaces, problems))(element));
  // Navigation properties are resolved through this map, so duplicates must be caught first.
  checkUnique(associations.map((a) => a.fullName), (name) => `Association ${name}`);
  const byFullName = new Map(associations.map((a) => [a.fullName, a]));
  const entityTypes = members('EntityType').flatMap(({ schema, element }) =>
    read(named('EntityType', schema), (e) => readEntityType(e, schema.namespace, byFullName, namespaces, problems))(element));
  const complexTypes = members('ComplexType').flatMap(({ schema, element }) =>
    read(named('ComplexType', schema), (e) => readComplexType(e, schema.namespace, namespaces, problems))(element));

  const container = chooseContainer(members('EntityContainer'), problems);
  const typeNamespaces = new Set([...entityTypes, ...complexTypes, ...associations].map((t) => t.fullName.slice(0, t.fullName.lastIndexOf('.'))));
  if (typeNamespaces.size > 1) {
    throw new EdmxError('EDMX_UNSUPPORTED', `types declared in more than one Schema (${[...typeNamespaces].join(', ')}) are not supported`);
  }
  const containerAttrs = new Attributes(container.element, 'EntityContainer');
  const containerName = containerAttrs.identifier('Name');
  const where = `EntityContainer ${containerName}`;
  new Attributes(container.element, where).foreignBoolean(METADATA_URI, 'IsDefaultEntityContainer', 'm:IsDefaultEntityContainer', true);
  const parts = edmChildren(container.element, where, ['EntitySet', 'AssociationSet', 'FunctionImport'], problems);
  const of = <T>(local: string, reader: (element: XmlElement) => T): T[] =>
    parts.filter((element) => element.local === local).flatMap(read(named(local), reader));

  const readModel: Model = {
    namespace: [...typeNamespaces][0] ?? container.schema.namespace,
    containerNamespace: container.schema.namespace,
    containerName,
    dataServiceVersion,
    entityTypes,
    complexTypes,
    associations,
    entitySets: of('EntitySet', (element) => readEntitySet(element, namespaces)),
    associationSets: of('AssociationSet', (element) => readAssociationSet(element, namespaces, problems)),
    functionImports: of('FunctionImport', (element) => readFunctionImport(element, namespaces, problems)),
    annotationNamespaces: namespaces.byPrefix,
  };
  // Strict: what is wrong so far is reported at once; cross-references are checked on a model
  // whose constructs all read (a skipped one would make others dangle).
  problems.throwIfAny();
  const model = problems.lenient ? pruneDangling(readModel, problems) : readModel;
  validateModel(model);
  return { model, warnings: problems.warnings };
}

/**
 * The one EntityContainer. Lenient: of several, the default one (m:IsDefaultEntityContainer),
 * else the first; the others are skipped.
 */
function chooseContainer(containers: readonly { schema: Schema; element: XmlElement }[], problems: ReadProblems): { schema: Schema; element: XmlElement } {
  const [first] = containers;
  if (!first) throw new EdmxError('EDMX_NO_CONTAINER', 'no EntityContainer: the EDMX declares no entity sets');
  if (containers.length === 1) return first;
  const chosen = containers.find(({ element }) => element.attributes.some((a) => a.ns === METADATA_URI && a.local === 'IsDefaultEntityContainer' && a.value === 'true')) ?? first;
  const nameOf = (element: XmlElement) => element.attributes.find((a) => a.ns === undefined && a.local === 'Name')?.value ?? '(no Name)';
  for (const other of containers) {
    if (other === chosen) continue;
    problems.problem(
      new EdmxError('EDMX_UNSUPPORTED', 'more than one EntityContainer is not supported'),
      `skipped EntityContainer ${nameOf(other.element)} (generating ${nameOf(chosen.element)})`,
    );
  }
  return chosen;
}

function readEnvelope(root: XmlElement): { dataServices: XmlElement; dataServiceVersion: string } {
  if (root.local !== 'Edmx' || root.ns !== EDMX_URI) {
    throw new EdmxError('EDMX_NAMESPACE', `root element <${root.qname}> must be Edmx in namespace ${EDMX_URI} (found ${root.ns ?? 'no namespace'})`);
  }
  const version = new Attributes(root, 'edmx:Edmx').get('Version');
  if (version !== '1.0') throw new EdmxError('EDMX_VERSION', `edmx:Edmx Version="${version ?? ''}" must be 1.0 (OData V2)`);
  const found = root.children.filter((child) => child.ns === EDMX_URI);
  const dataServices = found.find((child) => child.local === 'DataServices');
  const other = found.find((child) => child.local !== 'DataServices');
  if (other) throw new EdmxError('EDMX_UNSUPPORTED', `edmx:Edmx: element <${other.qname}> is not supported`);
  if (!dataServices || found.length > 1) throw new EdmxError('EDMX_NO_SCHEMA', 'edmx:Edmx must contain exactly one edmx:DataServices');
  const dataServiceVersion = new Attributes(dataServices, 'edmx:DataServices').foreign(METADATA_URI, 'DataServiceVersion');
  if (dataServiceVersion !== '1.0' && dataServiceVersion !== '2.0') {
    throw new EdmxError('EDMX_VERSION', `edmx:DataServices m:DataServiceVersion="${dataServiceVersion ?? ''}" must be 1.0 or 2.0`);
  }
  return { dataServices, dataServiceVersion };
}

function readSchemas(dataServices: XmlElement, problems: ReadProblems): Schema[] {
  const schemas: Schema[] = [];
  for (const element of dataServices.children) {
    if (element.local !== 'Schema') {
      if (element.ns === EDMX_URI || (element.ns !== undefined && EDM_URIS.includes(element.ns))) {
        throw new EdmxError('EDMX_UNSUPPORTED', `edmx:DataServices: element <${element.qname}> is not supported`);
      }
      continue;
    }
    if (element.ns === undefined || !EDM_URIS.includes(element.ns)) {
      throw new EdmxError('EDMX_NAMESPACE', `Schema in namespace ${element.ns ?? '(none)'}: expected one of ${EDM_URIS.join(', ')}`);
    }
    const attrs = new Attributes(element, 'Schema');
    // Names are read in full, so an alias is never needed; lenient reading ignores it.
    if (attrs.get('Alias') !== undefined) {
      problems.problem(new EdmxError('EDMX_ALIAS', 'Schema: attribute Alias is not supported'), `ignored Alias="${attrs.get('Alias') ?? ''}" of Schema ${attrs.get('Namespace') ?? ''}`);
    }
    const namespace = attrs.required('Namespace');
    if (!/^[\p{L}_][\p{L}\p{Nd}_]*(\.[\p{L}_][\p{L}\p{Nd}_]*)*$/u.test(namespace)) {
      throw new EdmxError('EDMX_BAD_VALUE', `Schema: Namespace="${namespace}" is not a valid namespace name`);
    }
    schemas.push({ namespace, element });
  }
  if (schemas.length === 0) throw new EdmxError('EDMX_NO_SCHEMA', 'edmx:DataServices contains no Schema');
  return schemas;
}

function readAssociation(element: XmlElement, namespace: string, namespaces: AnnotationNamespaces, problems: ReadProblems): Association {
  const name = new Attributes(element, 'Association').identifier('Name');
  const where = `Association ${namespace}.${name}`;
  const attrs = new Attributes(element, where);
  const children = edmChildren(element, where, ['End', 'ReferentialConstraint'], problems);
  const ends = children.filter((child) => child.local === 'End').map((end): AssociationEnd => {
    const endAttrs = new Attributes(end, `${where} End`);
    const onDelete = edmChildren(end, `${where} End`, ['OnDelete'])[0];
    const action = onDelete && new Attributes(onDelete, `${where} End OnDelete`).oneOf('Action', ['Cascade', 'None']);
    const role = endAttrs.identifier('Role');
    const type = endAttrs.required('Type');
    const multiplicity = endAttrs.requiredOneOf('Multiplicity', MULTIPLICITIES);
    return {
      role,
      type,
      multiplicity,
      ...(action ? { onDelete: action } : {}),
    };
  });
  const [first, second] = ends;
  if (!first || !second || ends.length !== 2) throw new EdmxError('EDMX_BAD_VALUE', `${where}: must have exactly two End elements`);
  if (first.role === second.role) throw new EdmxError('EDMX_DUPLICATE_NAME', `${where}: both ends have Role "${first.role}"`);
  const constraints = children.filter((child) => child.local === 'ReferentialConstraint');
  if (constraints.length > 1) throw new EdmxError('EDMX_BAD_VALUE', `${where}: more than one ReferentialConstraint`);
  const constraint = constraints[0] && readConstraint(constraints[0], `${where} ReferentialConstraint`, [first.role, second.role]);
  return {
    name,
    fullName: `${namespace}.${name}`,
    ends: [first, second],
    ...(constraint ? { referentialConstraint: constraint } : {}),
    annotations: attrs.annotations(namespaces),
  };
}

function readConstraint(element: XmlElement, where: string, roles: readonly string[]): ReferentialConstraint {
  const side = (local: 'Principal' | 'Dependent'): { role: string; properties: string[] } => {
    const found = edmChildren(element, where, ['Principal', 'Dependent']).filter((child) => child.local === local);
    const [end] = found;
    if (!end || found.length > 1) throw new EdmxError('EDMX_BAD_VALUE', `${where}: must have exactly one ${local}`);
    const role = new Attributes(end, `${where} ${local}`).identifier('Role');
    if (!roles.includes(role)) throw new EdmxError('EDMX_UNKNOWN_ROLE', `${where} ${local}: Role "${role}" is not an end of the association`);
    const properties = edmChildren(end, `${where} ${local}`, ['PropertyRef']).map((ref) => new Attributes(ref, `${where} ${local} PropertyRef`).identifier('Name'));
    if (properties.length === 0) throw new EdmxError('EDMX_BAD_VALUE', `${where} ${local}: no PropertyRef`);
    return { role, properties };
  };
  const principal = side('Principal');
  const dependent = side('Dependent');
  if (principal.role === dependent.role) throw new EdmxError('EDMX_UNKNOWN_ROLE', `${where}: Principal and Dependent have the same Role "${principal.role}"`);
  if (principal.properties.length !== dependent.properties.length) {
    throw new EdmxError('EDMX_BAD_VALUE', `${where}: Principal and Dependent name different numbers of properties`);
  }
  return { principal, dependent };
}

function readEntityType(
  element: XmlElement,
  namespace: string,
  associations: ReadonlyMap<string, Association>,
  namespaces: AnnotationNamespaces,
  problems: ReadProblems,
): EntityType {
  const name = new Attributes(element, 'EntityType').identifier('Name');
  const fullName = `${namespace}.${name}`;
  const where = `EntityType ${fullName}`;
  const attrs = new Attributes(element, where);
  attrs.refuse(['BaseType', 'OpenType']);
  if (attrs.boolean('Abstract', false)) throw new EdmxError('EDMX_UNSUPPORTED', `${where}: Abstract="true" is not supported`);
  const children = edmChildren(element, where, ['Key', 'Property', 'NavigationProperty'], problems);
  const member = (kind: string) => (c: XmlElement) => `${kind} ${fullName}/${c.attributes.find((a) => a.ns === undefined && a.local === 'Name')?.value ?? '(no Name)'}`;
  const properties = children.filter((c) => c.local === 'Property')
    .flatMap((c) => problems.attempt(member('Property')(c), () => readProperty(c, fullName, namespaces)) ?? []);
  const navigationProperties = children
    .filter((c) => c.local === 'NavigationProperty')
    .flatMap((c) => {
      const relationship = c.attributes.find((a) => a.ns === undefined && a.local === 'Relationship')?.value ?? '';
      if (problems.followsFailed(member('NavigationProperty')(c), `Association ${relationship}`)) return [];
      return problems.attempt(member('NavigationProperty')(c), () => readNavigation(c, fullName, associations, namespaces)) ?? [];
    });
  const keys = children.filter((c) => c.local === 'Key');
  const [keyElement] = keys;
  if (!keyElement) throw new EdmxError('EDMX_MISSING_KEY', `${where}: no Key element`);
  if (keys.length > 1) throw new EdmxError('EDMX_MISSING_KEY', `${where}: more than one Key element`);
  const key = edmChildren(keyElement, `${where} Key`, ['PropertyRef'], problems).map((ref) => new Attributes(ref, `${where} Key PropertyRef`).identifier('Name'));
  if (key.length === 0) throw new EdmxError('EDMX_MISSING_KEY', `${where}: Key has no PropertyRef`);
  for (const [index, keyName] of key.entries()) {
    if (key.indexOf(keyName) !== index) throw new EdmxError('EDMX_DUPLICATE_NAME', `${where}: key property ${keyName} is listed twice`);
    const property = properties.find((p) => p.name === keyName);
    if (!property) throw new EdmxError('EDMX_KEY_PROPERTY', `${where}: key property ${keyName} is not a declared Property`);
    if (!isEdmPrimitiveType(property.type)) throw new EdmxError('EDMX_KEY_PROPERTY', `${where}: key property ${keyName} must have a primitive type`);
    if (property.nullable) {
      // SAP services leave Nullable out of keys: a key is never null, whatever the document says.
      problems.problem(
        new EdmxError('EDMX_KEY_PROPERTY', `${where}: key property ${keyName} must be Nullable="false"`),
        `read key property ${fullName}/${keyName} as Nullable="false"`,
      );
    }
  }
  return {
    name,
    fullName,
    key,
    properties: properties.map((property) => (key.includes(property.name) && property.nullable ? { ...property, nullable: false } : property)),
    navigationProperties,
    hasStream: attrs.foreignBoolean(METADATA_URI, 'HasStream', 'm:HasStream', false),
    annotations: attrs.annotations(namespaces),
  };
}

function readNavigation(
  element: XmlElement,
  owner: string,
  associations: ReadonlyMap<string, Association>,
  namespaces: AnnotationNamespaces,
): NavigationProperty {
  const name = new Attributes(element, `NavigationProperty of ${owner}`).identifier('Name');
  const where = `NavigationProperty ${owner}/${name}`;
  const attrs = new Attributes(element, where);
  const relationship = attrs.required('Relationship');
  const fromRole = attrs.identifier('FromRole');
  const toRole = attrs.identifier('ToRole');
  const association = associations.get(relationship);
  if (!association) throw new EdmxError('EDMX_DANGLING_RELATIONSHIP', `${where}: Relationship "${relationship}" is not a declared Association`);
  const end = (role: string, attribute: string): AssociationEnd => {
    const found = association.ends.find((e) => e.role === role);
    if (!found) throw new EdmxError('EDMX_UNKNOWN_ROLE', `${where}: ${attribute}="${role}" is not a role of Association ${relationship}`);
    return found;
  };
  const to = end(toRole, 'ToRole');
  if (fromRole === toRole) throw new EdmxError('EDMX_UNKNOWN_ROLE', `${where}: FromRole and ToRole are both "${fromRole}"`);
  // That the FromRole end is this type is checked with the other references, in validateModel.
  end(fromRole, 'FromRole');
  return {
    name,
    restName: toRestName(name),
    relationship,
    fromRole,
    toRole,
    targetType: to.type,
    multiplicity: to.multiplicity,
    annotations: attrs.annotations(namespaces),
  };
}

function readComplexType(element: XmlElement, namespace: string, namespaces: AnnotationNamespaces, problems: ReadProblems): ComplexType {
  const name = new Attributes(element, 'ComplexType').identifier('Name');
  const fullName = `${namespace}.${name}`;
  const where = `ComplexType ${fullName}`;
  const attrs = new Attributes(element, where);
  attrs.refuse(['BaseType']);
  const properties = edmChildren(element, where, ['Property'], problems).flatMap((c) =>
    problems.attempt(`Property ${fullName}/${c.attributes.find((a) => a.ns === undefined && a.local === 'Name')?.value ?? '(no Name)'}`, () => readProperty(c, fullName, namespaces)) ?? []);
  return { name, fullName, properties, annotations: attrs.annotations(namespaces) };
}

function readEntitySet(element: XmlElement, namespaces: AnnotationNamespaces): EntitySet {
  const name = new Attributes(element, 'EntitySet').identifier('Name');
  const attrs = new Attributes(element, `EntitySet ${name}`);
  const sapBoolean = (local: string): boolean => attrs.foreignBoolean(SAP_URI, local, `sap:${local}`, true);
  return {
    name,
    restPath: toRestPath(name),
    entityType: attrs.required('EntityType'),
    capabilities: {
      creatable: sapBoolean('creatable'),
      updatable: sapBoolean('updatable'),
      deletable: sapBoolean('deletable'),
      pageable: sapBoolean('pageable'),
      addressable: sapBoolean('addressable'),
    },
    annotations: attrs.annotations(namespaces),
  };
}

function readAssociationSet(element: XmlElement, namespaces: AnnotationNamespaces, problems: ReadProblems): AssociationSet {
  const name = new Attributes(element, 'AssociationSet').identifier('Name');
  const where = `AssociationSet ${name}`;
  const attrs = new Attributes(element, where);
  const ends = edmChildren(element, where, ['End'], problems).map((end) => {
    const endAttrs = new Attributes(end, `${where} End`);
    return { role: endAttrs.identifier('Role'), entitySet: endAttrs.identifier('EntitySet') };
  });
  const [first, second] = ends;
  if (!first || !second || ends.length !== 2) throw new EdmxError('EDMX_BAD_VALUE', `${where}: must have exactly two End elements`);
  return { name, association: attrs.required('Association'), ends: [first, second], annotations: attrs.annotations(namespaces) };
}

const REST_OPERATION = /^(GET|POST|PUT|PATCH|DELETE) (\/[a-z0-9]+(?:-[a-z0-9]+)*(?:\/[a-z0-9]+(?:-[a-z0-9]+)*)*)$/;

function readFunctionImport(element: XmlElement, namespaces: AnnotationNamespaces, problems: ReadProblems): FunctionImport {
  const name = new Attributes(element, 'FunctionImport').identifier('Name');
  const where = `FunctionImport ${name}`;
  const attrs = new Attributes(element, where);
  attrs.refuse(['IsComposable', 'IsSideEffecting', 'IsBindable']);
  const method = attrs.foreign(METADATA_URI, 'HttpMethod') ?? 'GET';
  if (method !== 'GET' && method !== 'POST') {
    throw new EdmxError('EDMX_BAD_VALUE', `${where}: m:HttpMethod="${method}" must be GET or POST`);
  }
  const restText = attrs.foreign(TIMEGATE_URI, 'rest');
  let rest: RestOperation = { method, path: `/${toKebabCase(name)}` };
  if (restText !== undefined) {
    const match = REST_OPERATION.exec(restText);
    if (!match?.[1] || !match[2]) {
      throw new EdmxError('EDMX_BAD_VALUE', `${where}: tg:rest="${restText}" must be "<METHOD> /kebab-case/path"`);
    }
    rest = { method: match[1] as RestOperation['method'], path: match[2] };
  }
  const returnType = attrs.get('ReturnType');
  const entitySet = attrs.get('EntitySet');
  return {
    name,
    restName: toRestName(name),
    rest,
    ...(returnType === undefined ? {} : { returnType }),
    ...(entitySet === undefined ? {} : { entitySet }),
    httpMethod: method,
    parameters: edmChildren(element, where, ['Parameter'], problems).map((p) => readParameter(p, name, namespaces)),
    annotations: attrs.annotations(namespaces),
  };
}
