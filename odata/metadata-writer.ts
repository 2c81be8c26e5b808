// The `$metadata` document: EDMX 1.0 written from the Model, byte-stable (same model, same bytes),
// laid out as SAP Gateway and spec/timetracking.edmx do: one attribute order per element, two-space
// indentation, every annotation written back in the order the model holds it, and the SAP-style
// `atom:link rel="self"` as the last child of the Schema that holds the entity container.
import type {
  Annotations,
  Association,
  AssociationSet,
  ComplexType,
  EntitySet,
  EntityType,
  FunctionImport,
  FunctionImportParameter,
  Model,
  NavigationProperty,
  Property,
} from './model.js';
import { NS_ATOM, NS_EDM, NS_EDMX, NS_METADATA } from './namespaces.js';

export interface MetadataOptions {
  /** Absolute URL of this `$metadata` document, written as `atom:link rel="self"`. */
  readonly selfUrl?: string;
}

type Attr = readonly [name: string, value: string | number | boolean | undefined];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

function escapeAttribute(value: string): string {
  return value.replace(/[&<>"\t\n\r]/g, (c) => ESCAPES[c] ?? c);
}

/** ` Name="value"` for each defined attribute, then the annotations in model order. */
function attributes(attrs: readonly Attr[], annotations: Annotations = {}): string {
  let out = '';
  for (const [name, value] of attrs) {
    if (value !== undefined) out += ` ${name}="${escapeAttribute(String(value))}"`;
  }
  for (const [name, value] of Object.entries(annotations)) out += ` ${name}="${escapeAttribute(value)}"`;
  return out;
}

/** One element: self-closing when it has no children. */
function element(indent: string, name: string, attrs: string, children: readonly string[] = []): string {
  if (children.length === 0) return `${indent}<${name}${attrs}/>\n`;
  return `${indent}<${name}${attrs}>\n${children.join('')}${indent}</${name}>\n`;
}

function propertyRefs(indent: string, names: readonly string[]): string[] {
  return names.map((name) => element(indent, 'PropertyRef', attributes([['Name', name]])));
}

function property(indent: string, p: Property): string {
  return element(
    indent,
    'Property',
    attributes(
      [
        ['Name', p.name],
        ['Type', p.type],
        ['Nullable', p.nullable],
        ['DefaultValue', p.defaultValue],
        ['MaxLength', p.maxLength],
        ['FixedLength', p.fixedLength],
        ['Precision', p.precision],
        ['Scale', p.scale],
        ['Unicode', p.unicode],
        ['ConcurrencyMode', p.concurrencyMode],
      ],
      p.annotations,
    ),
  );
}

function navigation(indent: string, n: NavigationProperty): string {
  const attrs: Attr[] = [
    ['Name', n.name],
    ['Relationship', n.relationship],
    ['FromRole', n.fromRole],
    ['ToRole', n.toRole],
  ];
  return element(indent, 'NavigationProperty', attributes(attrs, n.annotations));
}

function entityType(indent: string, t: EntityType): string {
  const inner = `${indent}  `;
  return element(indent, 'EntityType', attributes([['Name', t.name], ['m:HasStream', t.hasStream || undefined]], t.annotations), [
    element(inner, 'Key', '', propertyRefs(`${inner}  `, t.key)),
    ...t.properties.map((p) => property(inner, p)),
    ...t.navigationProperties.map((n) => navigation(inner, n)),
  ]);
}

function complexType(indent: string, t: ComplexType): string {
  const props = t.properties.map((p) => property(`${indent}  `, p));
  return element(indent, 'ComplexType', attributes([['Name', t.name]], t.annotations), props);
}

function association(indent: string, a: Association): string {
  const inner = `${indent}  `;
  const ends = a.ends.map((end) => {
    const onDelete = end.onDelete ? [element(`${inner}  `, 'OnDelete', attributes([['Action', end.onDelete]]))] : [];
    const attrs: Attr[] = [
      ['Type', end.type],
      ['Multiplicity', end.multiplicity],
      ['Role', end.role],
    ];
    return element(inner, 'End', attributes(attrs), onDelete);
  });
  const rc = a.referentialConstraint;
  const constraint = rc
    ? [
        element(inner, 'ReferentialConstraint', '', [
          element(`${inner}  `, 'Principal', attributes([['Role', rc.principal.role]]), propertyRefs(`${inner}    `, rc.principal.properties)),
          element(`${inner}  `, 'Dependent', attributes([['Role', rc.dependent.role]]), propertyRefs(`${inner}    `, rc.dependent.properties)),
        ]),
      ]
    : [];
  return element(indent, 'Association', attributes([['Name', a.name]], a.annotations), [...ends, ...constraint]);
}

function entitySet(indent: string, s: EntitySet): string {
  return element(indent, 'EntitySet', attributes([['Name', s.name], ['EntityType', s.entityType]], s.annotations));
}

function associationSet(indent: string, s: AssociationSet): string {
  const ends = s.ends.map((end) =>
    element(`${indent}  `, 'End', attributes([['EntitySet', end.entitySet], ['Role', end.role]])),
  );
  return element(indent, 'AssociationSet', attributes([['Name', s.name], ['Association', s.association]], s.annotations), ends);
}

function parameter(indent: string, p: FunctionImportParameter): string {
  const attrs: Attr[] = [
    ['Name', p.name],
    ['Type', p.type],
    ['Mode', p.mode],
    ['MaxLength', p.maxLength],
    ['Nullable', p.nullable],
    ['Precision', p.precision],
    ['Scale', p.scale],
  ];
  return element(indent, 'Parameter', attributes(attrs));
}

function functionImport(indent: string, f: FunctionImport): string {
  const attrs: Attr[] = [
    ['Name', f.name],
    ['ReturnType', f.returnType],
    ['EntitySet', f.entitySet],
    ['m:HttpMethod', f.httpMethod],
  ];
  const params = f.parameters.map((p) => parameter(`${indent}  `, p));
  return element(indent, 'FunctionImport', attributes(attrs, f.annotations), params);
}

function container(indent: string, model: Model): string {
  const inner = `${indent}  `;
  const attrs: Attr[] = [
    ['Name', model.containerName],
    ['m:IsDefaultEntityContainer', true],
  ];
  return element(indent, 'EntityContainer', attributes(attrs), [
    ...model.entitySets.map((s) => entitySet(inner, s)),
    ...model.associationSets.map((s) => associationSet(inner, s)),
    ...model.functionImports.map((f) => functionImport(inner, f)),
  ]);
}

function selfLink(indent: string, selfUrl: string | undefined): string[] {
  if (selfUrl === undefined) return [];
  return [element(indent, 'atom:link', attributes([['rel', 'self'], ['href', selfUrl], ['xmlns:atom', NS_ATOM]]))];
}

function schema(indent: string, namespace: string, children: readonly string[]): string {
  return element(indent, 'Schema', attributes([['Namespace', namespace], ['xmlns', NS_EDM]]), children);
}

/** EDMX 1.0 text of the model; the same model always gives the same bytes. */
export function writeMetadata(model: Model, options: MetadataOptions = {}): string {
  const indent = '      ';
  const types = [
    ...model.entityTypes.map((t) => entityType(indent, t)),
    ...model.complexTypes.map((t) => complexType(indent, t)),
    ...model.associations.map((a) => association(indent, a)),
  ];
  const tail = [container(indent, model), ...selfLink(indent, options.selfUrl)];
  const schemas =
    model.namespace === model.containerNamespace
      ? [schema('    ', model.namespace, [...types, ...tail])]
      : [schema('    ', model.namespace, types), schema('    ', model.containerNamespace, tail)];
  const namespaces: Attr[] = [
    ['Version', '1.0'],
    ['xmlns:edmx', NS_EDMX],
    ['xmlns:m', NS_METADATA],
    ...Object.entries(model.annotationNamespaces)
      .filter(([prefix]) => prefix !== 'edmx' && prefix !== 'm' && prefix !== '')
      .map(([prefix, uri]): Attr => [`xmlns:${prefix}`, uri]),
  ];
  const dataServices = element('  ', 'edmx:DataServices', attributes([['m:DataServiceVersion', model.dataServiceVersion]]), schemas);
  return `<?xml version="1.0" encoding="utf-8"?>\n${element('', 'edmx:Edmx', attributes(namespaces), [dataServices])}`;
}
