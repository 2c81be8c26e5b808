// Schemas of path and query parameters. A parameter always has a value when present, so its
// schema is the JSON type without null; coded values refer to their enum schema.
import type { OpenAPIV3_1 } from 'openapi-types';
import type { EdmPrimitiveType, EntityType, FunctionImportParameter, Model, Property } from '../odata/model.js';
import type { JsonSchema } from './edm-json-schema.js';
import { primitiveJsonSchema, typeHint } from './edm-json-schema.js';
import { SCHEMA_REF_PREFIX, schemaNames } from './json-schema.js';
import { codedValues } from '../odata/timegate-annotations.js';

type ParameterSchema = OpenAPIV3_1.ParameterObject['schema'];

/** Schema of a key or equality parameter for a primitive property of `owner`. */
export function propertyParameterSchema(model: Model, owner: EntityType, property: Property): ParameterSchema {
  if (codedValues(model, property.annotations).length > 0) {
    return { $ref: SCHEMA_REF_PREFIX + schemaNames.codedValues(owner, property) };
  }
  return toParameterSchema(valueSchema(property));
}

/** Schema of a function import parameter sent in the query string. */
export function functionParameterSchema(parameter: FunctionImportParameter): ParameterSchema {
  return toParameterSchema(valueSchema(parameter));
}

/** Schema of a primitive result of a function import. */
export function primitiveSchema(type: EdmPrimitiveType): OpenAPIV3_1.SchemaObject {
  return toOpenApiSchema(primitiveJsonSchema(type));
}

function valueSchema(parameter: Property | FunctionImportParameter): JsonSchema {
  const type = parameter.type as EdmPrimitiveType;
  const schema = primitiveJsonSchema(type, parameter);
  const hint = typeHint(type, parameter);
  if (hint !== undefined) schema.description = hint;
  return schema;
}

/**
 * Our JsonSchema is the JSON Schema 2020-12 subset OpenAPI 3.1 embeds; openapi-types models
 * `type` as a discriminated union (array vs non-array) that a plain schema type cannot express.
 */
export function toOpenApiSchema(schema: JsonSchema): OpenAPIV3_1.SchemaObject {
  return schema as OpenAPIV3_1.SchemaObject;
}

/** openapi-types gives parameters OpenAPI 3.0 schemas; ours are plain non-null ones, valid in both. */
function toParameterSchema(schema: JsonSchema): ParameterSchema {
  return schema as ParameterSchema;
}
