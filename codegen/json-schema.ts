// The JSON Schemas of the REST face (components.schemas of openapi.json, and the source of the
// ajv validators and of types.ts): per entity type its read shape, create and update inputs and
// list page; per complex type its shape; per entity set its list query; per function import
// its parameters; coded values; Problem. Derived from the model only.
import type {
  ComplexType,
  EntitySet,
  EntityType,
  FunctionImport,
  FunctionImportParameter,
  Model,
  NavigationProperty,
  Property,
} from '../odata/model.js';
import { isEdmPrimitiveType } from '../odata/model.js';
import { indexModel } from '../odata/model-index.js';
import type { DescriptionExamples } from './description-examples.js';
import { descriptionExamples } from './description-examples.js';
import type { JsonSchema } from './edm-json-schema.js';
import { defaultJsonValue, primitiveJsonSchema, typeHint, withNull } from './edm-json-schema.js';
import { toPascalCase } from './naming.js';
import { codedValues, isRequiredOnCreate, isServerDefault } from '../odata/timegate-annotations.js';

export type { JsonSchema } from './edm-json-schema.js';

export const SCHEMA_REF_PREFIX = '#/components/schemas/';

export function schemaRef(name: string): JsonSchema {
  return { $ref: SCHEMA_REF_PREFIX + name };
}

/** Query parameters every list takes; an equality parameter of the same name is left out. */
export const LIST_OPTION_NAMES = ['filter', 'orderBy', 'select', 'expand', 'limit', 'cursor', 'count'] as const;
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

const shortName = (fullName: string): string => fullName.slice(fullName.lastIndexOf('.') + 1);

/** Schema names, one place: PascalCase of the EDM names (`Order_Detail` -> `OrderDetail`). */
export const schemaNames = {
  type: (type: EntityType | ComplexType): string => toPascalCase(type.name),
  /** Of an entity or complex type given by full name (`Service.ChangeSet` -> `ChangeSet`). */
  typeByFullName: (fullName: string): string => toPascalCase(shortName(fullName)),
  create: (type: EntityType): string => `${toPascalCase(type.name)}Create`,
  update: (type: EntityType): string => `${toPascalCase(type.name)}Update`,
  list: (type: EntityType): string => `${toPascalCase(type.name)}List`,
  /** What a read returns when `select` is given: any subset of the read properties. */
  selection: (type: EntityType): string => `${toPascalCase(type.name)}Selection`,
  selectionByFullName: (fullName: string): string => `${toPascalCase(shortName(fullName))}Selection`,
  selectionList: (type: EntityType): string => `${toPascalCase(type.name)}SelectionList`,
  listQuery: (set: EntitySet): string => `${toPascalCase(set.name)}ListQuery`,
  parameters: (fn: FunctionImport): string => `${toPascalCase(fn.name)}Parameters`,
  codedValues: (owner: EntityType | ComplexType, property: Property): string =>
    `${toPascalCase(owner.name)}${toPascalCase(property.name)}`,
  problem: 'Problem',
} as const;

export interface SchemaSet {
  /** Every schema by name, sorted by name. */
  readonly schemas: Record<string, JsonSchema>;
  /** Names of the schemas whose data comes from a query string (validated with type coercion). */
  readonly queryStringSchemas: readonly string[];
  /** What each generated `pattern` means, in words, for validation messages. */
  readonly patternHints: Record<string, string>;
}

/** Only the schemas (for components.schemas). */
export function buildSchemas(model: Model): Record<string, JsonSchema> {
  return buildSchemaSet(model).schemas;
}

export function buildSchemaSet(model: Model): SchemaSet {
  const builder = new SchemaBuilder(model);
  builder.build();
  return builder.result();
}

type Mode = 'read' | 'create' | 'update' | 'query';

class SchemaBuilder {
  private readonly index;
  private readonly schemas = new Map<string, JsonSchema>();
  private readonly hints = new Map<string, string>();
  private readonly queryStrings: string[] = [];

  private readonly examples: DescriptionExamples;

  constructor(private readonly model: Model) {
    this.index = indexModel(model);
    this.examples = descriptionExamples(model, '');
  }

