// TypeScript types of function-import results the generated client returns; entity and complex
// types come from types.ts, primitives are read off their JSON Schemas so the client and
// openapi.json agree on the REST shape (Int64/Decimal/dates are strings).
import type { EdmPrimitiveType } from '../odata/model.js';
import { primitiveJsonSchema } from './edm-json-schema.js';
import type { ReturnShape } from './rest-surface.js';

export function tsPrimitiveType(type: EdmPrimitiveType): string {
  switch (primitiveJsonSchema(type).type) {
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'string';
  }
}

/** Result type of a function import, naming generated types through the `T` namespace import. */
export function tsReturnType(shape: ReturnShape): string {
  if (shape.kind === 'none') return 'void';
  const single = shape.kind === 'named' ? `T.${shape.typeName}` : tsPrimitiveType(shape.type);
  return shape.isCollection ? `${single}[]` : single;
}
