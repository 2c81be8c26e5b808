// Reading of Property and function-import Parameter elements: their facets are the same
// (MaxLength, Precision, Scale, Nullable) and so are the refusals.
import type { FunctionImportParameter, Property } from '../odata/model.js';
import { isEdmPrimitiveType } from '../odata/model.js';
import type { AnnotationNamespaces} from './edmx-attributes.js';
import { Attributes, SAP_URI, TIMEGATE_URI } from './edmx-attributes.js';
import { EdmxError } from './errors.js';
import { toRestName } from './naming.js';
import type { XmlElement } from './xml-tree.js';

const INTEGER_TYPES = new Set(['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64']);
const ENUM_MEMBERS = /^[A-Za-z_][A-Za-z0-9_]*=-?[0-9]+(,[A-Za-z_][A-Za-z0-9_]*=-?[0-9]+)*$/;

interface Facets {
  maxLength?: number | 'Max';
  precision?: number;
  scale?: number;
}

function readFacets(attrs: Attributes): Facets {
  const facets: Facets = {};
  const maxLength = attrs.get('MaxLength');
  if (maxLength === 'Max') facets.maxLength = 'Max';
  else if (maxLength !== undefined) {
    const length = attrs.integer('MaxLength');
    if (length === 0) throw new EdmxError('EDMX_BAD_VALUE', `${attrs.where}: MaxLength="0" must be positive or Max`);
    facets.maxLength = length;
  }
  const precision = attrs.integer('Precision');
  const scale = attrs.integer('Scale');
  if (scale !== undefined && precision === undefined) {
    throw new EdmxError('EDMX_SCALE_WITHOUT_PRECISION', `${attrs.where}: Scale="${scale}" requires a Precision attribute`);
  }
  if (scale !== undefined && precision !== undefined && scale > precision) {
    throw new EdmxError('EDMX_BAD_VALUE', `${attrs.where}: Scale="${scale}" is larger than Precision="${precision}"`);
  }
  if (precision !== undefined) facets.precision = precision;
  if (scale !== undefined) facets.scale = scale;
  return facets;
}

function checkDefaultValue(attrs: Attributes, type: string, value: string): void {
  const ok =
    type === 'Edm.Boolean' ? /^(true|false)$/.test(value)
    : INTEGER_TYPES.has(type) ? /^-?[0-9]+$/.test(value)
    : type === 'Edm.Decimal' || type === 'Edm.Double' || type === 'Edm.Single' ? /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(value)
    : true;
  if (!ok) {
    const code = type === 'Edm.Boolean' ? 'EDMX_BOOLEAN' : 'EDMX_BAD_VALUE';
    throw new EdmxError(code, `${attrs.where}: DefaultValue="${value}" is not a valid ${type} literal`);
  }
}

/** Checks the values of our own `tg:` annotations, which the emitters rely on. */
function checkTimegateAnnotations(attrs: Attributes): void {
  attrs.foreignBoolean(TIMEGATE_URI, 'server-default', 'tg:server-default', false);
  const members = attrs.foreign(TIMEGATE_URI, 'enum');
  if (members !== undefined && !ENUM_MEMBERS.test(members)) {
    throw new EdmxError('EDMX_BAD_VALUE', `${attrs.where}: tg:enum="${members}" must be Name=number pairs separated by commas`);
  }
}

/** A Property of an entity or complex type; `owner` is the type's full name. */
export function readProperty(element: XmlElement, owner: string, namespaces: AnnotationNamespaces): Property {
  const name = new Attributes(element, `Property of ${owner}`).identifier('Name');
  const attrs = new Attributes(element, `Property ${owner}/${name}`);
  const type = attrs.required('Type');
  const defaultValue = attrs.get('DefaultValue');
  if (defaultValue !== undefined) checkDefaultValue(attrs, type, defaultValue);
  const fixedLength = attrs.get('FixedLength') === undefined ? undefined : attrs.boolean('FixedLength', false);
  const unicode = attrs.get('Unicode') === undefined ? undefined : attrs.boolean('Unicode', true);
  const concurrencyMode = attrs.oneOf('ConcurrencyMode', ['None', 'Fixed']);
  const label = attrs.foreign(SAP_URI, 'label');
  checkTimegateAnnotations(attrs);
  const sapBoolean = (local: string): boolean => attrs.foreignBoolean(SAP_URI, local, `sap:${local}`, true);
  return {
    name,
    restName: toRestName(name),
    type,
    nullable: attrs.boolean('Nullable', true),
    ...readFacets(attrs),
    ...(fixedLength === undefined ? {} : { fixedLength }),
    ...(unicode === undefined ? {} : { unicode }),
    ...(defaultValue === undefined ? {} : { defaultValue }),
    ...(concurrencyMode === 'Fixed' ? { concurrencyMode } : {}),
    ...(label === undefined ? {} : { label }),
    capabilities: {
      creatable: sapBoolean('creatable'),
      updatable: sapBoolean('updatable'),
      filterable: sapBoolean('filterable'),
      sortable: sapBoolean('sortable'),
    },
    annotations: attrs.annotations(namespaces),
  };
}

/** A Parameter of a function import; V2 only has primitive `In` parameters. */
export function readParameter(element: XmlElement, owner: string, namespaces: AnnotationNamespaces): FunctionImportParameter {
  const name = new Attributes(element, `Parameter of FunctionImport ${owner}`).identifier('Name');
  const attrs = new Attributes(element, `Parameter ${owner}/${name}`);
  const type = attrs.required('Type');
  if (!isEdmPrimitiveType(type)) {
    throw new EdmxError('EDMX_UNKNOWN_TYPE', `${attrs.where}: Type="${type}" is not an Edm primitive type`);
  }
  attrs.oneOf('Mode', ['In']);
  attrs.annotations(namespaces);
  return {
    name,
    restName: toRestName(name),
    type,
    nullable: attrs.boolean('Nullable', true),
    mode: 'In',
    ...readFacets(attrs),
  };
}