  build(): void {
    const { model } = this;
    for (const type of model.complexTypes) {
      this.add(schemaNames.type(type), this.shape(type, type.properties, 'read', `${type.name}, a structured value.`));
      this.addCodedValues(type);
    }
    for (const type of model.entityTypes) this.addEntityType(type);
    for (const set of model.entitySets) {
      this.add(schemaNames.listQuery(set), this.listQuery(set));
      this.queryStrings.push(schemaNames.listQuery(set));
    }
    for (const fn of model.functionImports) {
      if (fn.parameters.length === 0) continue;
      this.add(schemaNames.parameters(fn), this.parameters(fn));
      if (fn.rest.method === 'GET') this.queryStrings.push(schemaNames.parameters(fn));
    }
    this.add(schemaNames.problem, problemSchema());
  }

  result(): SchemaSet {
    const names = [...this.schemas.keys()].sort();
    const hints = [...this.hints.keys()].sort();
    return {
      schemas: Object.fromEntries(names.map((name) => [name, this.schemas.get(name) as JsonSchema])),
      queryStringSchemas: [...this.queryStrings].sort(),
      patternHints: Object.fromEntries(hints.map((p) => [p, this.hints.get(p) as string])),
    };
  }

  private add(name: string, schema: JsonSchema): void {
    if (this.schemas.has(name)) throw new Error(`two schemas would be named ${name}: rename one of the EDM elements`);
    this.schemas.set(name, schema);
  }

  private addEntityType(type: EntityType): void {
    const sets = this.model.entitySets.filter((s) => s.entityType === type.fullName);
    const read = this.shape(type, type.properties, 'read', `${type.name}, as the REST face returns it.`);
    for (const nav of type.navigationProperties) {
      (read.properties as Record<string, JsonSchema>)[nav.restName] = this.navigation(nav, schemaNames.typeByFullName);
    }
    this.add(schemaNames.type(type), read);
    this.add(schemaNames.selection(type), this.selection(type));
    this.add(schemaNames.selectionList(type), listSchema(type, 'selection'));
    this.addCodedValues(type);
    if (sets.some((s) => s.capabilities.creatable)) {
      const creatable = type.properties.filter((p) => p.capabilities.creatable);
      this.add(schemaNames.create(type), this.shape(type, creatable, 'create', `A new ${type.name}: the properties a create may set.`));
    }
    if (sets.some((s) => s.capabilities.updatable)) {
      const updatable = type.properties.filter((p) => p.capabilities.updatable);
      const what = `Changes to a ${type.name} (JSON merge patch): only the properties given are changed; null clears a nullable property.`;
      this.add(schemaNames.update(type), this.shape(type, updatable, 'update', what));
    }
    this.add(schemaNames.list(type), listSchema(type, 'full'));
  }

