// The entity data model of an OData V2 service (CSDL as carried by EDMX 1.0), as plain data.
// codegen reads EDMX into this shape once; service/, gateway/ and the odata/ codecs are driven
// by it at runtime and never parse EDMX per request.
//
// `restName` / `restPath` are the JSON-facing names of the gateway's REST face and of the
// generated types (camelCase properties, kebab-case plural resources). They are derived by
// codegen from the EDMX names, never written by hand, and live here so every program reads
// one mapping.

export const EDM_PRIMITIVE_TYPES = [
  'Edm.Binary',
  'Edm.Boolean',
  'Edm.Byte',
  'Edm.DateTime',
  'Edm.DateTimeOffset',
  'Edm.Decimal',
  'Edm.Double',
  'Edm.Guid',
  'Edm.Int16',
  'Edm.Int32',
  'Edm.Int64',
  'Edm.SByte',
  'Edm.Single',
  'Edm.String',
  'Edm.Time',
] as const;

export type EdmPrimitiveType = (typeof EDM_PRIMITIVE_TYPES)[number];

export function isEdmPrimitiveType(name: string): name is EdmPrimitiveType {
  return (EDM_PRIMITIVE_TYPES as readonly string[]).includes(name);
}

/** The values of each Edm integer type held as a number (Edm.Int64 is held as text), least and greatest. */
export const EDM_INTEGER_RANGES: Partial<Record<EdmPrimitiveType, readonly [number, number]>> = {
  'Edm.Byte': [0, 255],
  'Edm.SByte': [-128, 127],
  'Edm.Int16': [-32768, 32767],
  'Edm.Int32': [-2147483648, 2147483647],
};

/** `sap:` attributes and any other foreign attributes, in document order, names with prefix. */
export type Annotations = Readonly<Record<string, string>>;

/** What the `sap:` annotations allow on a property (missing annotation = SAP's default, true). */
export interface PropertyCapabilities {
  readonly creatable: boolean;
  readonly updatable: boolean;
  readonly filterable: boolean;
  readonly sortable: boolean;
}

export interface Property {
  readonly name: string;
  readonly restName: string;
  /** `Edm.*` or the full name of a complex type (`Service.ChangeSet`). */
  readonly type: string;
  readonly nullable: boolean;
  readonly maxLength?: number | 'Max';
  readonly fixedLength?: boolean;
  readonly unicode?: boolean;
  readonly precision?: number;
  readonly scale?: number;
  readonly defaultValue?: string;
  readonly concurrencyMode?: 'Fixed';
  readonly label?: string;
  readonly capabilities: PropertyCapabilities;
  readonly annotations: Annotations;
}

export type Multiplicity = '1' | '0..1' | '*';

export interface NavigationProperty {
  readonly name: string;
  readonly restName: string;
  /** Full name of the association (`Service.Project_Client`). */
  readonly relationship: string;
  readonly fromRole: string;
  readonly toRole: string;
  /** Full name of the entity type at the `toRole` end. */
  readonly targetType: string;
  /** Multiplicity of the `toRole` end: `*` is a collection. */
  readonly multiplicity: Multiplicity;
  readonly annotations: Annotations;
}

export interface EntityType {
  readonly name: string;
  /** `Namespace.Name` */
  readonly fullName: string;
  /** Key property names in EDMX order (more than one for a composite key). */
  readonly key: readonly string[];
  readonly properties: readonly Property[];
  readonly navigationProperties: readonly NavigationProperty[];
  readonly hasStream: boolean;
  readonly annotations: Annotations;
}

export interface ComplexType {
  readonly name: string;
  readonly fullName: string;
  readonly properties: readonly Property[];
  readonly annotations: Annotations;
}

export interface AssociationEnd {
  readonly role: string;
  /** Full name of the entity type. */
  readonly type: string;
  readonly multiplicity: Multiplicity;
  readonly onDelete?: 'Cascade' | 'None';
}

export interface ReferentialConstraint {
  readonly principal: { readonly role: string; readonly properties: readonly string[] };
  readonly dependent: { readonly role: string; readonly properties: readonly string[] };
}

export interface Association {
  readonly name: string;
  readonly fullName: string;
  readonly ends: readonly [AssociationEnd, AssociationEnd];
  readonly referentialConstraint?: ReferentialConstraint;
  readonly annotations: Annotations;
}

/** What the `sap:` annotations allow on an entity set (missing annotation = true). */
export interface EntitySetCapabilities {
  readonly creatable: boolean;
  readonly updatable: boolean;
  readonly deletable: boolean;
  readonly pageable: boolean;
  readonly addressable: boolean;
}

export interface EntitySet {
  readonly name: string;
  /** kebab-case plural path segment of the REST face (`time-entries`). */
  readonly restPath: string;
  /** Full name of the entity type. */
  readonly entityType: string;
  readonly capabilities: EntitySetCapabilities;
  readonly annotations: Annotations;
}

export interface AssociationSet {
  readonly name: string;
  /** Full name of the association. */
  readonly association: string;
  readonly ends: readonly [
    { readonly role: string; readonly entitySet: string },
    { readonly role: string; readonly entitySet: string },
  ];
  readonly annotations: Annotations;
}

export interface FunctionImportParameter {
  readonly name: string;
  readonly restName: string;
  /** Always an `Edm.*` primitive in V2 function imports. */
  readonly type: EdmPrimitiveType;
  readonly nullable: boolean;
  readonly mode: 'In';
  readonly maxLength?: number | 'Max';
  readonly precision?: number;
  readonly scale?: number;
}

/** How the REST face exposes a function import: from `tg:rest="POST /stopwatch"`, else derived. */
export interface RestOperation {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the REST base (`/stopwatch`, `/stopwatch/halt`, `/changes-digest`). */
  readonly path: string;
}

export interface FunctionImport {
  readonly name: string;
  /** camelCase name for generated code (`startStopWatch`). */
  readonly restName: string;
  readonly rest: RestOperation;
  /**
   * As written in EDMX: an entity or complex type full name, an `Edm.*` primitive,
   * `Collection(...)` of those, or undefined for none.
   */
  readonly returnType?: string;
  readonly entitySet?: string;
  readonly httpMethod: 'GET' | 'POST';
  readonly parameters: readonly FunctionImportParameter[];
  readonly annotations: Annotations;
}

export interface Model {
  /** Namespace of the schema that holds the entity types (`Service`). */
  readonly namespace: string;
  /** Namespace of the schema that holds the entity container (often the same). */
  readonly containerNamespace: string;
  readonly containerName: string;
  /** `DataServiceVersion` of the `edmx:DataServices` element (`1.0` or `2.0`). */
  readonly dataServiceVersion: string;
  readonly entityTypes: readonly EntityType[];
  readonly complexTypes: readonly ComplexType[];
  readonly associations: readonly Association[];
  readonly entitySets: readonly EntitySet[];
  readonly associationSets: readonly AssociationSet[];
  readonly functionImports: readonly FunctionImport[];
  /** Namespace URIs of foreign annotation prefixes used in the document (`sap` → its URI). */
  readonly annotationNamespaces: Readonly<Record<string, string>>;
}
