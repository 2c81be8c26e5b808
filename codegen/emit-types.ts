// types.ts: the TypeScript types of the REST face, one per JSON Schema of json-schema.ts (so the
// types and the validators can never disagree), plus constants for coded values and the
// resource path of every entity set.
import { Project, VariableDeclarationKind } from 'ts-morph';
import type { SourceFile } from 'ts-morph';
import type { Model } from '../odata/model.js';
import type { Emitter, GeneratedFile } from './emitter.js';
import { formatSource, tsLiteral } from './format.js';
import type { JsonSchema } from './json-schema.js';
import { SCHEMA_REF_PREFIX, buildSchemas } from './json-schema.js';

export const emitTypes: Emitter = (model: Model): GeneratedFile[] => {
  const project = new Project({ useInMemoryFileSystem: true });
  const file = project.createSourceFile('/types.ts');
  for (const [name, schema] of Object.entries(buildSchemas(model))) addSchema(file, name, schema);
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['REST resource path segment (below `/api/v1/`) of every entity set, by set name.'],
    declarations: [
      {
        name: 'resourcePaths',
        initializer: `${tsLiteral(Object.fromEntries(model.entitySets.map((s) => [s.name, s.restPath])), 0)} as const`,
      },
    ],
  });
  return [{ path: 'types.ts', contents: formatSource('types.ts', file.getFullText()) }];
};

function addSchema(file: SourceFile, name: string, schema: JsonSchema): void {
  const docs = schema.description ? [escapeDoc(schema.description)] : [];
  const varNames = schema['x-enum-varnames'];
  if (varNames && schema.enum) {
    const values = schema.enum;
    file.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs,
      declarations: [{ name, initializer: `${tsLiteral(Object.fromEntries(varNames.map((v, i) => [v, values[i] ?? null])), 0)} as const` }],
    });
    file.addTypeAlias({ isExported: true, name, docs, type: tsType(schema) });
    return;
  }
  if (schema.properties && !schema.anyOf) {
    const required = new Set(schema.required ?? []);
    file.addInterface({
      isExported: true,
      name,
      docs,
      properties: Object.entries(schema.properties).map(([key, property]) => ({
        name: propertyKey(key),
        type: tsType(property),
        hasQuestionToken: !required.has(key),
        docs: propertyDocs(property),
      })),
    });
    return;
  }
  file.addTypeAlias({ isExported: true, name, docs, type: tsType(schema) });
}

function propertyDocs(schema: JsonSchema): string[] {
  const lines = [schema.description, schema.default === undefined ? undefined : `@default ${JSON.stringify(schema.default)}`];
  const text = lines.filter((l): l is string => l !== undefined && l !== '').map(escapeDoc).join('\n');
  return text ? [text] : [];
}

/** The TypeScript type of a schema's value (the JSON shape: dates, Int64 and Decimal are strings). */
export function tsType(schema: JsonSchema): string {
  if (schema.$ref !== undefined) return refName(schema.$ref);
  if (schema.anyOf) return union(schema.anyOf.map(tsType));
  if (schema.enum) return union(schema.enum.map(literal));
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length === 0) return 'unknown';
  return union(
    types.map((type) => {
      switch (type) {
        case 'integer':
        case 'number':
          return 'number';
        case 'array': {
          const item = schema.items ? tsType(schema.items) : 'unknown';
          return /[|&]/.test(item) ? `(${item})[]` : `${item}[]`;
        }
        case 'object':
          return objectLiteralType(schema);
        default:
          return type;
      }
    }),
  );
}

function objectLiteralType(schema: JsonSchema): string {
  if (!schema.properties) return 'Record<string, unknown>';
  const required = new Set(schema.required ?? []);
  const members = Object.entries(schema.properties).map(
    ([key, property]) => `${propertyKey(key)}${required.has(key) ? '' : '?'}: ${tsType(property)}`,
  );
  return `{ ${members.join('; ')} }`;
}

function refName(ref: string): string {
  if (!ref.startsWith(SCHEMA_REF_PREFIX)) throw new Error(`unexpected $ref ${ref}`);
  return ref.slice(SCHEMA_REF_PREFIX.length);
}

function union(members: readonly string[]): string {
  return [...new Set(members)].join(' | ');
}

function literal(value: string | number | boolean | null): string {
  return typeof value === 'string' ? quote(value) : String(value);
}

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : quote(name);
}

/** JSDoc must not be closed early by text from the model. */
function escapeDoc(text: string): string {
  return text.replace(/\*\//g, '*\\/');
}