  /**
   * The read shape with nothing required: `select` leaves out what it does not name, so a
   * document that required every property would call a correct partial answer invalid.
   * Navigations refer to the target's selection, as `client/name` selects inside an expansion.
   */
  private selection(type: EntityType): JsonSchema {
    const nested = this.examples.nestedSelect;
    const what =
      `${type.name} as a read returns it when \`select\` is given: only the selected properties ` +
      `and the expanded navigations (nested selects${nested === undefined ? '' : ` such as \`${nested}\``} give partial related items).`;
    const schema = this.shape(type, type.properties, 'read', what);
    delete schema.required;
    for (const nav of type.navigationProperties) {
      (schema.properties as Record<string, JsonSchema>)[nav.restName] = this.navigation(nav, schemaNames.selectionByFullName);
    }
    return schema;
  }

  private addCodedValues(owner: EntityType | ComplexType): void {
    for (const property of owner.properties) {
      const values = codedValues(this.model, property.annotations);
      if (values.length === 0) continue;
      const listed = values.map((v) => `${v.value} = ${v.name}`).join(', ');
      this.add(schemaNames.codedValues(owner, property), {
        type: 'integer',
        enum: values.map((v) => v.value),
        'x-enum-varnames': values.map((v) => v.name),
        description: `Coded values of ${owner.name}.${property.name}: ${listed}.`,
      });
    }
  }

  private shape(owner: EntityType | ComplexType, properties: readonly Property[], mode: Mode, description: string): JsonSchema {
    const schema: JsonSchema = {
      type: 'object',
      description,
      properties: Object.fromEntries(properties.map((p) => [p.restName, this.property(owner, p, mode)])),
    };
    const required = properties.filter((p) => mode === 'read' || (mode === 'create' && isRequiredOnCreate(this.model, p)));
    if (required.length > 0) schema.required = required.map((p) => p.restName);
    if (mode === 'create' || mode === 'update') schema.additionalProperties = false;
    return schema;
  }

  private property(owner: EntityType | ComplexType, p: Property, mode: Mode): JsonSchema {
    let schema: JsonSchema;
    if (codedValues(this.model, p.annotations).length > 0) schema = schemaRef(schemaNames.codedValues(owner, p));
    else if (isEdmPrimitiveType(p.type)) schema = this.primitive(p);
    else schema = schemaRef(schemaNames.typeByFullName(p.type));
    if (p.nullable && mode !== 'query') schema = withNull(schema);
    const description = this.describe(owner, p);
    if (description) schema.description = description;
    if (mode === 'read' && !p.capabilities.creatable && !p.capabilities.updatable) schema.readOnly = true;
    if (mode === 'create' && p.defaultValue !== undefined) {
      const value = defaultJsonValue(p.type, p.defaultValue);
      if (value !== undefined) schema.default = value;
    }
    return schema;
  }

  private primitive(p: Property | FunctionImportParameter): JsonSchema {
    const type = p.type as Parameters<typeof primitiveJsonSchema>[0];
    const schema = primitiveJsonSchema(type, p);
    const hint = typeHint(type, p);
    if (schema.pattern !== undefined && hint !== undefined) this.hints.set(schema.pattern, hint);
    return schema;
  }

  private describe(owner: EntityType | ComplexType, p: Property): string {
    const parts: string[] = [];
    if (p.label) parts.push(sentence(p.label));
    if ('key' in owner && owner.key.includes(p.name)) parts.push(owner.key.length > 1 ? 'Part of the key.' : 'Key.');
    if (isEdmPrimitiveType(p.type)) {
      const hint = typeHint(p.type, p);
      if (hint) parts.push(sentence(hint));
    }
    if (typeof p.maxLength === 'number') parts.push(`At most ${p.maxLength} characters.`);
    const values = codedValues(this.model, p.annotations);
    if (values.length > 0) parts.push(`Coded values: ${values.map((v) => `${v.value} = ${v.name}`).join(', ')}.`);
    if (p.defaultValue !== undefined) parts.push(`Default when omitted on create: ${p.defaultValue}.`);
    if (isServerDefault(this.model, p.annotations)) parts.push('Filled in by the service when omitted on create.');
    const { creatable, updatable } = p.capabilities;
    if (!creatable && !updatable) parts.push('Set by the service; read-only.');
    else if (!updatable) parts.push('Can be set on create only.');
    else if (!creatable) parts.push('Cannot be set on create; may be changed later.');
    if (p.concurrencyMode === 'Fixed') parts.push('Used for optimistic concurrency (ETag).');
    return parts.join(' ');
  }

  private navigation(nav: NavigationProperty, schemaOf: (fullName: string) => string): JsonSchema {
    const target = schemaRef(schemaOf(nav.targetType));
    const name = schemaNames.typeByFullName(nav.targetType);
    const when = `present only when expanded (\`expand=${nav.restName}\`).`;
    if (nav.multiplicity === '*') {
      return { type: 'array', items: target, description: `The related ${name} items, ${when}` };
    }
    return { anyOf: [target, { type: 'null' }], description: `The related ${name} (or null), ${when}` };
  }

  private listQuery(set: EntitySet): JsonSchema {
    const type = this.index.typeOfSet(set);
    const reserved = LIST_OPTION_NAMES as readonly string[];
    const properties: Record<string, JsonSchema> = {};
    for (const p of type.properties) {
      if (!isEqualityFilter(p) || reserved.includes(p.restName)) continue;
      const schema = this.property(type, p, 'query');
      schema.description = `Only items whose \`${p.restName}\` equals this value.`;
      properties[p.restName] = schema;
    }
    properties.filter = {
      type: 'string',
      minLength: 1,
      description: 'OData V2 `$filter` expression over the REST (camelCase) property names, e.g. `id gt 10`.',
    };
    if (type.properties.some((p) => p.capabilities.sortable)) {
      properties.orderBy = {
        type: 'string',
        minLength: 1,
        description: `Sort order: comma-separated sortable properties, each optionally followed by \`asc\` or \`desc\` (${listOf(type.properties.filter((p) => p.capabilities.sortable))}).`,
      };
    }
    properties.select = {
      type: 'string',
      minLength: 1,
      description: `Properties to return, comma-separated (${listOf([...type.properties, ...type.navigationProperties])}).`,
    };
    if (type.navigationProperties.length > 0) {
      properties.expand = {
        type: 'string',
        minLength: 1,
        description: `Related entities to embed, comma-separated, nested with \`/\` (${listOf(type.navigationProperties)}).`,
      };
    }
    properties.limit = {
      type: 'integer',
      minimum: 1,
      maximum: MAX_LIST_LIMIT,
      default: DEFAULT_LIST_LIMIT,
      description: `Page size, 1 to ${MAX_LIST_LIMIT}.`,
    };
    properties.cursor = { type: 'string', minLength: 1, description: 'Opaque cursor from the `next` link of the previous page.' };
    properties.count = { type: 'boolean', description: 'When true, the page includes `total`, the number of matching items.' };
    return {
      type: 'object',
      description: `Query parameters of a list of ${set.name}.`,
      properties,
      additionalProperties: false,
    };
  }

  private parameters(fn: FunctionImport): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    for (const parameter of fn.parameters) {
      const base = this.primitive(parameter);
      const schema = parameter.nullable ? withNull(base) : base;
      const parts = [typeHint(parameter.type, parameter), typeof parameter.maxLength === 'number' ? `at most ${parameter.maxLength} characters` : undefined];
      const description = parts.filter((x) => x !== undefined).map(sentence).join(' ');
      if (description) schema.description = description;
      properties[parameter.restName] = schema;
    }
    const required = fn.parameters.filter((p) => !p.nullable).map((p) => p.restName);
    return {
      type: 'object',
      description: `Parameters of ${fn.name}.`,
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    };
  }
}

/** Properties that get an equality query parameter on lists (Binary cannot be compared in a URL). */
export function isEqualityFilter(p: Property): boolean {
  return p.capabilities.filterable && isEdmPrimitiveType(p.type) && p.type !== 'Edm.Binary';
}

function listSchema(type: EntityType, items: 'full' | 'selection'): JsonSchema {
  const description =
    items === 'full'
      ? `A page of ${type.name} items.`
      : `A page of ${type.name} items as a list returns it when \`select\` is given: each item has only the selected properties and the expanded navigations.`;
  return {
    type: 'object',
    description,
    properties: {
      items: { type: 'array', items: schemaRef(items === 'full' ? schemaNames.type(type) : schemaNames.selection(type)) },
      next: { type: ['string', 'null'], description: 'Relative URL of the next page (`/api/v1/...?cursor=...`), or null on the last page.' },
      total: { type: 'integer', minimum: 0, description: 'Number of all matching items; only with `count=true`.' },
    },
    required: ['items', 'next'],
  };
}

function problemSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'An error (RFC 9457 problem details).',
    properties: {
      type: { type: 'string', format: 'uri-reference', description: 'URI reference that identifies the kind of problem.' },
      title: { type: 'string', description: 'Short summary of the kind of problem.' },
      status: { type: 'integer', minimum: 100, maximum: 599, description: 'The HTTP status code.' },
      detail: { type: 'string', description: 'What went wrong in this case.' },
      instance: { type: 'string', description: 'The request path this problem occurred on.' },
      code: { type: 'string', description: 'Error code of the upstream OData service, when it gave one.' },
      errors: {
        type: 'array',
        description: 'One item per invalid field.',
        items: {
          type: 'object',
          properties: {
            pointer: { type: 'string', description: 'JSON pointer (RFC 6901) to the field in the request body or query.' },
            detail: { type: 'string', description: 'What is wrong with the field.' },
          },
          required: ['pointer', 'detail'],
        },
      },
    },
    required: ['type', 'title', 'status'],
  };
}

function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

function listOf(items: readonly { restName: string }[]): string {
  return items.map((x) => `\`${x.restName}\``).join(', ');
}
